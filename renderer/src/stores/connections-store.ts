// The org's connections with partner organisations (the hosted Teams feature,
// hosted-docs-facts.md section 4): the list seen from this org's side, the requests
// waiting for its answer, and the admin's actions on them. Connections are not
// records the engine announces in `records.changed`, so the store reads them when
// Settings opens and again after each of its own writes: nothing is polled.
import { z } from 'zod';
import { create } from 'zustand';
import { apiPaths, parseOrgIdReference } from '../../../shared/api-paths.ts';
import {
  acceptConnectionJsonSchema,
  connectedOrgJsonSchema,
  pendingConnectionJsonSchema,
  type ConnectedOrgJson,
  type PendingConnectionJson,
} from '../../../shared/schemas/connected-org.ts';
import { ApiFailure, apiDone, apiOk, messageOf } from '../api/api-client.ts';

export type ConnectionState = 'waiting' | 'active' | 'disabled_by_you' | 'disabled_by_partner';

/** What a connection amounts to now, from the three flags of its record. */
export function connectionState(connection: Pick<ConnectedOrgJson, 'is_active' | 'is_other_active' | 'is_other_enabled'>): ConnectionState {
  if (!connection.is_other_active) return 'waiting';
  if (!connection.is_active) return 'disabled_by_you';
  if (!connection.is_other_enabled) return 'disabled_by_partner';
  return 'active';
}

/** The partner's org id, read from the record's `org_to` URL. */
export function partnerOrgId(connection: Pick<ConnectedOrgJson, 'org_to'>): number | null {
  return parseOrgIdReference(connection.org_to);
}

interface ConnectionsState {
  orgId: number | null;
  connections: ConnectedOrgJson[];
  pending: PendingConnectionJson[];
  status: 'idle' | 'loading' | 'ready' | 'error';
  error: string | null;
  /** The server's message about the name typed in "Ask to connect", shown beside the field. */
  askError: string | null;
  isAsking: boolean;
  /** Ids (connection ids, or org ids of pending requests) with a write under way. */
  busy: number[];
  /** Partner org names by org id, for "Shared with" and "Shared by" markers. */
  partnerNames: ReadonlyMap<number, string>;
  load(orgId: number): Promise<void>;
  /** Loads once per org (the project views' names); Settings and writes load again. */
  ensureLoaded(orgId: number): Promise<void>;
  /** Asks the organisation named exactly `orgName`; true when the request was sent. */
  ask(orgName: string): Promise<boolean>;
  clearAskError(): void;
  accept(request: PendingConnectionJson): Promise<void>;
  /** Declines a request waiting for this org (DELETE of its item). */
  decline(request: PendingConnectionJson): Promise<void>;
  setActive(connection: ConnectedOrgJson, isActive: boolean): Promise<void>;
  remove(connection: ConnectedOrgJson): Promise<void>;
}

export const useConnectionsStore = create<ConnectionsState>((set, get) => {
  const withBusy = async (id: number, write: () => Promise<void>) => {
    set({ busy: [...get().busy, id] });
    try {
      await write();
    } finally {
      set({ busy: get().busy.filter((busyId) => busyId !== id) });
    }
    const orgId = get().orgId;
    if (orgId !== null) await get().load(orgId);
  };
  const requireOrg = () => {
    const orgId = get().orgId;
    if (orgId === null) throw new Error('Open Settings again: the organisation is not known yet.');
    return orgId;
  };
  return {
    orgId: null,
    connections: [],
    pending: [],
    status: 'idle',
    error: null,
    askError: null,
    isAsking: false,
    busy: [],
    partnerNames: new Map(),

    async load(orgId) {
      const isOtherOrg = get().orgId !== orgId;
      set({ orgId, status: isOtherOrg || get().status !== 'ready' ? 'loading' : 'ready', error: null, ...(isOtherOrg ? { connections: [], pending: [], partnerNames: new Map() } : {}) });
      try {
        const [connections, pending] = await Promise.all([
          apiOk(z.array(connectedOrgJsonSchema), 'GET', apiPaths.connectedOrgs(orgId), { query: { limit: 1000 } }),
          apiOk(z.array(pendingConnectionJsonSchema), 'GET', apiPaths.connectedOrgsPending(orgId)),
        ]);
        const partnerNames = new Map<number, string>();
        for (const connection of connections) {
          const partnerId = partnerOrgId(connection);
          if (partnerId !== null) partnerNames.set(partnerId, connection.org_name);
        }
        for (const request of pending) partnerNames.set(request.org_from_id, request.org_from_name);
        if (get().orgId === orgId) set({ connections, pending, partnerNames, status: 'ready' });
      } catch (error) {
        if (get().orgId === orgId) set({ status: 'error', error: messageOf(error) });
      }
    },

    async ensureLoaded(orgId) {
      if (get().orgId === orgId && get().status !== 'error') return;
      await get().load(orgId);
    },

    async ask(orgName) {
      const orgId = requireOrg();
      set({ isAsking: true, askError: null });
      try {
        await apiOk(connectedOrgJsonSchema, 'POST', apiPaths.connectedOrgs(orgId), { body: { org_name: orgName } });
      } catch (error) {
        const fieldMessage = error instanceof ApiFailure ? error.fieldErrors.org_name?.[0] : undefined;
        set({ isAsking: false, askError: fieldMessage ?? messageOf(error) });
        return false;
      }
      set({ isAsking: false });
      await get().load(orgId);
      return true;
    },

    clearAskError() {
      set({ askError: null });
    },

    async accept(request) {
      const orgId = requireOrg();
      await withBusy(request.org_from_id, async () => {
        await apiOk(acceptConnectionJsonSchema, 'POST', apiPaths.connectedOrgsAccept(orgId), { body: { org_to_id: request.org_to_id } });
      });
    },

    async decline(request) {
      const orgId = requireOrg();
      await withBusy(request.org_from_id, () => apiDone('DELETE', apiPaths.connectedOrg(orgId, request.item_id)));
    },

    async setActive(connection, isActive) {
      const orgId = requireOrg();
      await withBusy(connection.id, async () => {
        await apiOk(connectedOrgJsonSchema, 'PATCH', apiPaths.connectedOrg(orgId, connection.id), { body: { is_active: isActive } });
      });
    },

    async remove(connection) {
      const orgId = requireOrg();
      await withBusy(connection.id, () => apiDone('DELETE', apiPaths.connectedOrg(orgId, connection.id)));
    },
  };
});

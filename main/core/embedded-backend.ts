// The embedded backend: the engine on this machine's own store, with no remote.
// It is the authority for its orgs, so it records activity and delivers webhooks
// itself. The session signs in as a local admin, without a password: whoever can
// read the data folder already holds everything in it.
import type { DeliveryOutcomeNotice } from '../engine/webhooks/delivery-worker.ts';
import { createEngine } from '../engine/engine.ts';
import { seedDemo, DEMO_USERS } from '../engine/seed/demo-seed.ts';
import { issueToken } from '../engine/auth/accounts.ts';
import { planAccess } from '../engine/orgs/org-service.ts';
import { todayIso } from '../engine/clock.ts';
import { DEFAULT_THROTTLE_RATES } from '../../shared/throttle-rates.ts';
import type { SyncState } from '../../shared/bridge.ts';
import { LOCAL_WEBHOOKS_ADVICE } from '../../shared/local-webhooks.ts';
import type { AgentFolders } from '../sync/agent.ts';
import { countHeldDeletes } from '../sync/outbox.ts';
import { registerFolderRoutes } from '../sync/sync-routes.ts';
import { type EmbeddedStartOptions, type LocalBackend, type LocalIdentity, LOCAL_ONLY_STATE } from './local-backend.ts';
import { startEmbeddedFolders } from './folder-session.ts';
import { backfillLocalWork, captureLocalWork } from './local-work.ts';

/**
 * The service's quotas protect a shared remote from many clients. The embedded
 * store serves one person through this app (autosave, a 10,000-row list), so its
 * own engine does not ration them; a synced desktop still paces itself against
 * the remote's real quotas (the agent's job).
 */
export const LOCAL_USER_THROTTLE_RATES = Object.fromEntries(
  Object.keys(DEFAULT_THROTTLE_RATES).map((action) => [action, { user: '100000/sec', org: null }]),
);

export class NoLocalOrgError extends Error {}

/** The embedded store's sync state: local only, with the deletions made in its project folders that wait for the user. */
export function localOnlyState(heldDeletes: number): SyncState {
  if (heldDeletes === 0) return LOCAL_ONLY_STATE;
  return { ...LOCAL_ONLY_STATE, heldDeletes, detail: `Local only — ${heldDeletes} deletion${heldDeletes === 1 ? ' waits' : 's wait'} for you on the Sync screen.` };
}

/**
 * Starts the engine on the data folder, filling an empty store with the demo data,
 * and its project folders when a folder root is set (main/core/folder-session.ts).
 */
export async function startEmbeddedBackend(options: EmbeddedStartOptions): Promise<LocalBackend> {
  // The folder routes are registered as the engine is built, before the folders exist.
  let folders: AgentFolders | null = null;
  const stateListeners = new Set<(state: SyncState) => void>();
  const deliveryListeners = new Set<(outcome: DeliveryOutcomeNotice) => void>();
  let state = LOCAL_ONLY_STATE;
  let isClosed = false;
  let engine: Awaited<ReturnType<typeof createEngine>> | null = null;
  /** Reads the held deletes again and tells the listeners if the state changed. */
  const refreshState = async () => {
    if (!engine || isClosed) return;
    const next = localOnlyState(await countHeldDeletes(engine.context.db).catch(() => state.heldDeletes));
    if (isClosed || JSON.stringify(next) === JSON.stringify(state)) return;
    state = next;
    stateListeners.forEach((listener) => listener(state));
  };
  engine = await createEngine({
    dataDir: options.dataDir,
    dataFolder: options.dataFolderLock,
    logLevel: false,
    throttleRates: LOCAL_USER_THROTTLE_RATES,
    webhookDelivery: {
      allowPrivateEndpoints: options.allowPrivateWebhookEndpoints,
      privateEndpointAdvice: LOCAL_WEBHOOKS_ADVICE,
      // Our own server delivers webhooks: their outcomes go in the activity log.
      onDeliveryOutcome: (outcome) => deliveryListeners.forEach((listener) => listener(outcome)),
    },
    ...(options.maxUploadBytes !== undefined ? { maxUploadBytes: options.maxUploadBytes } : {}),
    // The same folder status and held-delete routes as the agent's (not /sync/status/: its 404 says "local only").
    extraOrgRoutes: (scope, context) =>
      registerFolderRoutes(scope, () => ({
        engine: context,
        folders,
        stateName: async () => 'local_only',
        onConfirmed: () => void refreshState(),
        onRestored: () => void refreshState(),
      })),
  });
  const started = engine;
  // Every record a person makes or changes here is local work, offered after a sign-in (local-work.ts).
  captureLocalWork(started.context);
  try {
    await seedDemo(started.context); // does nothing to a store that holds data
    await backfillLocalWork(started.context.db, started.context.clock.now().toISOString());
    const baseUrl = await started.listen(0, '127.0.0.1');
    const identity = await chooseLocalIdentity(started.context, options.orgId);
    const issue = () => issueToken(started.context.db, started.context.clock, identity.user.id);
    let token = await issue();
    if (options.folderRoot) {
      folders = await startEmbeddedFolders({
        engine: started.context,
        orgId: identity.orgId,
        userId: identity.user.id,
        dataDir: options.dataDir,
        folderRoot: options.folderRoot,
        onDeleteHeld: () => void refreshState(),
        watcher: options.projectFolders,
        log: options.log,
      });
    }
    await refreshState();
    const startedFolders = folders;
    return {
      mode: 'embedded',
      db: engine.context.db,
      clock: engine.context.clock,
      fileRoot: engine.context.store.fileRoot,
      api: () => ({ baseUrl, token }),
      async renewToken() {
        token = await issue();
      },
      identity: () => identity,
      watchSyncStatus(listener) {
        listener(state);
        const entry = (next: SyncState) => listener(next);
        stateListeners.add(entry);
        return () => stateListeners.delete(entry);
      },
      watchRecordChanges: (listener) => started.context.changes.subscribe(listener),
      watchWebhookDeliveries(listener) {
        const entry = (outcome: DeliveryOutcomeNotice) => listener(outcome);
        deliveryListeners.add(entry);
        return () => deliveryListeners.delete(entry);
      },
      folders: () => startedFolders,
      async close() {
        isClosed = true;
        await startedFolders?.close();
        await started.close();
      },
    };
  } catch (error) {
    isClosed = true;
    await folders?.close();
    await started.close();
    throw error;
  }
}

type EngineContext = Awaited<ReturnType<typeof createEngine>>['context'];

/** An admin of the wanted org (the demo admin first), among orgs whose API plan is in force. */
async function chooseLocalIdentity(context: EngineContext, wantedOrgId: number | null): Promise<LocalIdentity> {
  const admins = await context.db
    .selectFrom('roles')
    .innerJoin('users', 'users.id', 'roles.user_id')
    .innerJoin('orgs', 'orgs.id', 'roles.org_id')
    .select(['orgs.id as org_id', 'users.id as user_id', 'users.email', 'users.first_name', 'users.family_name'])
    .where('roles.is_admin', '=', 1)
    .orderBy('roles.id')
    .execute();
  const today = todayIso(context.clock);
  const usable: (typeof admins)[number][] = [];
  const orgs: LocalIdentity['orgs'] = [];
  for (const admin of admins) {
    const org = await context.orgs.get(admin.org_id);
    if (!org || !planAccess(org, today).allowed) continue;
    usable.push(admin);
    if (!orgs.some((known) => known.id === org.id)) orgs.push({ id: org.id, name: org.name });
  }
  orgs.sort((a, b) => a.id - b.id);
  const preferred =
    usable.find((admin) => admin.org_id === wantedOrgId) ??
    usable.find((admin) => admin.email === DEMO_USERS.sunriseAdmin) ??
    usable[0];
  if (!preferred) {
    throw new NoLocalOrgError('The local store holds no organisation with an admin and an API plan in force. Sign in to a remote, or start with an empty data folder to get the demo data.');
  }
  const displayName = `${preferred.first_name} ${preferred.family_name}`.trim() || preferred.email;
  return {
    user: { id: preferred.user_id, email: preferred.email, displayName },
    orgId: preferred.org_id,
    orgName: orgs.find((org) => org.id === preferred.org_id)?.name ?? `Org ${preferred.org_id}`,
    isAdmin: true,
    orgs,
  };
}

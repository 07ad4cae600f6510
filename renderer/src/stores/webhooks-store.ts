// The org's webhooks and their delivery log (org admins only: the engine says 403
// to anyone else, and the view explains that).
import { z } from 'zod';
import { create } from 'zustand';
import { apiPaths } from '../../../shared/api-paths.ts';
import { ApiFailure, apiDone, apiOk, apiRequest, describeFailure, messageOf } from '../api/api-client.ts';
import {
  webhookJsonSchema,
  webhookLogJsonSchema,
  webhookLogPayloadJsonSchema,
  webhookRedeliverJsonSchema,
  webhookTestResultJsonSchema,
  type WebhookJson,
  type WebhookLogJson,
  type WebhookLogPayloadJson,
  type WebhookRedeliverJson,
  type WebhookTestResultJson,
} from '../../../shared/schemas/webhook.ts';
import type { WebhookWriteBody } from '../webhooks/webhook-draft.ts';

/** The most attempts one "Download CSV" holds: the API's largest page. */
export const LOG_CSV_ROWS = 1000;

/** Each webhook's log search as last loaded, so a reload after a test delivery keeps the person's search. */
const lastLogSearch = new Map<number, string>();

interface WebhooksState {
  orgId: number | null;
  webhooks: WebhookJson[];
  status: 'idle' | 'loading' | 'ready' | 'error';
  error: string | null;
  logs: Record<number, WebhookLogJson[]>;
  load(orgId: number): Promise<void>;
  /** Creates (id null) or updates a webhook with the fields given (only those the person changed); returns the saved one. */
  save(id: number | null, body: Partial<WebhookWriteBody>): Promise<WebhookJson>;
  setEnabled(id: number, enabled: boolean): Promise<void>;
  remove(id: number): Promise<void>;
  /** The webhook's newest attempts, those matching `search` (the API's log search) when given. */
  loadLog(id: number, search?: string): Promise<void>;
  /** The same attempts as CSV text (the API's format=csv), at most LOG_CSV_ROWS of them. */
  logCsv(id: number, search?: string): Promise<string>;
  /** Sends a sample payload to the webhook's endpoint now (SolarDesk's extension route). */
  testDelivery(id: number): Promise<WebhookTestResultJson>;
  /** What a logged attempt sent, and the answer status. */
  loadPayload(logId: number): Promise<WebhookLogPayloadJson>;
  /** Queues a logged attempt's payload again. */
  redeliver(logId: number): Promise<WebhookRedeliverJson>;
}

export const useWebhooksStore = create<WebhooksState>((set, get) => {
  const orgIdOrThrow = () => {
    const orgId = get().orgId;
    if (orgId === null) throw new Error('No organisation is loaded.');
    return orgId;
  };
  const putWebhook = (webhook: WebhookJson) => {
    const others = get().webhooks.filter((existing) => existing.id !== webhook.id);
    set({ webhooks: [...others, webhook].sort((a, b) => a.id - b.id) });
  };

  return {
    orgId: null,
    webhooks: [],
    status: 'idle',
    error: null,
    logs: {},

    async load(orgId) {
      set({ orgId, status: get().webhooks.length && get().orgId === orgId ? 'ready' : 'loading', error: null });
      try {
        const webhooks = await apiOk(z.array(webhookJsonSchema), 'GET', apiPaths.webhooks(orgId), { query: { limit: 1000 } });
        set({ webhooks, status: 'ready' });
      } catch (error) {
        set({ status: 'error', error: messageOf(error) });
      }
    },

    async save(id, body) {
      const orgId = orgIdOrThrow();
      const saved =
        id === null
          ? await apiOk(webhookJsonSchema, 'POST', apiPaths.webhooks(orgId), { body })
          : await apiOk(webhookJsonSchema, 'PATCH', apiPaths.webhook(orgId, id), { body });
      putWebhook(saved);
      return saved;
    },

    async setEnabled(id, enabled) {
      const before = get().webhooks.find((webhook) => webhook.id === id);
      if (!before) return;
      // The switch moves at once; a refusal puts it back.
      putWebhook({ ...before, enabled });
      try {
        putWebhook(await apiOk(webhookJsonSchema, 'PATCH', apiPaths.webhook(orgIdOrThrow(), id), { body: { enabled } }));
      } catch (error) {
        putWebhook(before);
        throw error;
      }
    },

    async remove(id) {
      await apiDone('DELETE', apiPaths.webhook(orgIdOrThrow(), id));
      set({ webhooks: get().webhooks.filter((webhook) => webhook.id !== id) });
    },

    async loadLog(id, search) {
      lastLogSearch.set(id, search ?? '');
      const orgId = orgIdOrThrow();
      const rows = await apiOk(z.array(webhookLogJsonSchema), 'GET', apiPaths.webhookProcessLogs(orgId), {
        query: { webhook: apiPaths.webhook(orgId, id), limit: 100, ...(search?.trim() ? { search: search.trim() } : {}) },
      });
      set({ logs: { ...get().logs, [id]: rows } });
    },

    async logCsv(id, search) {
      const orgId = orgIdOrThrow();
      const response = await apiRequest<string>('GET', apiPaths.webhookProcessLogs(orgId), {
        query: { webhook: apiPaths.webhook(orgId, id), limit: LOG_CSV_ROWS, format: 'csv', ...(search?.trim() ? { search: search.trim() } : {}) },
      });
      if (response.status >= 300 || typeof response.body !== 'string') throw new ApiFailure(describeFailure(response), response.status, {});
      return response.body;
    },

    async testDelivery(id) {
      const result = await apiOk(webhookTestResultJsonSchema, 'POST', apiPaths.webhookTest(orgIdOrThrow(), id));
      // The test is in the log now: shown at once (under the log's search), not at its next refresh.
      await get().loadLog(id, lastLogSearch.get(id) ?? '').catch(() => undefined);
      return result;
    },

    loadPayload(logId) {
      return apiOk(webhookLogPayloadJsonSchema, 'GET', apiPaths.webhookProcessLogPayload(orgIdOrThrow(), logId));
    },

    async redeliver(logId) {
      const answer = await apiOk(webhookRedeliverJsonSchema, 'POST', apiPaths.webhookProcessLogRedeliver(orgIdOrThrow(), logId));
      return answer;
    },
  };
});

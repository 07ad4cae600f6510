// A create whose answer never came (timeout, reset, kill -9) is looked for on the
// remote before it is sent again, so nothing is created twice. How each model's
// create is recognised is its model's (models/, `findLostCreate`).
import type { OutboxRow } from './sync-tables.ts';
import type { OutboxGroup } from './outbox.ts';
import { type SyncContext, remotePath } from './sync-context.ts';
import { type RemoteRecord, readRemoteList } from './remote-records.ts';
import { RemoteBusyError, throwUnlessAnswered } from './remote-errors.ts';
import { localJson } from './push-requests.ts';
import { syncModel } from './models/index.ts';

/**
 * A create was sent but its answer never came (timeout, reset, kill -9): find the
 * record on the remote before sending it again. Projects carry the client op id in
 * custom_data; other records are matched by their fields among the newest.
 */
export async function findLostCreate(sync: SyncContext, group: OutboxGroup, createRow: OutboxRow): Promise<RemoteRecord | null> {
  const model = syncModel(group.model);
  const json = await localJson(sync, group.model, group.recordId);
  const list = async (query: Record<string, string | number>) => {
    // A list of the model's records, paced under the quota the remote counts it in: for files, the org's file allowance.
    const outcome = await sync.remote.request({ method: 'GET', path: remotePath(sync, group.model), query, action: model.quota.list });
    // A busy remote (429, 5xx) has not said the create is missing: creating again could make it twice.
    throwUnlessAnswered(outcome);
    // An answer that is no list (a captive portal's page) has not said the create is missing either.
    if (outcome.kind === 'ok' && !Array.isArray(outcome.body)) throw new RemoteBusyError(`the remote's answer could not be read (no list where one was asked for)`, undefined);
    return outcome.kind === 'ok' ? readRemoteList(sync.unreadable, group.model, outcome.body as unknown[]) : [];
  };
  return model.findLostCreate({ sync, json, view: json ? model.view(json) : null, opId: createRow.op_id, list });
}

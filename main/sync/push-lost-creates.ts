// A create whose answer never came (timeout, reset, kill -9) is looked for on the
// remote before it is sent again, so nothing is created twice.
import type { OutboxRow } from './sync-tables.ts';
import { sameJson } from '../../shared/webhook-fields.ts';
import type { OutboxGroup } from './outbox.ts';
import { clientOpOf, viewOf } from './sync-models.ts';
import { type SyncContext, remotePath } from './sync-context.ts';
import { type RemoteRecord, readRemote, readRemoteList } from './remote-records.ts';
import { RemoteBusyError, throwUnlessAnswered } from './remote-errors.ts';
import { localJson } from './push-requests.ts';

/** The fields a lost event create is recognised by: what it sent that the remote keeps as sent. */
const LOST_EVENT_MATCH_FIELDS = ['title', 'notes', 'event_type', 'start', 'end', 'contact', 'team_members', 'location_override'] as const;

/**
 * A create was sent but its answer never came (timeout, reset, kill -9): find the
 * record on the remote before sending it again. Projects carry the client op id in
 * custom_data; other records are matched by their fields among the newest.
 */
export async function findLostCreate(sync: SyncContext, group: OutboxGroup, createRow: OutboxRow): Promise<RemoteRecord | null> {
  const json = await localJson(sync, group.model, group.recordId);
  const view = json ? viewOf(group.model, json) : null;
  const list = async (query: Record<string, string | number>) => {
    const outcome = await sync.remote.request({ method: 'GET', path: remotePath(sync, group.model), query, action: 'default' });
    // A busy remote (429, 5xx) has not said the create is missing: creating again could make it twice.
    throwUnlessAnswered(outcome);
    // An answer that is no list (a captive portal's page) has not said the create is missing either.
    if (outcome.kind === 'ok' && !Array.isArray(outcome.body)) throw new RemoteBusyError(`the remote's answer could not be read (no list where one was asked for)`, undefined);
    return outcome.kind === 'ok' ? readRemoteList(sync.unreadable, group.model, outcome.body as unknown[]) : [];
  };
  switch (group.model) {
    case 'project': {
      const recent = await list({ ordering: '-created_date', limit: 50, fieldset: 'list' });
      const match = recent.find((project) => clientOpOf(project) === createRow.op_id);
      if (!match) return null;
      const detail = await sync.remote.request({ method: 'GET', path: remotePath(sync, 'project', match.id), action: 'project_detail' });
      throwUnlessAnswered(detail);
      return detail.kind === 'ok' ? readRemote(sync.unreadable, 'project', detail.body) : null;
    }
    case 'contact': {
      if (!view) return null;
      const recent = await list({ ordering: '-created_date', limit: 50 });
      return recent.find((contact) => sameJson(viewOf('contact', contact), view)) ?? null;
    }
    case 'event': {
      if (!view || json?.project_id == null) return null;
      const events = await list({ project: String(json.project_id), limit: 100 });
      // Two visits of one project may share a title: the schedule tells them apart too.
      const sameAs = (event: RemoteRecord) => LOST_EVENT_MATCH_FIELDS.every((field) => sameJson(viewOf('event', event)[field], view[field]));
      return events.find(sameAs) ?? null;
    }
    case 'webhook': {
      if (!view) return null;
      const webhooks = await list({ limit: 1000 });
      return webhooks.find((webhook) => sameJson(viewOf('webhook', webhook), view)) ?? null;
    }
    case 'private_file': {
      if (!view?.file_hash) return null;
      const files = await list({ search: String(view.file_hash), limit: 100 });
      return files.find((file) => file.file_hash === view.file_hash && file.title === view.title) ?? null;
    }
  }
}

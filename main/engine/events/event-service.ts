// Writing events (service.md 6 model `event`): a client's note on a project. The
// engine's own activity events are written by change capture (events.ts).
import type { EngineContext } from '../context.ts';
import type { SnapshotSource } from '../changes/record-snapshots.ts';
import { serializeEvent } from './events.ts';

/** What change capture compares: the event's API view. */
export const eventSnapshots: SnapshotSource = {
  model: 'event',
  async read(trx, context: EngineContext, orgId, id) {
    const row = await trx.selectFrom('events').selectAll().where('id', '=', id).where('org_id', '=', orgId).executeTakeFirst();
    return row ? serializeEvent(context, row) : null;
  },
  projectOf: (_id, event) => (typeof event.project_id === 'number' ? event.project_id : null),
};

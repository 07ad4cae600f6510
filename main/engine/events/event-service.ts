// Writing events (service.md 6 model `event`): a client's note on a project. The
// engine's own activity events are written by change capture (events.ts).
// Whether the actor may see the note's project is the routes' to check.
import type { EngineContext } from '../context.ts';
import type { EventRow } from '../store/tables.ts';
import type { Actor } from '../auth/actor.ts';
import type { SnapshotSource } from '../changes/record-snapshots.ts';
import { writeTracked } from '../changes/tracked-write.ts';
import { actorScope } from '../changes/change-feed.ts';
import { insertEvent, serializeEvent } from './events.ts';

/** What change capture compares: the event's API view. */
export const eventSnapshots: SnapshotSource = {
  model: 'event',
  async read(trx, context: EngineContext, orgId, id) {
    const row = await trx.selectFrom('events').selectAll().where('id', '=', id).where('org_id', '=', orgId).executeTakeFirst();
    return row ? serializeEvent(context, row) : null;
  },
  projectOf: (_id, event) => (typeof event.project_id === 'number' ? event.project_id : null),
};

export interface NewNote {
  /** The project the note is on (one the actor may see); null for an org-wide note. */
  projectId: number | null;
  title: string;
  notes?: string;
  /** Defaults to `note`. */
  eventType?: string;
}

/** Adds a client's event; its project, if any, changes too (its events list). */
export async function createEvent(context: EngineContext, actor: Actor, note: NewNote): Promise<EventRow> {
  return writeTracked(context, actorScope(actor), async (trx, track) => {
    if (note.projectId !== null) await track.project(note.projectId);
    const created = await insertEvent(trx, context, {
      org_id: actor.org.id,
      project_id: note.projectId,
      event_type: note.eventType || 'note',
      title: note.title,
      notes: note.notes ?? '',
      user_id: actor.user.id,
    });
    await track.event(created.id, { created: true });
    return created;
  });
}

// Writing events (service.md 6 model `event`): a client's note on a project. The
// engine's own activity events are written by change capture (events.ts).
// Whether the actor may see the note's project is the routes' to check.
import type { EngineContext } from '../context.ts';
import type { Actor } from '../auth/actor.ts';
import type { SnapshotSource } from '../changes/record-snapshots.ts';
import { writeTracked } from '../changes/tracked-write.ts';
import { actorScope } from '../changes/change-feed.ts';
import { type EventView, insertEvent, selectEventViews, serializeEvent } from './events.ts';
import { eventTypeNameOf } from '../../../shared/event-types.ts';

/** What change capture compares: the event's API view. */
export const eventSnapshots: SnapshotSource = {
  model: 'event',
  async read(trx, context: EngineContext, orgId, id) {
    const row = await selectEventViews(trx).where('events.id', '=', id).where('events.org_id', '=', orgId).executeTakeFirst();
    return row ? serializeEvent(context, row) : null;
  },
  projectOf: (_id, event) => (typeof event.project_id === 'number' ? event.project_id : null),
};

export interface NewNote {
  /** The project the note is on (one the actor may see); null for an org-wide note. */
  projectId: number | null;
  title: string;
  notes?: string;
  /** Defaults to `note`, or the name of `eventTypeId` when only that is given. */
  eventType?: string;
  /** One of shared/event-types.ts (the route checks it); defaults to the id of `eventType`. */
  eventTypeId?: number;
}

/** Adds a client's event; its project, if any, changes too (its events list). */
export async function createEvent(context: EngineContext, actor: Actor, note: NewNote): Promise<EventView> {
  return writeTracked(context, actorScope(actor), async (trx, track) => {
    if (note.projectId !== null) await track.project(note.projectId);
    const created = await insertEvent(trx, context, {
      org_id: actor.org.id,
      project_id: note.projectId,
      event_type: note.eventType || (note.eventTypeId === undefined ? 'note' : eventTypeNameOf(note.eventTypeId)),
      ...(note.eventTypeId === undefined ? {} : { event_type_id: note.eventTypeId }),
      title: note.title,
      notes: note.notes ?? '',
      user_id: actor.user.id,
    });
    await track.event(created.id, { created: true });
    return selectEventViews(trx).where('events.id', '=', created.id).executeTakeFirstOrThrow();
  });
}

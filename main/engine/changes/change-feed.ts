// What changed, announced after it committed (architecture.md: "the engine
// announces what changed; hosts, views, sync and the watcher listen"). The change
// capture of writeTracked() knows every record a write touched; it hands them to
// the engine's feed once the transaction has committed. Sync applies remote
// changes to a replica outside writeTracked (they must not reach the outbox), so
// it announces those on the same feed, as made by `sync`.
import type { TrackedModel } from './record-snapshots.ts';

export type ChangeOp = 'create' | 'update' | 'delete';

/** Each tracked model's path segment in the API (`/api/orgs/1/private_files/`). */
export const TRACKED_MODEL_PATHS = {
  project: 'projects',
  contact: 'contacts',
  event: 'events',
  webhook: 'webhooks',
  private_file: 'private_files',
} as const satisfies Record<TrackedModel, string>;

/** Who made a change: a user through the API (or their folder), or sync bringing the remote's. */
export type ChangeActor = { kind: 'user'; userId: number } | { kind: 'sync' };

export const byUser = (userId: number): ChangeActor => ({ kind: 'user', userId });
export const BY_SYNC: ChangeActor = { kind: 'sync' };

/** The org and the author of one tracked write. */
export interface WriteScope {
  orgId: number;
  by: ChangeActor;
}

/** The scope of a write an API caller makes in their org. */
export function actorScope(actor: { org: { id: number }; user: { id: number } }): WriteScope {
  return { orgId: actor.org.id, by: byUser(actor.user.id) };
}

export interface RecordChangeEvent {
  model: TrackedModel;
  id: number;
  op: ChangeOp;
  orgId: number;
  by: ChangeActor;
  /** The project the record is or was part of; null when none or not known (then any project may show it). */
  projectId: number | null;
  /**
   * An update's top-level fields of the record's API view that changed (the activity
   * log names them, in people's words); empty for a create or a delete, and absent
   * where the announcer compared no views (a share's new grants).
   */
  changedFields?: readonly string[];
}

/** Receives the changes of one committed write (or one applied remote record) together. */
export type ChangeListener = (changes: readonly RecordChangeEvent[]) => void;

export class ChangeFeed {
  private readonly listeners = new Set<ChangeListener>();

  /** Listens until the returned function is called or `signal` aborts. */
  subscribe(listener: ChangeListener, signal?: AbortSignal): () => void {
    // Each subscription is its own entry, so one function subscribed twice is heard twice and unsubscribed once each.
    const entry: ChangeListener = (changes) => listener(changes);
    const unsubscribe = () => {
      this.listeners.delete(entry);
      signal?.removeEventListener('abort', unsubscribe);
    };
    if (signal?.aborted) return unsubscribe;
    this.listeners.add(entry);
    signal?.addEventListener('abort', unsubscribe, { once: true });
    return unsubscribe;
  }

  get hasListeners(): boolean {
    return this.listeners.size > 0;
  }

  /** Called after the changes committed. A failing listener is reported and does not keep the others from hearing. */
  announce(changes: readonly RecordChangeEvent[]): void {
    if (changes.length === 0) return;
    for (const listener of [...this.listeners]) {
      try {
        listener(changes);
      } catch (error) {
        // The write has committed and its caller is owed its answer; a listener's fault is its own.
        console.error('SolarDesk: a change listener failed:', error);
      }
    }
  }
}

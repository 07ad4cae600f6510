// What a project folders watcher (watcher.ts) is given: its root, the engine, sync's
// outbox as a FolderOutbox, and the windows and rules of the folders.
import type { EngineContext } from '../engine/context.ts';
import type { Clock } from '../engine/clock.ts';
import type { FolderOutbox } from './folder-outbox.ts';
import type { ContentsKeeping } from './arrivals-reconcile.ts';
import type { FolderActivity } from './folder-status.ts';

export interface FolderWatcherOptions {
  root: string;
  engine: EngineContext;
  /** Held deletes and what waits to go out: sync's outbox, handed in by the composer. */
  outbox: FolderOutbox;
  orgId: number;
  /** The user files are attached as (the agent's own). */
  userId: number;
  /** A file is complete once its size and mtime have not changed for this long (default 2000). */
  stabilityWindowMs?: number;
  /** How long an unlink waits for the add it may pair with (a rename or move) before it counts as a delete. */
  pairWindowMs?: number;
  /** Full rescans, about this often (±20 % jitter; default 10 minutes). */
  rescanIntervalMs?: number;
  /** Folders are checked against the projects, and arrivals looked for, at least this often (default 5000). */
  reconcileIntervalMs?: number;
  /** Past this many queued events for one folder (four times it for all), the queue is dropped and rescanned (default 1000). */
  burstThreshold?: number;
  /** Confirm deletions made in the folders at once (not those the mass-delete guard holds). */
  confirmDeletes?: boolean;
  /** A folder (or the root) that lost more than `minFiles` files and more than `fraction` of them at once trips the guard. */
  massDelete?: { minFiles: number; fraction: number };
  /** A deletion made in a folder is now held for the user (the sync status counts them). */
  onDeleteHeld?: () => void;
  log?: (line: string) => void;
  /** What a person's timeline shows: the core's activity log (main/core/activity-recorder.ts). */
  onActivity?: (activity: FolderActivity) => void;
  /** What decides every window, age and due time here (default: the system clock); the agent passes the engine's. */
  clock?: Clock;
  /**
   * Folders directly under the root that belong to another workspace (the embedded
   * store's "On this computer" under a synced root), by name, with why: never a
   * project's, never looked into, reported once as outside with that reason.
   */
  foreignFolders?: ReadonlyMap<string, string>;
  /**
   * The folder directly under the root whose files belong to no project yet (the
   * core's photo inbox sorts them; it connects with connectInbox), and what the
   * status says of it. Its files come in through the same events and rescans, and a
   * stability gate of its own (inbox-intake.ts).
   */
  inbox?: { folder: string; reason: string };
  /**
   * The root was claimed just now (it had no owner file): whatever the store recorded
   * of folders and files describes an earlier root (a new folder root the user chose
   * without moving the folders). It is forgotten at start, so fresh folders are made
   * and the files arrive in them, instead of every recorded file being believed
   * deleted and held. A root moved with its folders keeps its owner file and its records.
   */
  rootIsNew?: boolean;
  /** Files on demand (issue 15): which files' contents are kept here; absent: every file is written into its folder. */
  contents?: ContentsKeeping;
  /** Lists the files programs hold open for writing (default: every process's /proc/<pid>/fd; open-files.ts). */
  filesOpenForWriting?: () => Promise<Set<string> | null>;
}

// Composes the project folders watcher (main/watch/) into a sync agent
// (main/sync/agent.ts): the watcher gets sync's outbox as the FolderOutbox it asks
// for, and the agent gets the watcher as the AgentFolders it asks for, and the
// watcher's tables as the ProjectFolderRecords it asks for. Neither
// layer imports the other; this is where they meet.
import path from 'node:path';
import type { AgentFolderWiring } from '../sync/agent.ts';
import {
  confirmHeldDelete,
  dropStaleHolds,
  filesWithQueuedChange,
  filesWithQueuedDelete,
  holdDelete,
  listFileCreates,
  listHeldFileDeletes,
  releaseHeldDelete,
} from '../sync/outbox.ts';
import { recordFolderContentsConflict } from '../sync/conflicts.ts';
import { remoteFileHashes } from '../sync/merge-bases.ts';
import { FolderWatcher, type FolderWatcherOptions } from '../watch/watcher.ts';
import type { FolderOutbox } from '../watch/folder-outbox.ts';
import { filesInProjectFolders, isDroppedIntoProjectFolder, rekeyFile, rekeyProject, showsContentsInProject } from '../watch/folder-records.ts';
import type { ProjectFolderRecords } from '../sync/folder-records.ts';
import type { EngineContext } from '../engine/context.ts';
import { rekeyActivity } from './activity-log.ts';

/** Timings and rules of the project folders (stability window, --confirm-deletes...). */
export type ProjectFolderOptions = Omit<FolderWatcherOptions, 'root' | 'outbox' | keyof AgentFolderWiring>;

/** Sync's outbox, as the watcher of this engine's folders needs it. */
export function folderOutboxOf(engine: EngineContext): FolderOutbox {
  return {
    holdDelete,
    releaseHeldDelete,
    confirmHeldDelete: (holdId, by) => confirmHeldDelete(engine, holdId, by),
    dropStaleHolds: () => dropStaleHolds(engine.db),
    filesWithQueuedDelete: (fileIds) => filesWithQueuedDelete(engine.db, fileIds),
    filesWithQueuedChange: (fileIds) => filesWithQueuedChange(engine.db, fileIds),
    listFileCreates: (afterId, limit) => listFileCreates(engine.db, afterId, limit),
    listHeldFileDeletes: (limit) => listHeldFileDeletes(engine.db, limit),
    recordContentsConflict: (fileId, sides) => recordFolderContentsConflict(engine.db, engine.clock, fileId, sides),
    remoteFileHashes: (fileIds) => remoteFileHashes(engine.db, fileIds),
  };
}

/**
 * The watcher's tables as sync needs them: the agent's `folderRecords` option. A record's
 * new id reaches the core's activity log the same way (core-tables.ts CORE_ID_COLUMNS).
 */
export const projectFolderRecords: ProjectFolderRecords = {
  isDroppedIntoProjectFolder,
  filesInProjectFolders,
  showsContentsInProject,
  rekeyProject: async (trx, from, to) => {
    await rekeyProject(trx, from, to);
    await rekeyActivity(trx, 'project', from, to);
  },
  rekeyFile: async (trx, from, to) => {
    await rekeyFile(trx, from, to);
    await rekeyActivity(trx, 'private_file', from, to);
  },
};

/** The agent's `folders` option: one folder per project under `root`. */
export function watchProjectFolders(root: string, options: ProjectFolderOptions = {}): (wiring: AgentFolderWiring) => FolderWatcher {
  // The watcher's windows and ages run on the engine's clock unless the options name another.
  return (wiring) => new FolderWatcher({ clock: wiring.engine.clock, ...options, ...wiring, root: path.resolve(root), outbox: folderOutboxOf(wiring.engine) });
}

// The three parts that take a file from "seen" to "attached" or "held", wired to one
// another: the stability gate asks the attacher whether a file is already settled and
// hands it stable files; the deletes tell the gate to forget a file that went away.
// The watcher and the parts' unit tests (main/core/testing/watch-parts.ts) wire them here alike.
import type { Clock } from '../engine/clock.ts';
import type { EngineContext } from '../engine/context.ts';
import type { ProjectFolders } from './project-folders.ts';
import type { FolderOutbox } from './folder-outbox.ts';
import type { FolderReport } from './folder-status.ts';
import type { WatchStore } from './watch-store.ts';
import { StabilityGate } from './stability-gate.ts';
import { Attacher } from './attach.ts';
import { Deletes } from './deletes.ts';

export interface FilePartsOptions {
  root: string;
  engine: EngineContext;
  store: WatchStore;
  folders: ProjectFolders;
  outbox: FolderOutbox;
  report: FolderReport;
  clock: Clock;
  orgId: number;
  userId: number;
  windowMs: number;
  pairWindowMs: number;
  massDelete: { minFiles: number; fraction: number };
  confirmDeletes: boolean;
  onDeleteHeld?: () => void;
  /** A project folder stopped being a real folder while a file in it waited. */
  folderChanged: () => void;
}

export interface FileParts {
  gate: StabilityGate;
  deletes: Deletes;
  attacher: Attacher;
}

export function wireFileParts(options: FilePartsOptions): FileParts {
  const { root, engine, store, folders, outbox, report, clock, orgId, userId } = options;
  // The gate and the attacher each need the other: the hooks reach the attacher once it exists.
  const late: { attacher?: Attacher } = {};
  const gate = new StabilityGate({
    windowMs: options.windowMs,
    clock,
    fileRoot: engine.store.fileRoot,
    maxUploadBytes: engine.files.maxUploadBytes,
    report,
    hooks: {
      settled: (projectId, folder, name, file, stat) => late.attacher!.settled(projectId, folder, name, file, stat),
      // Files due together are decided on one by one and the new ones created in one write (issue 30).
      attach: (candidate, received, stat) => late.attacher!.attachBatched(candidate, received, stat),
      flush: () => late.attacher!.flushBatch(),
      folderChanged: options.folderChanged,
    },
  });
  const deletes = new Deletes({
    root,
    store,
    folders,
    outbox,
    report,
    clock,
    pairWindowMs: options.pairWindowMs,
    massDelete: options.massDelete,
    userId,
    confirmDeletes: options.confirmDeletes,
    onDeleteHeld: options.onDeleteHeld,
    forgetCandidate: (file) => gate.forget(file),
  });
  const attacher = (late.attacher = new Attacher({ root, engine, store, folders, outbox, report, deletes, clock, orgId, userId, gate }));
  return { gate, deletes, attacher };
}

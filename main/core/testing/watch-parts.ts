// The watcher's parts put together as watcher.ts does, on a real engine (a test
// server's store) and a real temp folder root, but with no worker loop and no
// chokidar: a unit test calls the parts itself and moves a ManualClock, so nothing
// waits on real time.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { ManualClock } from '../../engine/clock.ts';
import type { EngineContext } from '../../engine/context.ts';
import { DEMO_ORGS, DEMO_USERS } from '../../engine/seed/demo-seed.ts';
import { discardTempFile, receiveBuffer } from '../../engine/files/blob-store.ts';
import { folderOutboxOf } from '../agent-folders.ts';
import { ProjectFolders } from '../../watch/project-folders.ts';
import { FolderReport } from '../../watch/folder-status.ts';
import type { StabilityGate } from '../../watch/stability-gate.ts';
import type { Attacher } from '../../watch/attach.ts';
import type { Deletes } from '../../watch/deletes.ts';
import { isOnlineOnlyListing } from '../../watch/online-only.ts';
import { wireFileParts } from '../../watch/file-parts.ts';
import { WatchStore } from '../../watch/watch-store.ts';
import type { FolderOutbox } from '../../watch/folder-outbox.ts';

export const PARTS_WINDOW_MS = 2000;
export const PARTS_PAIR_WINDOW_MS = 5000;

export interface WatchParts {
  root: string;
  engine: EngineContext;
  clock: ManualClock;
  report: FolderReport;
  store: WatchStore;
  folders: ProjectFolders;
  outbox: FolderOutbox;
  gate: StabilityGate;
  attacher: Attacher;
  deletes: Deletes;
  orgId: number;
  userId: number;
  /** The folder's absolute path. */
  dirOf(projectId: number): string;
  /** Writes a file into a project's folder and attaches it through the real attach path; returns its private file id. */
  attachFile(projectId: number, name: string, contents: string): Promise<number>;
}

export async function startWatchParts(engine: EngineContext, root: string, options: { confirmDeletes?: boolean } = {}): Promise<WatchParts> {
  const { db } = engine;
  const orgId = DEMO_ORGS.sunrise;
  const userId = (await db.selectFrom('users').select('id').where('email', '=', DEMO_USERS.sunriseAdmin).executeTakeFirstOrThrow()).id;
  const clock = new ManualClock();
  const report = new FolderReport();
  const store = new WatchStore(db);
  const folders = new ProjectFolders(db, root, orgId);
  await folders.load();
  await folders.reconcile();
  const outbox = folderOutboxOf(engine);
  // Wired as the watcher wires them; a folder that stops being one is not part of these tests.
  const { gate, deletes, attacher } = wireFileParts({
    root,
    engine,
    store,
    folders,
    outbox,
    report,
    clock,
    orgId,
    userId,
    windowMs: PARTS_WINDOW_MS,
    pairWindowMs: PARTS_PAIR_WINDOW_MS,
    massDelete: { minFiles: 5, fraction: 0.5 },
    confirmDeletes: options.confirmDeletes ?? false,
    folderChanged: () => {},
  });
  const dirOf = (projectId: number) => path.join(root, folders.folderOf(projectId)!);
  return {
    root,
    engine,
    clock,
    report,
    store,
    folders,
    outbox,
    gate,
    attacher,
    deletes,
    orgId,
    userId,
    dirOf,
    async attachFile(projectId, name, contents) {
      const file = path.join(dirOf(projectId), name);
      fs.writeFileSync(file, contents);
      const stat = fs.lstatSync(file);
      // What the gate reads of the file while it has it open: whether it is SolarDesk's own listing.
      const handle = await fsp.open(file, 'r');
      const isListing = await isOnlineOnlyListing(handle, stat.size).finally(() => handle.close());
      const received = { ...(await receiveBuffer(engine.store.fileRoot, Buffer.from(contents), 'test')), isOnlineOnlyListing: isListing };
      const folder = folders.folderOf(projectId)!;
      try {
        await attacher.attach({ projectId, folder, name, size: stat.size, mtimeMs: stat.mtimeMs, dev: stat.dev, ino: String(stat.ino), since: 0, generation: 0, note: null }, received, stat);
      } finally {
        await discardTempFile(received.tempPath);
      }
      const row = await store.fileRow(projectId, name);
      if (!row) throw new Error(`${name} was not attached`);
      return row.file_id;
    },
  };
}

// Files dropped into a project folder follow the folder's rule on the remote too:
// the same contents in one project are one file (docs/project-folders.md). Before a
// folder file's create, an existing copy is looked for; after it, a racing copy
// made by another computer is settled (`folder_copy:` marks, sync-state.ts).
import { snapshotRecord } from '../engine/changes/record-snapshots.ts';
import { writeAnnounced } from '../engine/changes/tracked-write.ts';
import { BY_SYNC } from '../engine/changes/change-feed.ts';
import { type OutboxGroup, hasQueuedDelete, insertOutboxRow, queuedUpdateFields } from './outbox.ts';
import { type RecordView, isProvisional } from './sync-models.ts';
import { fileView, privateFileModel, upsertPrivateFile } from './models/private-file.ts';
import { folderCopiesToCheck, folderCopyChecked } from './sync-state.ts';
import { type SyncContext, remotePath } from './sync-context.ts';
import { rekey } from './record-ids.ts';
import { type RemotePrivateFile, type RemoteRecord, readRemoteList } from './remote-records.ts';
import { getRemoteJson } from './pull.ts';
import type { LocalRecord } from './push-requests.ts';
import { finishCreate, storeBase } from './push-answers.ts';

/**
 * A file dropped into a project folder follows the folder's rule on the remote too:
 * the same contents in one project are one file (docs/project-folders.md). A file
 * uploaded through the app is the user's explicit choice and is not merged, even when
 * the watcher has already written its copy into the folder by the time it goes up.
 */
export async function isFromProjectFolder(sync: SyncContext, fileId: number): Promise<boolean> {
  return sync.folderRecords.isDroppedIntoProjectFolder(sync.db, fileId);
}

/**
 * A remote private file of the same project with the same sha256 (`file_hash`,
 * which the list's `search` matches), one this replica is not about to delete.
 * Null when the file has no project on the remote yet, or none matches.
 */
export async function findSameContentsInProject(sync: SyncContext, json: LocalRecord): Promise<RemotePrivateFile | null> {
  const view = fileView(json);
  const projectId = view.project as number | null;
  if (!view.file_hash || projectId === null || isProvisional(projectId)) return null;
  const query = { project: projectId, search: String(view.file_hash), limit: 100 };
  const listed = await getRemoteJson(sync, remotePath(sync, 'private_file'), query, privateFileModel.quota.list);
  if (!Array.isArray(listed)) return null; // may not list: the create itself will say why
  return (await copiesInProject(sync, readRemoteList(sync.unreadable, 'private_file', listed), String(view.file_hash), projectId))[0] ?? null;
}

/**
 * The listed files of `projectId` with sha256 `hash` that this replica is not about
 * to delete, lowest id first: every computer that sees several picks the first, so
 * racing computers agree on one (ids only grow, so the lowest was there first and
 * every later creator sees it).
 */
async function copiesInProject(sync: SyncContext, listed: RemotePrivateFile[], hash: string, projectId: number): Promise<RemotePrivateFile[]> {
  const copies: RemotePrivateFile[] = [];
  for (const file of listed) {
    const candidate = fileView(file);
    if (candidate.file_hash !== hash || candidate.project !== projectId) continue;
    if (!(await hasQueuedDelete(sync.db, 'private_file', file.id))) copies.push(file);
  }
  return copies.sort((a, b) => a.id - b.id);
}

/** finishCreate for a folder file this computer created, then its race check. Returns the requests made. */
export async function finishFolderCreate(sync: SyncContext, group: OutboxGroup, remoteJson: RemoteRecord, carry: readonly string[] = []): Promise<number> {
  await finishCreate(sync, group, remoteJson, carry, true);
  return settleFolderCopy(sync, remoteJson.id);
}

export async function settleFolderCopies(sync: SyncContext, isStopped: () => boolean): Promise<number> {
  let requests = 0;
  for (const fileId of await folderCopiesToCheck(sync.db)) {
    if (isStopped()) break;
    requests += await settleFolderCopy(sync, fileId);
  }
  return requests;
}

/**
 * Two computers that drop the same bytes into one project at once may both find
 * nothing and both create (the remote has no uniqueness to lean on). So after a
 * folder file's create, the project's files with that sha256 are listed again; of
 * several, the lowest id is the one file. A computer deletes only its own copy (this
 * one, made here from its folder a moment ago: same bytes, so nothing is lost), after
 * re-keying its local file (and its folder mapping) to the chosen one in the same
 * transaction that queues the delete: the folder keeps its file, nothing is uploaded
 * again, nothing is held. Copies made by others are never deleted here; their own
 * computers settle them the same way. Returns the requests made.
 */
export async function settleFolderCopy(sync: SyncContext, ownId: number): Promise<number> {
  const done = () => folderCopyChecked(sync.db, ownId);
  const local = await sync.db.selectFrom('private_files').select(['project_id', 'file_hash']).where('id', '=', ownId).executeTakeFirst();
  const deleting = await hasQueuedDelete(sync.db, 'private_file', ownId);
  // Gone here, or deleted in the folder (held for the user): that decision is the user's.
  if (!local?.file_hash || local.project_id === null || deleting) return done().then(() => 0);
  const query = { project: local.project_id, search: local.file_hash, limit: 100 };
  const listed = await getRemoteJson(sync, remotePath(sync, 'private_file'), query, privateFileModel.quota.list); // busy: tried again next cycle
  if (!Array.isArray(listed)) return done().then(() => 1);
  const copies = await copiesInProject(sync, readRemoteList(sync.unreadable, 'private_file', listed), local.file_hash, local.project_id);
  const chosen = copies[0];
  // Alone, the chosen one, or no longer in this project (moved or deleted elsewhere): nothing to merge.
  if (!chosen || chosen.id === ownId || !copies.some((copy) => copy.id === ownId)) return done().then(() => 1);
  await writeAnnounced(sync.engine, { orgId: sync.orgId, by: BY_SYNC }, async (trx, track) => {
    await track.privateFile(ownId);
    await track.privateFile(chosen.id);
    const snapshot = (await snapshotRecord(trx, sync.engine, sync.orgId, 'private_file', ownId)) as LocalRecord | null;
    // Local edits still waiting (a rename in the folder) follow the file to the chosen one.
    const view = snapshot ? fileView(snapshot) : {};
    const keep: RecordView = {};
    for (const field of await queuedUpdateFields(trx, 'private_file', ownId)) keep[field] = view[field];
    await rekey(trx, 'private_file', ownId, chosen.id, sync.folderRecords);
    await upsertPrivateFile(trx, sync.orgId, chosen, keep);
    await storeBase(trx, 'private_file', chosen.id, chosen);
    await insertOutboxRow(trx, sync.clock.now().toISOString(), { model: 'private_file', recordId: ownId, op: 'delete', fields: [] });
    await folderCopyChecked(trx, ownId);
  });
  return 1;
}

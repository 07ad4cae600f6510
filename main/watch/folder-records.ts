// The watcher's answers about its tables (watch_projects, watch_files), for the
// parts that may not query them (docs/tables.md): sync asks them through its
// ProjectFolderRecords (main/sync/folder-records.ts), injected by the core; the
// core's file opener asks folderCopiesOf.
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../engine/store/tables.ts';

type Db = Kysely<Database> | Transaction<Database>;

/**
 * Whether the watcher attached this file from one dropped into a project folder (a
 * name of it still mapped as dropped). A file it only wrote out there, made in the
 * app or elsewhere, is not (migration 0029).
 */
export async function isDroppedIntoProjectFolder(db: Db, fileId: number): Promise<boolean> {
  return (await db.selectFrom('watch_files').select('file_id').where('file_id', '=', fileId).where('is_dropped', '=', 1).executeTakeFirst()) !== undefined;
}

export async function filesInProjectFolders(db: Db, fileIds: readonly number[]): Promise<Set<number>> {
  if (fileIds.length === 0) return new Set();
  const rows = await db.selectFrom('watch_files').select('file_id').where('file_id', 'in', [...fileIds]).execute();
  return new Set(rows.map((row) => row.file_id));
}

export async function showsContentsInProject(db: Db, projectId: number, fileHash: string, exceptFileId: number): Promise<boolean> {
  const shown = await db
    .selectFrom('watch_files')
    .innerJoin('private_files', 'private_files.id', 'watch_files.file_id')
    .select('watch_files.file_id')
    .where('private_files.project_id', '=', projectId)
    .where('private_files.file_hash', '=', fileHash)
    .where('private_files.id', '!=', exceptFileId)
    .executeTakeFirst();
  return shown !== undefined;
}

export async function rekeyProject(trx: Transaction<Database>, from: number, to: number): Promise<void> {
  await trx.deleteFrom('watch_files').where('project_id', '=', to).execute();
  await trx.deleteFrom('watch_projects').where('project_id', '=', to).execute();
  await trx.updateTable('watch_projects').set({ project_id: to }).where('project_id', '=', from).execute();
  await trx.updateTable('watch_files').set({ project_id: to }).where('project_id', '=', from).execute();
}

export async function rekeyFile(trx: Transaction<Database>, from: number, to: number): Promise<void> {
  await trx.updateTable('watch_files').set({ file_id: to }).where('file_id', '=', from).execute();
}

/** Where a private file's project folder copies are, with what each held when last seen. */
export async function folderCopiesOf(db: Db, fileId: number) {
  return db
    .selectFrom('watch_files')
    .innerJoin('watch_projects', 'watch_projects.project_id', 'watch_files.project_id')
    .select(['watch_projects.folder', 'watch_files.name', 'watch_files.file_hash', 'watch_files.size'])
    .where('watch_files.file_id', '=', fileId)
    .execute();
}

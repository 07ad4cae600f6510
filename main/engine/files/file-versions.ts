// Earlier contents of private files, kept on this computer (issue 14, docs/files.md
// "Versions"). replaceFileContents() records the contents it replaces here, in its
// own transaction; a version is kept while it is one of its file's 10 newest or is
// younger than 30 days. A version names its blob like a file does (blob-store.ts
// counts both), so pruning one hands back the hashes the caller must release.
import type { Kysely, Transaction } from 'kysely';
import type { Database, PrivateFileRow, PrivateFileVersionRow } from '../store/tables.ts';
import type { Clock } from '../clock.ts';

/** A file's newest versions that are kept whatever their age. */
export const KEPT_VERSIONS = 10;
/** Versions younger than this are kept whatever their number. */
export const KEPT_VERSION_AGE_MS = 30 * 24 * 60 * 60_000;

/** Records `file`'s current contents as a version replaced at `replacedAt` by `userId`. */
export async function recordVersion(trx: Transaction<Database>, file: PrivateFileRow, replacedAt: string, userId: number | null): Promise<void> {
  if (!file.file_hash) return; // a file that never had contents has nothing to keep
  await trx
    .insertInto('private_file_versions')
    .values({
      file_id: file.id,
      org_id: file.org_id,
      file_hash: file.file_hash,
      filesize: file.filesize ?? 0,
      mime_type: file.mime_type,
      file_name: file.file_name,
      replaced_at: replacedAt,
      replaced_by_user_id: userId,
    })
    .execute();
}

const cutoffOf = (clock: Clock) => new Date(clock.now().getTime() - KEPT_VERSION_AGE_MS).toISOString();

/**
 * Removes the versions of one file that retention no longer keeps; returns their
 * blob hashes, to release once the transaction has committed. Reads only that
 * file's versions (an index walk), whatever the number of files.
 */
export async function pruneFileVersions(trx: Transaction<Database>, clock: Clock, fileId: number): Promise<string[]> {
  const beyondNewest = await trx
    .selectFrom('private_file_versions')
    .select(['id', 'file_hash'])
    .where('file_id', '=', fileId)
    .where('replaced_at', '<', cutoffOf(clock))
    .orderBy('replaced_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  // Old versions may still be among the newest 10: keep those.
  const newestIds = new Set(
    (
      await trx
        .selectFrom('private_file_versions')
        .select('id')
        .where('file_id', '=', fileId)
        .orderBy('replaced_at', 'desc')
        .orderBy('id', 'desc')
        .limit(KEPT_VERSIONS)
        .execute()
    ).map((row) => row.id),
  );
  const pruned = beyondNewest.filter((row) => !newestIds.has(row.id));
  if (pruned.length === 0) return [];
  await trx.deleteFrom('private_file_versions').where('id', 'in', pruned.map((row) => row.id)).execute();
  return pruned.map((row) => row.file_hash);
}

/**
 * The start-up prune: only files that have a version older than 30 days are
 * looked at (an index range on replaced_at), so a start costs nothing when
 * nothing has aged out. Returns the hashes to release.
 */
export async function pruneAgedVersions(db: Kysely<Database>, clock: Clock): Promise<string[]> {
  const fileIds = await db.selectFrom('private_file_versions').select('file_id').distinct().where('replaced_at', '<', cutoffOf(clock)).execute();
  const hashes: string[] = [];
  for (const { file_id: fileId } of fileIds) {
    hashes.push(...(await db.transaction().execute((trx) => pruneFileVersions(trx, clock, fileId))));
  }
  return hashes;
}

/** A file's versions, newest first. */
export function listFileVersions(db: Kysely<Database>, fileId: number): Promise<PrivateFileVersionRow[]> {
  return db
    .selectFrom('private_file_versions')
    .selectAll()
    .where('file_id', '=', fileId)
    .orderBy('replaced_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

export function getFileVersion(db: Kysely<Database>, fileId: number, versionId: number): Promise<PrivateFileVersionRow | undefined> {
  return db.selectFrom('private_file_versions').selectAll().where('file_id', '=', fileId).where('id', '=', versionId).executeTakeFirst();
}

/** The blob hashes a file's versions name (released after the file is deleted: its versions go with it). */
export async function versionHashesOf(db: Kysely<Database> | Transaction<Database>, fileId: number): Promise<string[]> {
  const rows = await db.selectFrom('private_file_versions').select('file_hash').distinct().where('file_id', '=', fileId).execute();
  return rows.map((row) => row.file_hash);
}

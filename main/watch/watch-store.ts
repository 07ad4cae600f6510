// Every query the folder watcher makes, in one place: the mapping of folder files to
// private files (`watch_files`), the project folders (`watch_projects`, through
// joins) and what the watcher reads of `private_files` and `users`. The parts of the
// watcher never build SQL themselves, so the tables' use is read here, once.
import type { Expression, ExpressionBuilder, Kysely, SqlBool } from 'kysely';
import type { Database } from '../engine/store/tables.ts';
import type { WatchFileMapping, WatchFileRow } from './watch-tables.ts';
import type { FolderOutbox, QueuedFileCreate } from './folder-outbox.ts';
import { compiledRead } from './compiled-read.ts';

/** Files on demand: the projects whose files are kept on this computer, and single files kept besides. */
export interface KeptFilter {
  projectIds: readonly number[];
  fileIds: readonly number[];
}

/** A condition on `private_files`: its contents are kept here (its project's are, or it is itself). */
function isKept(builder: ExpressionBuilder<Database, 'private_files'>, kept: KeptFilter): Expression<SqlBool> {
  const either: Expression<SqlBool>[] = [];
  if (kept.projectIds.length > 0) either.push(builder('private_files.project_id', 'in', [...kept.projectIds]));
  if (kept.fileIds.length > 0) either.push(builder('private_files.id', 'in', [...kept.fileIds]));
  return either.length > 0 ? builder.or(either) : builder.lit(false);
}

/** Which of these files sync has something queued or held for (a FolderOutbox question: the watcher never reads sync's outbox). */
export type QueuedFilesOf = (fileIds: readonly number[]) => Promise<Set<number>>;

/** A file from a folder still waiting to reach the remote: its outbox entry and where it is. */
export type FolderUpload = QueuedFileCreate & { name: string; size: number; folder: string; project_id: number };

/** One file of a project folder and the private file it shows: a `watch_files` row. */
export type FileMapping = WatchFileMapping;

/** The store itself or a transaction on it: writes that go with another one take the transaction. */
export type WatchDb = Kysely<Database>;

export class WatchStore {
  // The reads made for every file of a drop: compiled once (compiled-read.ts).
  private readonly fileRowRead;
  private readonly filesWithInodeRead;
  private readonly fileWithContentsRead;

  constructor(readonly db: Kysely<Database>) {
    this.fileRowRead = compiledRead(db, (projectId: number, name: string) => db.selectFrom('watch_files').selectAll().where('project_id', '=', projectId).where('name', '=', name));
    this.filesWithInodeRead = compiledRead(db, (ino: string) => db.selectFrom('watch_files').selectAll().where('ino', '=', ino));
    this.fileWithContentsRead = compiledRead(db, (orgId: number, projectId: number, sha256: string) =>
      db.selectFrom('private_files').select('id').where('org_id', '=', orgId).where('project_id', '=', projectId).where('file_hash', '=', sha256).orderBy('id').limit(1),
    );
  }

  transaction<T>(work: (trx: WatchDb) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(work);
  }

  /** Forgets which folder is which project's and which file is which: they described another folder root. */
  async forgetAllMappings(): Promise<void> {
    await this.transaction(async (trx) => {
      await trx.deleteFrom('watch_files').execute();
      await trx.deleteFrom('watch_projects').execute();
    });
  }

  // ---- watch_files --------------------------------------------------------

  async fileRow(projectId: number, name: string): Promise<WatchFileRow | undefined> {
    return (await this.fileRowRead(projectId, name))[0];
  }

  filesOfProject(projectId: number): Promise<WatchFileRow[]> {
    return this.db.selectFrom('watch_files').selectAll().where('project_id', '=', projectId).execute();
  }

  filesWithInode(ino: string): Promise<WatchFileRow[]> {
    return this.filesWithInodeRead(ino);
  }

  async countFiles(projectId?: number): Promise<number> {
    const row = await this.db
      .selectFrom('watch_files')
      .select((builder) => builder.fn.countAll<number>().as('count'))
      .$if(projectId !== undefined, (query) => query.where('project_id', '=', projectId!))
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  /** The names mapped in a project's folder (an arrival never takes one of them). */
  async namesInProject(projectId: number): Promise<string[]> {
    return (await this.db.selectFrom('watch_files').select('name').where('project_id', '=', projectId).execute()).map((row) => row.name);
  }

  /** Whether any name in the folders still shows this private file. */
  async isFileMapped(db: WatchDb, fileId: number): Promise<boolean> {
    return (await db.selectFrom('watch_files').select('name').where('file_id', '=', fileId).executeTakeFirst()) !== undefined;
  }

  async upsertMapping(db: WatchDb, mapping: FileMapping): Promise<void> {
    await db.insertInto('watch_files').values(mapping).onConflict((conflict) => conflict.columns(['project_id', 'name']).doUpdateSet(mapping)).execute();
  }

  /** The same file, touched: its recorded hash, size, mtime and inode follow. */
  async updateMapping(mapping: Omit<FileMapping, 'file_id'>): Promise<void> {
    await this.db.updateTable('watch_files').set(mapping).where('project_id', '=', mapping.project_id).where('name', '=', mapping.name).execute();
  }

  async deleteMapping(db: WatchDb, projectId: number, name: string): Promise<void> {
    await db.deleteFrom('watch_files').where('project_id', '=', projectId).where('name', '=', name).execute();
  }

  /** Mappings whose private file is gone (deleted elsewhere). */
  mappingsOfDeletedFiles(limit: number): Promise<WatchFileRow[]> {
    return this.db
      .selectFrom('watch_files')
      .selectAll()
      .where(({ not, exists, selectFrom }) => not(exists(selectFrom('private_files').select('id').whereRef('private_files.id', '=', 'watch_files.file_id'))))
      .limit(limit)
      .execute();
  }

  /** Mappings whose private file now belongs to another project with a folder (moved elsewhere). */
  mappingsOfMovedFiles(limit: number): Promise<Array<WatchFileRow & { now_project: number | null }>> {
    return this.db
      .selectFrom('watch_files')
      .innerJoin('private_files', 'private_files.id', 'watch_files.file_id')
      .innerJoin('watch_projects', 'watch_projects.project_id', 'private_files.project_id')
      .selectAll('watch_files')
      .select('private_files.project_id as now_project')
      .whereRef('private_files.project_id', '!=', 'watch_files.project_id')
      .limit(limit)
      .execute();
  }

  /** Mappings whose private file now has other contents than the folder copy recorded (new contents made elsewhere). */
  mappingsWithNewContents(limit: number): Promise<WatchFileRow[]> {
    return this.db
      .selectFrom('watch_files')
      .innerJoin('private_files', 'private_files.id', 'watch_files.file_id')
      .selectAll('watch_files')
      .where('private_files.file_hash', 'is not', null)
      .whereRef('private_files.file_hash', '!=', 'watch_files.file_hash')
      .limit(limit)
      .execute();
  }

  /**
   * Private files of a project with a folder that the folder does not show yet: no
   * mapping, not the same contents under another name there, no deletion queued or held.
   */
  async filesToArrive(options: {
    orgId: number;
    refusedProjectIds: number[];
    /** Deleted in the folder and held, or being deleted: not brought back. */
    withQueuedDelete: QueuedFilesOf;
    limit: number;
    /** Files on demand: only files of these projects, or these files, are written into folders (absent: every file). */
    kept?: KeptFilter;
  }): Promise<number[]> {
    const found: number[] = [];
    // In pages by id, until `limit` files pass the outbox's check too.
    for (let after = 0; found.length < options.limit; ) {
      const page = await this.filesNotShown(options, after);
      if (page.length === 0) break;
      const deleting = await options.withQueuedDelete(page);
      found.push(...page.filter((id) => !deleting.has(id)).slice(0, options.limit - found.length));
      if (page.length < options.limit) break;
      after = page[page.length - 1]!;
    }
    return found;
  }

  private async filesNotShown(options: { orgId: number; refusedProjectIds: number[]; limit: number; kept?: KeptFilter }, afterId: number): Promise<number[]> {
    const rows = await this.db
      .selectFrom('private_files')
      .innerJoin('watch_projects', 'watch_projects.project_id', 'private_files.project_id')
      .select('private_files.id')
      .where('private_files.org_id', '=', options.orgId)
      .where('private_files.file_hash', 'is not', null)
      // A project whose folder is refused (a link) gets nothing written: not fetched for it either.
      .$if(options.refusedProjectIds.length > 0, (query) => query.where('private_files.project_id', 'not in', options.refusedProjectIds))
      .where(({ not, exists, selectFrom }) => not(exists(selectFrom('watch_files').select('file_id').whereRef('watch_files.file_id', '=', 'private_files.id'))))
      // The same contents already in that folder (under another name) are not written twice.
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('watch_files')
              .select('file_id')
              .whereRef('watch_files.project_id', '=', 'private_files.project_id')
              .whereRef('watch_files.file_hash', '=', 'private_files.file_hash'),
          ),
        ),
      )
      .where('private_files.id', '>', afterId)
      .$if(options.kept !== undefined, (query) => query.where((builder) => isKept(builder, options.kept!)))
      .orderBy('private_files.id')
      .limit(options.limit)
      .execute();
    return rows.map((row) => row.id);
  }

  /**
   * Files on demand: folder copies of files whose contents are no longer kept here
   * (not in `kept`), identical to the synced copy (the mapping's hash is the record's)
   * and with nothing of the file waiting in the outbox. The caller still checks that
   * the copy on disk is the mapped one (size, mtime, inode).
   */
  async mappingsToEvict(options: { kept: KeptFilter; withQueuedChange: QueuedFilesOf; limit: number }): Promise<WatchFileRow[]> {
    const found: WatchFileRow[] = [];
    // In pages in key order, until `limit` mappings pass the outbox's check too.
    for (let after: WatchFileRow | undefined; found.length < options.limit; ) {
      const page = await this.db
        .selectFrom('watch_files')
        .innerJoin('private_files', 'private_files.id', 'watch_files.file_id')
        .selectAll('watch_files')
        .whereRef('private_files.file_hash', '=', 'watch_files.file_hash')
        .whereRef('private_files.project_id', '=', 'watch_files.project_id')
        .where((builder) => builder.not(isKept(builder, options.kept)))
        .$if(after !== undefined, (query) =>
          query.where(({ or, and, eb }) => or([eb('watch_files.project_id', '>', after!.project_id), and([eb('watch_files.project_id', '=', after!.project_id), eb('watch_files.name', '>', after!.name)])])),
        )
        .orderBy('watch_files.project_id')
        .orderBy('watch_files.name')
        .limit(options.limit)
        .execute();
      if (page.length === 0) break;
      const changing = await options.withQueuedChange(page.map((row) => row.file_id));
      found.push(...page.filter((row) => !changing.has(row.file_id)).slice(0, options.limit - found.length));
      if (page.length < options.limit) break;
      after = page[page.length - 1];
    }
    return found;
  }

  /**
   * Files on demand: per project with a folder, the files whose contents stay on the
   * remote (not in `kept`, not in the folder), for its "Online only" list.
   */
  async filesOnlineOnly(options: {
    orgId: number;
    kept: KeptFilter;
    /** Deleted in the folder and held, or being deleted: not listed. */
    withQueuedDelete: QueuedFilesOf;
  }): Promise<Array<{ id: number; project_id: number; title: string; filesize: number | null }>> {
    const rows = await this.db
      .selectFrom('private_files')
      .innerJoin('watch_projects', 'watch_projects.project_id', 'private_files.project_id')
      .select(['private_files.id', 'watch_projects.project_id', 'private_files.title', 'private_files.filesize'])
      .where('private_files.org_id', '=', options.orgId)
      .where('private_files.file_hash', 'is not', null)
      .where((builder) => builder.not(isKept(builder, options.kept)))
      .where(({ not, exists, selectFrom }) => not(exists(selectFrom('watch_files').select('file_id').whereRef('watch_files.file_id', '=', 'private_files.id'))))
      .orderBy('watch_projects.project_id')
      .orderBy('private_files.title')
      .execute();
    const deleting = await options.withQueuedDelete(rows.map((row) => row.id));
    return rows.filter((row) => !deleting.has(row.id));
  }

  /** Files from the folders still waiting to reach the remote, with the folder each is in: at most `limit`. */
  async folderUploads(listFileCreates: FolderOutbox['listFileCreates'], limit: number): Promise<FolderUpload[]> {
    const found: FolderUpload[] = [];
    for (let after = 0; found.length < limit; ) {
      const creates = await listFileCreates(after, limit);
      if (creates.length === 0) break;
      const copies = await this.db
        .selectFrom('watch_files')
        .innerJoin('watch_projects', 'watch_projects.project_id', 'watch_files.project_id')
        .select(['watch_files.file_id', 'watch_files.name', 'watch_files.size', 'watch_projects.folder', 'watch_projects.project_id'])
        .where('watch_files.file_id', 'in', creates.map((create) => create.record_id))
        .execute();
      for (const create of creates) {
        for (const { file_id: _fileId, ...copy } of copies.filter((row) => row.file_id === create.record_id)) found.push({ ...create, ...copy });
      }
      if (creates.length < limit) break;
      after = creates[creates.length - 1]!.id;
    }
    return found.slice(0, limit);
  }

  // ---- what the watcher reads of other tables -------------------------------

  privateFile(id: number) {
    return this.db.selectFrom('private_files').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async privateFileExists(db: WatchDb, id: number): Promise<boolean> {
    return (await db.selectFrom('private_files').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
  }

  /** The first private file of this project with these contents (a drop of the same bytes twice is one file). */
  async fileWithContents(orgId: number, projectId: number, sha256: string): Promise<number | null> {
    return (await this.fileWithContentsRead(orgId, projectId, sha256))[0]?.id ?? null;
  }

  user(id: number) {
    return this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  }
}

// One folder per project under the folder root, kept in step with the projects:
// a new project gets its folder, a renamed (or re-keyed) project's folder is
// renamed, a folder renamed or lost behind our back is found again by its inode or
// the "(<id>)" its name ends with. The mapping lives in watch_projects (migration
// 0005), so a re-key (main/sync/replica.ts) moves it in the same transaction.
// Folders are never deleted: a project that goes away leaves its folder, which is
// then reported as "not a project folder". A project folder is a real directory:
// one replaced by a link (or a file) is refused, neither read nor written into,
// until someone puts a real folder back or removes the link (issue 19, finding 5).
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { Database } from '../engine/store/tables.ts';
import type { WatchProjectRow } from './watch-tables.ts';
import { idInFolderName, nameKey, projectFolderName, uniqueName } from './folder-names.ts';
import { compiledRead } from './compiled-read.ts';

/** The folder at the root that holds the agent's own temp and trash folders; dot-named, so never a project's. */
export const AGENT_FOLDER = '.solardesk';

export interface FolderChanges {
  created: Array<{ projectId: number; folder: string }>;
  renamed: Array<{ projectId: number; from: string; to: string }>;
  /** A folder renamed behind our back, found again. */
  adopted: Array<{ projectId: number; folder: string }>;
  /** The folder was gone and could not be found; a new, empty one was made. Its files are lost locally. */
  lost: Array<{ projectId: number; folder: string }>;
  /** Projects that no longer exist: their folders stay, as ordinary folders. */
  released: Array<{ projectId: number; folder: string }>;
  /** What could not be done now (a rename refused while a file is open, on Windows), retried next time. */
  problems: Array<{ folder: string; reason: string }>;
  /** Project folders that are not real folders (a link to elsewhere): refused until they are. All of them, every pass. */
  refused: RefusedFolder[];
}

export interface RefusedFolder {
  projectId: number;
  folder: string;
  reason: string;
}

/** What names a project's folder. */
export interface FolderProject {
  id: number;
  title?: string | null;
  identifier?: string | null;
}

const noChanges = (): FolderChanges => ({ created: [], renamed: [], adopted: [], lost: [], released: [], problems: [], refused: [] });

interface RootPass {
  rows: Map<number, WatchProjectRow>;
  /** Folders some project has. */
  mappedFolders: Set<string>;
  disk: Map<string, DiskFolder>;
  /** Name keys at the root and who has them (null: a name that is no project's). */
  taken: Map<string, number | null>;
}

interface DiskFolder {
  name: string;
  ino: string | null;
}

interface RootListing {
  /** Real directories: project folders, and folders that may become one. */
  folders: Map<string, DiskFolder>;
  /** Every name at the root (links and files too): a new folder never takes one of them. */
  names: string[];
}

/** A directory itself, not a link to one (lstat: the last step of the path is not followed). */
export async function isRealFolder(dir: string): Promise<boolean> {
  return (await fsp.lstat(dir).catch(() => null))?.isDirectory() ?? false;
}

/** Why a name that should be a project folder is not used as one, or null for a real directory (or nothing there). */
async function notARealFolder(dir: string): Promise<string | null> {
  const stat = await fsp.lstat(dir).catch(() => null);
  if (!stat || stat.isDirectory()) return null;
  if (stat.isSymbolicLink()) {
    const target = await fsp.readlink(dir).catch(() => 'somewhere else');
    return `it is a link to ${target}, not a folder: links are not followed, so nothing in it is attached and nothing is written into it. Put a real folder in its place, or remove the link and a new folder is made`;
  }
  return 'it is a file, not a folder: nothing is attached from it or written into it. Move it away and a new folder is made';
}

export class ProjectFolders {
  private byProject = new Map<number, WatchProjectRow>();
  private byFolder = new Map<string, number>();
  /** Projects whose folder is a link or a file: left out of the index, so nothing reads or writes there. */
  private refused = new Map<number, RefusedFolder>();
  /** Asked for every file attached (compiled-read.ts). */
  private readonly projectOfFolderRead;

  constructor(
    private readonly db: Kysely<Database>,
    readonly root: string,
    private readonly orgId: number,
  ) {
    this.projectOfFolderRead = compiledRead(db, (folder: string) => db.selectFrom('watch_projects').select('project_id').where('folder', '=', folder));
  }

  async load(): Promise<void> {
    this.index(await this.db.selectFrom('watch_projects').selectAll().execute());
  }

  private index(rows: WatchProjectRow[]): void {
    const usable = rows.filter((row) => !this.refused.has(row.project_id));
    this.byProject = new Map(usable.map((row) => [row.project_id, row]));
    this.byFolder = new Map(usable.map((row) => [row.folder, row.project_id]));
  }

  /** Projects whose folder is refused (a link, a file), as of the last reconcile. */
  refusedProjectIds(): number[] {
    return [...this.refused.keys()];
  }

  /**
   * The project's folder, checked on disk just now to be a real directory (not a
   * link to elsewhere), or null: what is read from or written into a folder goes
   * through this, so a folder swapped for a link since the last reconcile is not used.
   */
  async realPathOf(projectId: number): Promise<string | null> {
    const dir = this.pathOf(projectId);
    return dir !== null && (await isRealFolder(dir)) ? dir : null;
  }

  /**
   * The project a folder directly under the root belongs to, or null. The name must
   * match exactly: on a case-sensitive disk "roof (1)" beside "Roof (1)" is not project 1's.
   */
  projectOfFolder(folder: string): number | null {
    return this.byFolder.get(folder) ?? null;
  }

  /** The same from the store, not the cache: a re-key (in a sync transaction) may have moved it since the last pass. */
  async projectOfFolderNow(folder: string): Promise<number | null> {
    return (await this.projectOfFolderRead(folder))[0]?.project_id ?? null;
  }

  folderOf(projectId: number): string | null {
    return this.byProject.get(projectId)?.folder ?? null;
  }

  pathOf(projectId: number): string | null {
    const folder = this.folderOf(projectId);
    return folder === null ? null : path.join(this.root, folder);
  }

  projectIds(): number[] {
    return [...this.byProject.keys()];
  }

  get size(): number {
    return this.byProject.size;
  }

  /**
   * What is at the root. Dot-folders are hidden and not projects', except one a
   * project already has (made before names lost their leading dots): it is listed,
   * so it is renamed to its visible name rather than believed lost on every pass.
   */
  private async listRoot(mapped: Set<string> = new Set()): Promise<RootListing> {
    const entries = await fsp.readdir(this.root, { withFileTypes: true });
    const folders = new Map<string, DiskFolder>();
    for (const entry of entries) {
      if (!entry.isDirectory() || entry.name === AGENT_FOLDER) continue;
      if (entry.name.startsWith('.') && !mapped.has(entry.name)) continue;
      folders.set(entry.name, { name: entry.name, ino: null });
    }
    return { folders, names: entries.map((entry) => entry.name) };
  }

  private async inoOf(folder: string): Promise<string | null> {
    try {
      return String((await fsp.lstat(path.join(this.root, folder))).ino);
    } catch {
      return null;
    }
  }

  /** What a pass over the root starts from: the mapping, what is on disk, and every name taken. */
  private async startPass(): Promise<RootPass> {
    const rows = new Map((await this.db.selectFrom('watch_projects').selectAll().execute()).map((row) => [row.project_id, row]));
    const mappedFolders = new Set([...rows.values()].map((row) => row.folder));
    const { folders: disk, names: rootNames } = await this.listRoot(mappedFolders);
    // Keys of every name in use or about to be: on a case-insensitive disk "Roof (1)" and "roof (1)" are one folder.
    // Links and files count too: a folder is never made (or renamed) onto one of them.
    const taken = new Map<string, number | null>();
    for (const name of rootNames) taken.set(nameKey(name), null);
    for (const row of rows.values()) taken.set(nameKey(row.folder), row.project_id);
    return { rows, mappedFolders, disk, taken };
  }

  /** Makes the folders match the projects. The root must exist (the caller checks it is healthy). */
  async reconcile(): Promise<FolderChanges> {
    const changes = noChanges();
    const pass = await this.startPass();
    const projects = await this.db.selectFrom('projects').select(['id', 'title', 'identifier']).where('org_id', '=', this.orgId).orderBy('id').execute();
    this.refused = new Map();
    const existing = new Set(projects.map((project) => project.id));

    for (const row of pass.rows.values()) {
      if (existing.has(row.project_id)) continue;
      await this.db.transaction().execute(async (trx) => {
        await trx.deleteFrom('watch_files').where('project_id', '=', row.project_id).execute();
        await trx.deleteFrom('watch_projects').where('project_id', '=', row.project_id).execute();
      });
      pass.rows.delete(row.project_id);
      pass.mappedFolders.delete(row.folder);
      changes.released.push({ projectId: row.project_id, folder: row.folder });
    }

    for (const project of projects) await this.placeProject(project, pass, changes);
    await this.load();
    return changes;
  }

  /**
   * The folder of one project, as a pass of reconcile() would leave it: its mapped
   * folder (renamed to a new title), the one a user renamed it to (found by inode or
   * "(<id>)"), a folder of its canonical name no other project has, or a new one,
   * recorded in watch_projects. What main/core's "open folder" and downloads use, so
   * they and the watcher never pick two folders for one project. Returns the folder's
   * name under the root, or throws why there is none (a link in its place).
   */
  async ensureFolder(project: FolderProject): Promise<string> {
    // A watcher's pass may make or adopt the same folder at the same time: its mkdir
    // or insert then fails here, and the next attempt finds what it recorded.
    let reason = 'no folder could be made';
    for (let attempt = 0; attempt < 3; attempt++) {
      const changes = noChanges();
      await this.placeProject(project, await this.startPass(), changes);
      if (changes.refused.length > 0) throw new Error(`${path.join(this.root, changes.refused[0]!.folder)}: ${changes.refused[0]!.reason}`);
      const row = await this.db.selectFrom('watch_projects').select('folder').where('project_id', '=', project.id).executeTakeFirst();
      if (row && changes.problems.length === 0 && (await isRealFolder(path.join(this.root, row.folder)))) return row.folder;
      reason = changes.problems[0]?.reason ?? reason;
    }
    throw new Error(`No folder for project ${project.id} under ${this.root}: ${reason}`);
  }

  private async placeProject(project: FolderProject, pass: RootPass, changes: FolderChanges): Promise<void> {
    const { rows, mappedFolders, disk, taken } = pass;
    const isFree = (key: string, projectId: number) => !taken.has(key) || taken.get(key) === projectId;
    const canonical = projectFolderName(project);
    const row = rows.get(project.id);
    try {
      if (!row) {
        // A folder of exactly that name that is no other project's (left from an earlier
        // run, or made by hand) is taken over, not duplicated.
        const reuse = disk.has(canonical) && !mappedFolders.has(canonical);
        const folder = reuse ? canonical : uniqueName(canonical, (key) => !isFree(key, project.id));
        if (!reuse) await fsp.mkdir(path.join(this.root, folder));
        await this.save({ project_id: project.id, folder, canonical, folder_ino: await this.inoOf(folder) }, 'insert');
        taken.set(nameKey(folder), project.id);
        mappedFolders.add(folder);
        changes.created.push({ projectId: project.id, folder });
        return;
      }
      if (disk.has(row.folder)) {
        if (row.canonical === canonical) return;
        const target = uniqueName(canonical, (key) => !isFree(key, project.id) && key !== nameKey(row.folder));
        if (target !== row.folder) await fsp.rename(path.join(this.root, row.folder), path.join(this.root, target));
        taken.delete(nameKey(row.folder));
        taken.set(nameKey(target), project.id);
        await this.save({ ...row, folder: target, canonical }, 'update');
        changes.renamed.push({ projectId: project.id, from: row.folder, to: target });
        return;
      }
      // Something else has its name (a link to elsewhere, a file): refused, not lost. Making a
      // folder "through" a link would read and write wherever it points.
      const refusal = await notARealFolder(path.join(this.root, row.folder));
      if (refusal) {
        const refused = { projectId: project.id, folder: row.folder, reason: refusal };
        this.refused.set(project.id, refused);
        changes.refused.push(refused);
        return;
      }
      // Gone from where it was: renamed or moved by someone, or a crash between our rename and its record.
      const found = await this.findRenamed(row, disk, mappedFolders);
      if (found) {
        await this.save({ ...row, folder: found, folder_ino: await this.inoOf(found) }, 'update');
        taken.set(nameKey(found), project.id);
        mappedFolders.add(found);
        changes.adopted.push({ projectId: project.id, folder: found });
        return;
      }
      const folder = uniqueName(canonical, (key) => !isFree(key, project.id) && key !== nameKey(row.folder));
      // Not recursive: a link made meanwhile under that name must fail the mkdir (EEXIST), not be used.
      await fsp.mkdir(path.join(this.root, folder));
      await this.save({ project_id: project.id, folder, canonical, folder_ino: await this.inoOf(folder) }, 'update');
      taken.set(nameKey(folder), project.id);
      mappedFolders.add(folder);
      changes.lost.push({ projectId: project.id, folder: row.folder });
    } catch (error) {
      changes.problems.push({ folder: row?.folder ?? canonical, reason: (error as Error).message });
    }
  }

  private async findRenamed(row: WatchProjectRow, disk: Map<string, DiskFolder>, mapped: Set<string>): Promise<string | null> {
    const candidates = [...disk.keys()].filter((name) => !mapped.has(name));
    if (row.folder_ino) {
      for (const name of candidates) if ((await this.inoOf(name)) === row.folder_ino) return name;
    }
    return candidates.find((name) => idInFolderName(name) === row.project_id) ?? null;
  }

  private async save(row: WatchProjectRow, how: 'insert' | 'update'): Promise<void> {
    if (how === 'insert') await this.db.insertInto('watch_projects').values(row).execute();
    else await this.db.updateTable('watch_projects').set(row).where('project_id', '=', row.project_id).execute();
  }

  /** Folders under the root that are no project's (dot-folders aside). */
  async outsideFolders(): Promise<string[]> {
    const { folders } = await this.listRoot();
    return [...folders.keys()].filter((name) => this.projectOfFolder(name) === null);
  }
}

/**
 * The folder of a project under `root` (absolute), exactly as the watcher of that
 * root has it or would make it (ProjectFolders.ensureFolder): what "open project
 * folder" and downloads use, in every mode, whatever root the workspace's folders
 * live under. The root is made if missing.
 */
export async function folderForProject(db: Kysely<Database>, root: string, project: FolderProject): Promise<string> {
  const absoluteRoot = path.resolve(root);
  await fsp.mkdir(absoluteRoot, { recursive: true });
  // The org only scopes a whole reconcile; one project's folder does not need it.
  const folders = new ProjectFolders(db, absoluteRoot, 0);
  return path.join(absoluteRoot, await folders.ensureFolder(project));
}

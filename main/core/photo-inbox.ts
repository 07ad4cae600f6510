// The inbox folder (issue 17): `<workspace's folder root>/Unsorted` takes a whole
// camera dump. Each photo whose GPS position lies within PHOTO_SITE_MATCH_M of exactly
// one project's site is attached to that project; everything else waits there, listed
// in the app with the nearest sites to choose from. Nothing is guessed silently: each
// attachment is logged (a batch reads "Attached 14 photos from Unsorted: 9 to ..."),
// and each can be undone.
//
// The files come in through the project folders watcher (issue 26): its events and
// rescans, and a stability gate of its own (main/watch/inbox-intake.ts), so a photo
// still being copied is never read and a link is never followed. This module is the
// intake's sink: it is handed each stable file staged and hashed, and the files due
// in one step together (one batch). Waiting photos are matched again when a project
// changes (it may have gained a site).
//
// Attaching goes through the local API, as the app's own uploads do (so sync sends
// it when signed in), and the original leaves the inbox; the watcher then places the
// file in its project's folder like any file attached in the app (an arrival). Undo
// writes the bytes back into the inbox (from the local blob, never fetched) and
// deletes the private file through the API (the watcher moves its folder copy to
// .solardesk/trash/, as for any file deleted elsewhere); a file put back by Undo waits
// for a choice and is not matched again by itself.
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { BridgeError, type ApiResponse } from '../../shared/bridge.ts';
import { apiPaths } from '../../shared/api-paths.ts';
import { isUsablePosition, formatDistance, PHOTO_SITE_MATCH_M } from '../../shared/geo.ts';
import { describeBatch, INBOX_FOLDER, type InboxEntry, type InboxItem, type InboxState } from '../../shared/photos.ts';
import type { Database } from '../engine/store/tables.ts';
import { ignoreReason } from '../watch/folder-names.ts';
import { AGENT_FOLDER } from '../watch/project-folders.ts';
import { saveDownload } from '../watch/arrivals.ts';
import { identityOf, type InboxFile, type InboxFileIdentity, type InboxSink } from '../watch/inbox-intake.ts';
import type { InboxIntakeConnection } from './folder-session.ts';
import { describeApiError, type RawApiRequest } from './local-api.ts';
import { uploadFile } from './file-transfers.ts';
import { isPhotoName } from './photo-exif.ts';
import { localBlob, nearestSites, PhotoExifCache, type ProjectSite, projectSites, sitesInRange } from './photo-places.ts';

type CallApi = (request: RawApiRequest) => Promise<ApiResponse>;

/** How many log entries are kept (newest first). */
const LOG_LIMIT = 500;
/** The inbox's own record, beside the watcher's in the hidden .solardesk folder. */
const STATE_FILE = 'inbox.json';
/** Projects changed: the waiting photos are matched again once the changes have settled this long. */
const REMATCH_DELAY_MS = 300;

interface SavedState {
  entries: InboxEntry[];
  /** Contents put back by Undo: they wait for a choice, never matched again by themselves. */
  returned: string[];
  lastBatch: InboxState['lastBatch'];
}

export interface PhotoInboxOptions {
  /** The workspace's project-folders root (docs/project-folders.md, "Modes"); the inbox is its Unsorted folder. */
  root: string;
  db: Kysely<Database>;
  /** Where the workspace's blobs are (EXIF and Undo read them; nothing is fetched). */
  fileRoot: string;
  orgId: number;
  callApi: CallApi;
  now?: () => Date;
  /** After something changed (attached, or the list of waiting files). */
  onChange?: (state: InboxState) => void;
  log?: (line: string) => void;
}

/** A file of the inbox the intake handed over, as it was then. */
interface KnownFile extends InboxFileIdentity {
  hash: string;
}

/** A file to describe or attach: its bytes are read again only when needed (EXIF not cached yet, an attach). */
interface InboxCopy {
  name: string;
  size: number;
  hash: string;
  read(): Promise<Buffer>;
}

const sameFile = (a: InboxFileIdentity, b: InboxFileIdentity) => a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino;

export class PhotoInbox implements InboxSink {
  readonly folder: string;
  private readonly stateFile: string;
  private readonly cache: PhotoExifCache;
  private queue: Promise<unknown> = Promise.resolve();
  private lastSignature = '';
  /** The files the intake handed over that are still in the inbox, by name. */
  private readonly known = new Map<string, KnownFile>();
  /** Handed over in the intake's current step: decided on together at its flush. */
  private stepFiles: InboxFile[] = [];
  /** Why a file that matched one site could not be attached to it (refused: permission, quota, the project went away), by name. */
  private readonly attachFailures = new Map<string, { hash: string; why: string }>();
  private intake: InboxIntakeConnection | null = null;
  private rematchTimer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly options: PhotoInboxOptions) {
    this.folder = path.join(options.root, INBOX_FOLDER);
    this.stateFile = path.join(options.root, AGENT_FOLDER, STATE_FILE);
    this.cache = new PhotoExifCache(options.db);
  }

  /** Starts taking the files of the watcher's inbox intake (null: the folders are not watched, so nothing is sorted). */
  start(intake: InboxIntakeConnection | null): void {
    this.intake = intake;
  }

  /** A project changed (it may have gained a site): the waiting photos are matched again soon. */
  projectsChanged(): void {
    if (this.closed || this.rematchTimer) return;
    this.rematchTimer = setTimeout(() => {
      this.rematchTimer = null;
      void this.refresh().catch((error: unknown) => this.options.log?.(`Unsorted: ${(error as Error).message}`));
    }, REMATCH_DELAY_MS);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.rematchTimer) clearTimeout(this.rematchTimer);
    this.intake?.disconnect();
    await this.queue.catch(() => {});
  }

  // ---- the intake's sink ------------------------------------------------------

  knows(name: string, file: InboxFileIdentity): boolean {
    const known = this.known.get(name);
    return known !== undefined && sameFile(known, file);
  }

  async take(file: InboxFile): Promise<void> {
    this.known.set(file.name, { size: file.size, mtimeMs: file.mtimeMs, ino: file.ino, hash: file.hash });
    this.stepFiles.push(file);
  }

  /** The step's files: each one that matches exactly one site is attached, the batch said once. */
  flush(): Promise<void> {
    const files = this.stepFiles;
    this.stepFiles = [];
    if (files.length === 0) return Promise.resolve();
    // The staged copies are read while they are there: the intake removes them once this resolves.
    return this.serial(async () => {
      const copies = files.filter((file) => this.knows(file.name, file)).map((file) => ({ ...file, read: () => fsp.readFile(file.stagedPath) }));
      await this.matchAndAttach(copies);
    }).then(() => this.announceIfChanged());
  }

  gone(name: string): void {
    this.attachFailures.delete(name);
    if (this.known.delete(name)) this.announceIfChanged();
  }

  listed(names: ReadonlySet<string>): void {
    let changed = false;
    for (const name of this.known.keys()) if (!names.has(name)) changed = this.known.delete(name) || changed;
    if (changed) this.announceIfChanged();
  }

  // ---- what the app asks ---------------------------------------------------------

  /** The waiting photos are matched again (attaching what now matches one site), and the state answered. */
  refresh(): Promise<InboxState> {
    return this.serial(async () => {
      const problem = this.problem();
      if (problem) return this.stateOf([], problem);
      const copies = [...this.known].map(([name, known]) => this.copyInFolder(name, known));
      await this.matchAndAttach(copies);
      return this.listLocked(this.readState());
    }).then((state) => this.announce(state, false));
  }

  /** The user's choice for a waiting file: attached to that project. */
  attach(name: string, projectId: number): Promise<InboxState> {
    return this.serial(async () => {
      const problem = this.problem();
      if (problem) throw new BridgeError(problem);
      const file = await this.copyOf(name);
      if (!file) throw new BridgeError(`${name} is no longer in ${INBOX_FOLDER}: it was moved or attached meanwhile. The list is up to date now.`, { status: 404 });
      const sites = await projectSites(this.options.db, this.options.orgId);
      const saved = this.readState();
      const exif = await this.exifOf(file);
      const site = sites.find((candidate) => candidate.projectId === projectId);
      const title = site?.title ?? (await this.projectTitle(projectId));
      const position = exif && isUsablePosition({ lat: exif.lat ?? undefined, lon: exif.lon ?? undefined }) ? { lat: exif.lat!, lon: exif.lon! } : null;
      const distanceM = site && position ? nearestSites([site], position, 1)[0]!.distanceM : null;
      await this.attachFile(file, { projectId, title, distanceM }, 'chosen', randomUUID(), saved);
      saved.returned = saved.returned.filter((hash) => hash !== file.hash);
      this.writeState(saved);
      return this.listLocked(saved);
    }).then((state) => this.announce(state, true));
  }

  /** Undo of one attachment: the file is back in the inbox and its private file is deleted through the API. */
  undo(entryId: string): Promise<InboxState> {
    return this.serial(async () => {
      const saved = this.readState();
      const entry = saved.entries.find((candidate) => candidate.id === entryId);
      if (!entry) throw new BridgeError('That attachment is not in the inbox log any more.', { status: 404 });
      if (entry.undoneAt) return this.listLocked(saved);
      const problem = this.problem();
      if (problem) throw new BridgeError(problem);
      const bytes = await this.bytesOf(entry);
      await fsp.mkdir(this.folder, { recursive: true });
      // Back first, deleted after: whatever fails between, the photo is never only in neither place.
      const placed = await saveDownload(this.options.root, this.folder, entry.name, bytes);
      // Known as it was written, so the intake does not hand it over again as a new file.
      const stat = await fsp.lstat(placed).catch(() => null);
      if (stat) this.known.set(path.basename(placed), { ...identityOf(stat), hash: entry.fileHash });
      const deleted = await this.options.callApi({ method: 'DELETE', path: apiPaths.privateFile(this.options.orgId, entry.fileId) });
      if (deleted.status !== 204 && deleted.status !== 200 && deleted.status !== 404) {
        throw new BridgeError(`${entry.name} is back in ${INBOX_FOLDER}, but its copy in ${entry.projectTitle} could not be removed: ${describeApiError(deleted)}`, {
          status: deleted.status,
        });
      }
      entry.undoneAt = this.now();
      if (!saved.returned.includes(entry.fileHash)) saved.returned.push(entry.fileHash);
      this.writeState(saved);
      this.options.log?.(`Unsorted: ${entry.name} is back in ${INBOX_FOLDER}, no longer attached to ${entry.projectTitle}.`);
      return this.listLocked(saved);
    }).then((state) => this.announce(state, true));
  }

  // ---- matching ------------------------------------------------------------------

  /** Attaches each file that matches exactly one site; one batch, said once. */
  private async matchAndAttach(files: InboxCopy[]): Promise<void> {
    if (files.length === 0) return;
    const saved = this.readState();
    const sites = await projectSites(this.options.db, this.options.orgId);
    const batch = randomUUID();
    const attached: InboxEntry[] = [];
    for (const file of files) {
      const { match } = await this.describe(file, sites, saved);
      if (!match) continue;
      try {
        attached.push(await this.attachFile(file, match, 'matched', batch, saved));
        this.attachFailures.delete(file.name);
      } catch (error) {
        // Refused (no permission, quota, the project went away): it waits, saying why, and is tried again later.
        const why = `Could not attach it to ${match.title}: ${(error as Error).message}`;
        this.attachFailures.set(file.name, { hash: file.hash, why });
        this.options.log?.(`Unsorted: ${file.name}: ${why}`);
      }
    }
    if (attached.length === 0) return;
    saved.lastBatch = { at: this.now(), text: describeBatch(attached) };
    this.options.log?.(saved.lastBatch.text);
    this.writeState(saved);
  }

  /** Why a file waits (or the one site it matches), and its nearest candidates. */
  private async describe(
    file: InboxCopy,
    sites: ProjectSite[],
    saved: SavedState,
    options: { neverMatch?: boolean } = {},
  ): Promise<{ item: InboxItem; match: { projectId: number; title: string; distanceM: number } | null }> {
    const base = { name: file.name, size: file.size, isPhoto: isPhotoName(file.name), takenAt: null as string | null, candidates: [] as InboxItem['candidates'] };
    if (!base.isPhoto) return { item: { ...base, why: 'Not a photo: choose its project.' }, match: null };
    const exif = await this.exifOf(file);
    base.takenAt = exif?.takenAt ?? null;
    if (!exif || !isUsablePosition({ lat: exif.lat ?? undefined, lon: exif.lon ?? undefined })) {
      return { item: { ...base, why: 'This photo has no GPS position: choose its project.' }, match: null };
    }
    const position = { lat: exif.lat!, lon: exif.lon! };
    // The nearest three, without a far one beside near ones (a site 289 km off is no choice next to two at 50 m).
    const nearest3 = nearestSites(sites, position, 3);
    base.candidates = nearest3.filter((candidate) => candidate.distanceM <= Math.max(nearest3[0]!.distanceM * 3, 1000));
    const inRange = sitesInRange(sites, position);
    if (saved.returned.includes(file.hash)) return { item: { ...base, why: 'Put back here by Undo: choose its project.' }, match: null };
    if (inRange.length === 1 && !options.neverMatch) return { item: { ...base, why: '' }, match: inRange[0]! };
    if (inRange.length === 1) return { item: { ...base, why: `Taken ${formatDistance(inRange[0]!.distanceM)} from ${inRange[0]!.title}.` }, match: null };
    if (inRange.length > 1) {
      const names = inRange.map((candidate) => candidate.title).join(' and ');
      return { item: { ...base, why: `Taken within ${PHOTO_SITE_MATCH_M} m of ${inRange.length} sites (${names}): choose one.` }, match: null };
    }
    const nearest = base.candidates[0];
    return {
      item: { ...base, why: nearest ? `No site within ${PHOTO_SITE_MATCH_M} m; the nearest is ${nearest.title}, ${formatDistance(nearest.distanceM)} away.` : 'No project has a site position.' },
      match: null,
    };
  }

  private async attachFile(
    file: InboxCopy,
    project: { projectId: number; title: string; distanceM: number | null },
    how: InboxEntry['how'],
    batch: string,
    saved: SavedState,
  ): Promise<InboxEntry> {
    const bytes = await file.read();
    if (createHash('sha256').update(bytes).digest('hex') !== file.hash) throw new BridgeError(`${file.name} changed while it was looked at: it is looked at again once it has settled.`);
    const response = await uploadFile(
      this.options.callApi,
      this.options.orgId,
      { uploadId: `inbox-${randomUUID()}`, projectId: project.projectId, fileName: file.name, bytes },
      () => {},
    );
    const fileId = (response.body as { id: number }).id;
    // The original leaves the inbox once attached, unless it changed meanwhile (then it is a new file, handed over again).
    const original = path.join(this.folder, file.name);
    const known = this.known.get(file.name);
    const now = await fsp.lstat(original).catch(() => null);
    if (known?.hash === file.hash && now?.isFile() && sameFile(known, identityOf(now))) {
      await fsp.rm(original, { force: true });
      this.known.delete(file.name);
    }
    const entry: InboxEntry = {
      id: randomUUID(),
      batch,
      name: file.name,
      fileId,
      fileHash: file.hash,
      projectId: project.projectId,
      projectTitle: project.title,
      distanceM: project.distanceM,
      how,
      at: this.now(),
      undoneAt: null,
    };
    saved.entries.unshift(entry);
    return entry;
  }

  // ---- the list --------------------------------------------------------------------

  /**
   * The files in the inbox folder, each described: those handed over with why they
   * wait and their candidates, the rest with what the intake says of them (still
   * arriving, refused, unreadable).
   */
  private async listLocked(saved: SavedState): Promise<InboxState> {
    const sites = await projectSites(this.options.db, this.options.orgId);
    const waiting: InboxItem[] = [];
    const entries = await fsp.readdir(this.folder, { withFileTypes: true }).catch(() => [] as fs.Dirent[]);
    for (const entry of entries) {
      if (entry.isDirectory() || ignoreReason(entry.name) !== null) continue;
      const known = this.known.get(entry.name);
      if (known) {
        const { item } = await this.describe(this.copyInFolder(entry.name, known), sites, saved, { neverMatch: true });
        const failure = this.attachFailures.get(entry.name);
        waiting.push(failure?.hash === known.hash ? { ...item, why: failure.why } : item);
        continue;
      }
      const stat = await fsp.lstat(path.join(this.folder, entry.name)).catch(() => null);
      if (!stat) continue;
      const why = this.intake?.whyWaiting(entry.name) ?? 'Just arrived: looked at in a moment.';
      waiting.push({ name: entry.name, size: stat.size, isPhoto: isPhotoName(entry.name), takenAt: null, why, candidates: [] });
    }
    return this.stateOf(waiting.sort((a, b) => a.name.localeCompare(b.name)), null, saved);
  }

  /** Tells the views, when what they show changed (or always, after a user's own action). */
  private announce(state: InboxState, always: boolean): InboxState {
    const signature = JSON.stringify([state.waiting, state.log.length, state.lastBatch]);
    if (always || signature !== this.lastSignature) {
      this.lastSignature = signature;
      this.options.onChange?.(state);
    }
    return state;
  }

  private announceIfChanged(): void {
    if (this.closed) return;
    void this.serial(async () => {
      const problem = this.problem();
      return problem ? this.stateOf([], problem) : this.listLocked(this.readState());
    })
      .then((state) => this.announce(state, false))
      .catch((error: unknown) => this.options.log?.(`Unsorted: ${(error as Error).message}`));
  }

  private problem(): string | null {
    if (!fs.existsSync(this.options.root)) {
      return `The folder root ${this.options.root} is not there (a drive not connected?): the ${INBOX_FOLDER} folder is looked at again once it is.`;
    }
    if (!this.intake) return `The project folders are not watched on this computer now (the Sync screen says why), so nothing in ${INBOX_FOLDER} is sorted.`;
    return null;
  }

  // ---- files, state, helpers ----------------------------------------------------

  /** A handed-over file, read from the inbox folder. */
  private copyInFolder(name: string, known: KnownFile): InboxCopy {
    return { name, size: known.size, hash: known.hash, read: () => fsp.readFile(path.join(this.folder, name)) };
  }

  /** A file of the inbox by name: as handed over, or (one the user chose before it settled) read and hashed now. */
  private async copyOf(name: string): Promise<InboxCopy | null> {
    const known = this.known.get(name);
    if (known) return this.copyInFolder(name, known);
    if (ignoreReason(name) !== null || name.includes('/') || name.includes(path.sep)) return null;
    const file = path.join(this.folder, name);
    const stat = await fsp.lstat(file).catch(() => null);
    if (!stat?.isFile()) return null;
    const bytes = await fsp.readFile(file);
    const hash = createHash('sha256').update(bytes).digest('hex');
    this.known.set(name, { ...identityOf(stat), hash });
    return this.copyInFolder(name, { ...identityOf(stat), hash });
  }

  private exifOf(file: InboxCopy) {
    return this.cache.of(file.hash, () => file.read());
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => {});
    return next;
  }

  private now(): string {
    return (this.options.now?.() ?? new Date()).toISOString();
  }

  private stateOf(waiting: InboxItem[], problem: string | null, saved: SavedState = this.readState()): InboxState {
    return { folder: this.folder, waiting, log: saved.entries, lastBatch: saved.lastBatch, problem };
  }

  private readState(): SavedState {
    try {
      const parsed = JSON.parse(fs.readFileSync(this.stateFile, 'utf8')) as Partial<SavedState>;
      return { entries: Array.isArray(parsed.entries) ? parsed.entries : [], returned: Array.isArray(parsed.returned) ? parsed.returned : [], lastBatch: parsed.lastBatch ?? null };
    } catch {
      return { entries: [], returned: [], lastBatch: null };
    }
  }

  private writeState(state: SavedState): void {
    state.entries = state.entries.slice(0, LOG_LIMIT);
    fs.mkdirSync(path.dirname(this.stateFile), { recursive: true });
    const temp = `${this.stateFile}.${process.pid}.tmp`;
    fs.writeFileSync(temp, `${JSON.stringify(state, null, 1)}\n`);
    fs.renameSync(temp, this.stateFile);
  }

  private async bytesOf(entry: InboxEntry): Promise<Uint8Array> {
    const local = await localBlob(this.options.fileRoot, entry.fileHash);
    if (local) return local;
    throw new BridgeError(`The contents of ${entry.name} are not on this computer any more, so it cannot go back to ${INBOX_FOLDER}. It stays attached to ${entry.projectTitle}.`);
  }

  private async projectTitle(projectId: number): Promise<string> {
    const project = await this.options.callApi({ method: 'GET', path: apiPaths.project(this.options.orgId, projectId) });
    if (project.status !== 200) throw new BridgeError(`Project ${projectId} cannot be chosen: ${describeApiError(project)}`, { status: project.status });
    const body = project.body as { title?: string; identifier?: string };
    return body.title || body.identifier || `Project ${projectId}`;
  }
}

// The inbox folder (issue 17): `<workspace's folder root>/Unsorted` takes a whole
// camera dump. Each photo whose GPS position lies within PHOTO_SITE_MATCH_M of exactly
// one project's site is attached to that project; everything else waits there, listed
// in the app with the nearest sites to choose from. Nothing is guessed silently: each
// attachment is logged (a pass's batch reads "Attached 14 photos from Unsorted: 9 to
// ..."), and each can be undone.
//
// Attaching goes through the local API, as the app's own uploads do (so sync sends
// it when signed in), and the original leaves the inbox; the watcher then places the
// file in its project's folder like any file attached in the app (an arrival). Undo
// writes the bytes back into the inbox (from the local blob, never fetched) and
// deletes the private file through the API (the watcher moves its folder copy to
// .solardesk/trash/, as for any file deleted elsewhere); a file put back by Undo waits
// for a choice and is not matched again by itself.
//
// The watcher never looks into the inbox (it is one of its foreign folders,
// main/core/folder-session.ts); this module is its only reader.
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
import { describeApiError, type RawApiRequest } from './local-api.ts';
import { uploadFile } from './file-transfers.ts';
import { isPhotoName } from './photo-exif.ts';
import { localBlob, nearestSites, PhotoExifCache, type ProjectSite, projectSites, sitesInRange } from './photo-places.ts';

type CallApi = (request: RawApiRequest) => Promise<ApiResponse>;

/** How many log entries are kept (newest first). */
const LOG_LIMIT = 500;
/** The inbox's own record, beside the watcher's in the hidden .solardesk folder. */
const STATE_FILE = 'inbox.json';

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
  /** A file changed within this long is still being copied: looked at on a later pass (default 2 s). */
  stableMs?: number;
  now?: () => Date;
  /** After a pass that changed something (attached, or the list of waiting files). */
  onChange?: (state: InboxState) => void;
  log?: (line: string) => void;
}

interface FileOnDisk {
  name: string;
  size: number;
  hash: string;
  /** The bytes, read again only when needed (EXIF not cached yet, an attach). */
  read(): Promise<Buffer>;
}

export class PhotoInbox {
  readonly folder: string;
  private readonly stateFile: string;
  private readonly cache: PhotoExifCache;
  private queue: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;
  private lastSignature = '';
  /** Hashes of the files seen, by name, size, mtime and inode: a waiting camera dump is not read again every pass. */
  private readonly hashes = new Map<string, string>();
  private closed = false;

  constructor(private readonly options: PhotoInboxOptions) {
    this.folder = path.join(options.root, INBOX_FOLDER);
    this.stateFile = path.join(options.root, AGENT_FOLDER, STATE_FILE);
    this.cache = new PhotoExifCache(options.db);
  }

  /** Looks at the inbox every `intervalMs` (a camera dump arrives over seconds to minutes). */
  start(intervalMs = 2000): void {
    const tick = () => {
      if (this.closed) return;
      void this.scan()
        .catch((error: unknown) => this.options.log?.(`Unsorted: ${(error as Error).message}`))
        .finally(() => {
          if (!this.closed) this.timer = setTimeout(tick, intervalMs);
        });
    };
    this.timer = setTimeout(tick, 0);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.queue.catch(() => {});
  }

  /** One pass: attaches what matches exactly one site, and answers the state. */
  scan(): Promise<InboxState> {
    return this.serial(async () => {
      const problem = this.rootProblem();
      if (problem) return this.stateOf([], problem);
      await fsp.mkdir(this.folder, { recursive: true });
      const saved = this.readState();
      const sites = await projectSites(this.options.db, this.options.orgId);
      const waiting: InboxItem[] = [];
      const batch = randomUUID();
      const attached: InboxEntry[] = [];
      for (const file of await this.readFiles({ arriving: waiting })) {
        const item = await this.describe(file, sites, saved);
        if (item.match) {
          try {
            attached.push(await this.attachFile(file, item.match, 'matched', batch, saved));
          } catch (error) {
            // Refused (no permission, quota, the project went away): it waits, saying why.
            waiting.push({ ...item.item, why: `Could not attach it to ${item.match.title}: ${(error as Error).message}`, candidates: item.item.candidates });
          }
        } else {
          waiting.push(item.item);
        }
      }
      if (attached.length > 0) {
        saved.lastBatch = { at: this.now(), text: describeBatch(attached) };
        this.options.log?.(saved.lastBatch.text);
      }
      if (attached.length > 0) this.writeState(saved);
      const state = this.stateOf(waiting.sort((a, b) => a.name.localeCompare(b.name)), null, saved);
      const signature = JSON.stringify([state.waiting, state.log.length, state.lastBatch]);
      if (signature !== this.lastSignature) {
        this.lastSignature = signature;
        this.options.onChange?.(state);
      }
      return state;
    });
  }

  /** The user's choice for a waiting file: attached to that project. */
  attach(name: string, projectId: number): Promise<InboxState> {
    return this.serial(async () => {
      const problem = this.rootProblem();
      if (problem) throw new BridgeError(problem);
      const file = (await this.readFiles({ includeUnstable: true })).find((candidate) => candidate.name === name);
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
    }).then((state) => this.announce(state));
  }

  /** Undo of one attachment: the file is back in the inbox and its private file is deleted through the API. */
  undo(entryId: string): Promise<InboxState> {
    return this.serial(async () => {
      const saved = this.readState();
      const entry = saved.entries.find((candidate) => candidate.id === entryId);
      if (!entry) throw new BridgeError('That attachment is not in the inbox log any more.', { status: 404 });
      if (entry.undoneAt) return this.listLocked(saved);
      const problem = this.rootProblem();
      if (problem) throw new BridgeError(problem);
      const bytes = await this.bytesOf(entry);
      await fsp.mkdir(this.folder, { recursive: true });
      // Back first, deleted after: whatever fails between, the photo is never only in neither place.
      await saveDownload(this.options.root, this.folder, entry.name, bytes);
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
    }).then((state) => this.announce(state));
  }

  /** The waiting files and the log, without attaching anything. */
  list(): Promise<InboxState> {
    return this.serial(async () => {
      const problem = this.rootProblem();
      if (problem) return this.stateOf([], problem);
      return this.listLocked(this.readState());
    });
  }

  private announce(state: InboxState): InboxState {
    this.lastSignature = JSON.stringify([state.waiting, state.log.length, state.lastBatch]);
    this.options.onChange?.(state);
    return state;
  }

  private async listLocked(saved: SavedState): Promise<InboxState> {
    const sites = await projectSites(this.options.db, this.options.orgId);
    const waiting: InboxItem[] = [];
    for (const file of await this.readFiles({ includeUnstable: true })) waiting.push((await this.describe(file, sites, saved, { neverMatch: true })).item);
    return this.stateOf(waiting.sort((a, b) => a.name.localeCompare(b.name)), null, saved);
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => {});
    return next;
  }

  private now(): string {
    return (this.options.now?.() ?? new Date()).toISOString();
  }

  private rootProblem(): string | null {
    if (!fs.existsSync(this.options.root)) {
      return `The folder root ${this.options.root} is not there (a drive not connected?): the ${INBOX_FOLDER} folder is looked at again once it is.`;
    }
    return null;
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

  /** Files directly in the inbox, complete (not changed within the stability window), ignored names left out. */
  private async readFiles(options: { includeUnstable?: boolean; arriving?: InboxItem[] } = {}): Promise<FileOnDisk[]> {
    let names: fs.Dirent[];
    try {
      names = await fsp.readdir(this.folder, { withFileTypes: true });
    } catch {
      return [];
    }
    const stableBefore = Date.now() - (this.options.stableMs ?? 2000);
    const files: FileOnDisk[] = [];
    for (const entry of names.sort((a, b) => a.name.localeCompare(b.name))) {
      if (!entry.isFile() || ignoreReason(entry.name) !== null) continue;
      const full = path.join(this.folder, entry.name);
      const stat = await fsp.lstat(full).catch(() => null);
      if (!stat?.isFile()) continue;
      if (!options.includeUnstable && stat.mtimeMs > stableBefore) {
        // Still being copied (or just put back): listed, looked at once it has not changed for a moment.
        options.arriving?.push({ name: entry.name, size: stat.size, isPhoto: isPhotoName(entry.name), takenAt: null, why: 'Just arrived: looked at in a moment.', candidates: [] });
        continue;
      }
      const key = `${entry.name}\0${stat.size}\0${stat.mtimeMs}\0${stat.ino}`;
      let hash = this.hashes.get(key);
      if (!hash) {
        const bytes = await fsp.readFile(full).catch(() => null);
        if (!bytes) continue;
        hash = createHash('sha256').update(bytes).digest('hex');
        this.hashes.set(key, hash);
      }
      files.push({ name: entry.name, size: stat.size, hash, read: () => fsp.readFile(full) });
    }
    return files;
  }

  private exifOf(file: FileOnDisk) {
    return this.cache.of(file.hash, () => file.read());
  }

  /** Why a file waits (or the one site it matches), and its nearest candidates. */
  private async describe(
    file: FileOnDisk,
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
    file: FileOnDisk,
    project: { projectId: number; title: string; distanceM: number | null },
    how: InboxEntry['how'],
    batch: string,
    saved: SavedState,
  ): Promise<InboxEntry> {
    const bytes = await file.read();
    if (createHash('sha256').update(bytes).digest('hex') !== file.hash) throw new BridgeError(`${file.name} changed while it was looked at: it is looked at again on the next pass.`);
    const response = await uploadFile(
      this.options.callApi,
      this.options.orgId,
      { uploadId: `inbox-${randomUUID()}`, projectId: project.projectId, fileName: file.name, bytes },
      () => {},
    );
    const fileId = (response.body as { id: number }).id;
    // The original leaves the inbox once attached, unless it changed meanwhile (then it is a new file, looked at again).
    const now = await fsp.readFile(path.join(this.folder, file.name)).catch(() => null);
    if (now && createHash('sha256').update(now).digest('hex') === file.hash) await fsp.rm(path.join(this.folder, file.name), { force: true });
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

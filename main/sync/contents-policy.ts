// Files on demand (issue 15): every private file's record is synced, but its bytes
// are kept on this computer only for the projects that matter to this user: where
// they hold a role, that they pinned, that they opened recently; and for a file
// someone here fetched on demand, for as long. Everything else stays on the remote
// until it is opened. docs/sync.md "Files on demand".
//
// What it keeps lives in the replica's sync_state (one key per fact, no table of its
// own): `contents_pin:<project>`, `contents_opened:<project>` (when, ISO),
// `contents_fetched:<file>` (when the user fetched it), `contents_made_here:<sha256>`
// (when contents were made on this computer: by hash, so no re-key or adoption of a
// racing remote copy loses it) and `contents_link:<file>`
// ({url, expires_at}: the remote's signed `file_contents` link as last listed, so a
// fetch within its hour costs no detail GET, service.md 8).
import fs from 'node:fs';
import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../engine/clock.ts';
import type { Database } from '../engine/store/tables.ts';
import type { EngineContext } from '../engine/context.ts';
import type { ChangeCapture } from '../engine/changes/tracked-write.ts';
import { blobPath, evictBlob } from '../engine/files/blob-store.ts';
import { ROLE_REFERENCE_FIELDS } from '../../shared/project-fields.ts';
import type { FileContentsJson, ProjectContentsJson } from '../../shared/schemas/contents.ts';
import { hasNoQueuedChange } from './outbox.ts';
import { NO_PROJECT_FOLDERS, type ProjectFolderRecords } from './folder-records.ts';
import { PROVISIONAL_ID_FLOOR } from './sync-models.ts';

type Db = Kysely<Database> | Transaction<Database>;

export const PIN_KEY = 'contents_pin:';
export const OPENED_KEY = 'contents_opened:';
export const FETCHED_KEY = 'contents_fetched:';
export const LINK_KEY = 'contents_link:';
export const MADE_HERE_KEY = 'contents_made_here:';

/**
 * A file made or changed here (dropped into a folder, uploaded or edited in the app) is
 * kept this long whatever `openedDays` says (0 included): a file someone just put in a
 * folder stays in it once it has gone up (docs/agent.md, "Files on demand").
 */
export const MADE_HERE_KEEP_DAYS = 14;

/** A signed link is used only while at least this much of its hour is left (a slow start must not meet an expired link). */
export const LINK_MARGIN_MS = 2 * 60_000;
/** service.md 8: `file_contents` links expire after one hour. */
export const LINK_LIFETIME_MS = 60 * 60_000;

export interface ContentsPolicyOptions {
  /** Keep the files of projects where this user holds a role (assigned, installer, site inspector, designer, salesperson). Default true. */
  roles?: boolean;
  /** Keep the files of projects opened in the last N days (and files fetched on demand as long). Default 14; 0: none. */
  openedDays?: number;
  /** Keep every project's files (the behaviour before issue 15). Default false. */
  everything?: boolean;
}

export const DEFAULT_CONTENTS_POLICY: Required<ContentsPolicyOptions> = { roles: true, openedDays: 14, everything: false };

export type KeptReason = 'role' | 'pinned' | 'opened';

/** What is kept here: by project (with why), and single files fetched on demand. Null project set: everything. */
export interface KeptContents {
  projects: Map<number, KeptReason[]> | null;
  files: Set<number>;
}

export interface ContentsLink {
  url: string;
  /** ISO time after which the link is not used. */
  expires_at: string;
}

const DAY_MS = 86_400_000;
/** Replica blobs of files no longer kept are looked for at most this often (and after each pin change or open). */
const EVICTION_INTERVAL_MS = 10 * 60_000;

/** Remembers the `file_contents` link of a file the remote just listed or answered, for an hour (less the margin). */
export async function rememberContentsLink(trx: Db, fileId: number, url: unknown, now: Date): Promise<void> {
  if (typeof url !== 'string' || !/^https?:\/\//.test(url)) return;
  let expires = now.getTime() + LINK_LIFETIME_MS;
  // A SolarDesk link names its own expiry (unix seconds); the hosted service's does not, and lasts the documented hour.
  const named = Number(new URL(url).searchParams.get('expires'));
  if (Number.isFinite(named) && named > 0) expires = Math.min(expires, named * 1000);
  const value = JSON.stringify({ url, expires_at: new Date(expires).toISOString() } satisfies ContentsLink);
  await trx
    .insertInto('sync_state')
    .values({ key: `${LINK_KEY}${fileId}`, value })
    .onConflict((conflict) => conflict.column('key').doUpdateSet({ value }))
    .execute();
}

/** Moves what the policy keeps of a project made here (its pin, when it was opened) to its remote id (record-ids.ts rekey). */
export const rekeyProjectContentsState = (trx: Db, from: number, to: number) => moveKeptState(trx, [PIN_KEY, OPENED_KEY], from, to);

/** Moves what the policy keeps of a file made here (when it was fetched, its link) to its remote id (record-ids.ts rekey). */
export const rekeyFileContentsState = (trx: Db, from: number, to: number) => moveKeptState(trx, [FETCHED_KEY, LINK_KEY], from, to);

async function moveKeptState(trx: Db, prefixes: readonly string[], from: number, to: number): Promise<void> {
  for (const prefix of prefixes) {
    const kept = await trx.selectFrom('sync_state').select('key').where('key', '=', `${prefix}${from}`).executeTakeFirst();
    if (!kept) continue; // nothing kept under the old id: what the new id has (a pulled copy's link) stays
    // A pulled copy may hold state under the new id already: the local record takes its place, as in rekey.
    await trx.deleteFrom('sync_state').where('key', '=', `${prefix}${to}`).execute();
    await trx.updateTable('sync_state').set({ key: `${prefix}${to}` }).where('key', '=', `${prefix}${from}`).execute();
  }
}

/**
 * Keeps every file made or changed here (any local write of a private file) for
 * MADE_HERE_KEEP_DAYS, recorded in the write's own transaction by the contents' hash:
 * the file made offline may be re-keyed, or its racing remote copy adopted in its
 * place, and the keep follows the bytes either way.
 */
export function createMadeHereCapture(clock: Clock): ChangeCapture {
  return {
    phase: 'deliver',
    async capture(trx, _orgId, changes) {
      const value = clock.now().toISOString();
      for (const change of changes) {
        const hash = change.model === 'private_file' ? (change.after as { file_hash?: unknown } | null)?.file_hash : undefined;
        if (typeof hash !== 'string') continue;
        await trx
          .insertInto('sync_state')
          .values({ key: `${MADE_HERE_KEY}${hash}`, value })
          .onConflict((conflict) => conflict.column('key').doUpdateSet({ value }))
          .execute();
      }
    },
  };
}

export class ContentsPolicy {
  readonly options: Required<ContentsPolicyOptions>;
  private lastEvictionAt = 0;
  private evictionWanted = true;
  /** Something the policy keeps changed (a pin, an open): the folders should follow. */
  onChange: () => void = () => {};

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly orgId: number,
    private readonly userId: number,
    options: ContentsPolicyOptions = {},
    /** The project folders' records (main/sync/folder-records.ts): a blob a folder copy maps stays. */
    private readonly folderRecords: ProjectFolderRecords = NO_PROJECT_FOLDERS,
  ) {
    this.options = { ...DEFAULT_CONTENTS_POLICY, ...options };
  }

  private now(): Date {
    return this.clock.now();
  }

  private async idsUnder(prefix: string, since?: Date): Promise<Map<number, string>> {
    const rows = await this.db.selectFrom('sync_state').select(['key', 'value']).where('key', 'like', `${prefix}%`).execute();
    const found = new Map<number, string>();
    for (const row of rows) {
      const id = Number(row.key.slice(prefix.length));
      if (!Number.isSafeInteger(id)) continue;
      if (since && !(row.value >= since.toISOString())) continue;
      found.set(id, row.value);
    }
    return found;
  }

  private openedSince(): Date | null {
    return this.options.openedDays > 0 ? new Date(this.now().getTime() - this.options.openedDays * DAY_MS) : null;
  }

  /** The files whose contents were made here within MADE_HERE_KEEP_DAYS (whatever id they have now). */
  private async filesMadeHere(): Promise<number[]> {
    const since = this.madeHereSince().toISOString();
    const rows = await this.db.selectFrom('sync_state').select(['key', 'value']).where('key', 'like', `${MADE_HERE_KEY}%`).execute();
    const hashes = rows.filter((row) => row.value >= since).map((row) => row.key.slice(MADE_HERE_KEY.length));
    const ids: number[] = [];
    for (let start = 0; start < hashes.length; start += 500) {
      const chunk = hashes.slice(start, start + 500);
      const files = await this.db.selectFrom('private_files').select('id').where('org_id', '=', this.orgId).where('file_hash', 'in', chunk).execute();
      ids.push(...files.map((file) => file.id));
    }
    return ids;
  }

  private madeHereSince(): Date {
    return new Date(this.now().getTime() - MADE_HERE_KEEP_DAYS * DAY_MS);
  }

  /** The projects (and single files) whose contents are kept on this computer. */
  async kept(): Promise<KeptContents> {
    const since = this.openedSince();
    const files = since ? new Set((await this.idsUnder(FETCHED_KEY, since)).keys()) : new Set<number>();
    for (const id of await this.filesMadeHere()) files.add(id);
    if (this.options.everything) return { projects: null, files };
    const projects = new Map<number, KeptReason[]>();
    const add = (id: number, reason: KeptReason) => projects.set(id, [...(projects.get(id) ?? []), reason]);
    if (this.options.roles) {
      const roleIds = (await this.db.selectFrom('roles').select('id').where('org_id', '=', this.orgId).where('user_id', '=', this.userId).execute()).map((row) => row.id);
      if (roleIds.length > 0) {
        const rows = await this.db
          .selectFrom('projects')
          .select('id')
          .where('org_id', '=', this.orgId)
          .where((eb) => eb.or(ROLE_REFERENCE_FIELDS.map((field) => eb(`${field}_id`, 'in', roleIds))))
          .execute();
        for (const row of rows) add(row.id, 'role');
      }
    }
    for (const id of (await this.idsUnder(PIN_KEY)).keys()) add(id, 'pinned');
    if (since) for (const id of (await this.idsUnder(OPENED_KEY, since)).keys()) add(id, 'opened');
    return { projects, files };
  }

  /** Why a project's contents are kept here (empty: they stay on the remote until opened). */
  async reasonsFor(projectId: number): Promise<KeptReason[] | 'everything'> {
    const kept = await this.kept();
    return kept.projects === null ? 'everything' : (kept.projects.get(projectId) ?? []);
  }

  async isPinned(projectId: number): Promise<boolean> {
    return (await this.db.selectFrom('sync_state').select('key').where('key', '=', `${PIN_KEY}${projectId}`).executeTakeFirst()) !== undefined;
  }

  async setPinned(projectId: number, pinned: boolean): Promise<void> {
    const key = `${PIN_KEY}${projectId}`;
    if (!pinned) {
      await this.db.deleteFrom('sync_state').where('key', '=', key).execute();
      this.changed();
      return;
    }
    await this.db.insertInto('sync_state').values({ key, value: this.now().toISOString() }).onConflict((conflict) => conflict.column('key').doNothing()).execute();
    this.changed();
  }

  private changed(): void {
    this.evictionWanted = true;
    this.onChange();
  }

  /** The user opened the project in the app: its contents are kept for `openedDays`. */
  async recordOpen(projectId: number): Promise<void> {
    await this.touch(`${OPENED_KEY}${projectId}`);
    this.changed();
  }

  /** The user fetched one file on demand: its contents are kept as long as an opened project's. */
  async recordFetched(fileId: number): Promise<void> {
    await this.touch(`${FETCHED_KEY}${fileId}`);
  }

  private async touch(key: string): Promise<void> {
    const value = this.now().toISOString();
    await this.db.insertInto('sync_state').values({ key, value }).onConflict((conflict) => conflict.column('key').doUpdateSet({ value })).execute();
  }

  /** The file's signed link while it is still good for LINK_MARGIN_MS, else null. */
  async freshLink(fileId: number): Promise<ContentsLink | null> {
    const row = await this.db.selectFrom('sync_state').select('value').where('key', '=', `${LINK_KEY}${fileId}`).executeTakeFirst();
    if (!row) return null;
    try {
      const link = JSON.parse(row.value) as ContentsLink;
      return Date.parse(link.expires_at) - LINK_MARGIN_MS > this.now().getTime() ? link : null;
    } catch {
      return null;
    }
  }

  /** The link is no good (the remote refused it): the next fetch asks for a new one. */
  async forgetLink(fileId: number): Promise<void> {
    await this.db.deleteFrom('sync_state').where('key', '=', `${LINK_KEY}${fileId}`).execute();
  }

  /** Drops opens and fetches older than the window and links past their hour, so sync_state stays small. */
  async prune(): Promise<void> {
    const since = this.openedSince() ?? this.now();
    for (const prefix of [OPENED_KEY, FETCHED_KEY]) {
      await this.db.deleteFrom('sync_state').where('key', 'like', `${prefix}%`).where('value', '<', since.toISOString()).execute();
    }
    await this.db.deleteFrom('sync_state').where('key', 'like', `${MADE_HERE_KEY}%`).where('value', '<', this.madeHereSince().toISOString()).execute();
    const links = await this.db.selectFrom('sync_state').select(['key', 'value']).where('key', 'like', `${LINK_KEY}%`).execute();
    const now = this.now().getTime();
    const stale = links.filter((row) => {
      try {
        return Date.parse((JSON.parse(row.value) as ContentsLink).expires_at) <= now;
      } catch {
        return true;
      }
    });
    for (const row of stale) await this.db.deleteFrom('sync_state').where('key', '=', row.key).execute();
  }

  /** What the Files tab shows of a project: kept or not and why, and each file's contents, here or on the remote. */
  async projectContents(engine: EngineContext, projectId: number): Promise<ProjectContentsJson> {
    const kept = await this.kept();
    const reasons = kept.projects === null ? (['everything'] as const) : (kept.projects.get(projectId) ?? []);
    const files = await this.db.selectFrom('private_files').select(['id', 'file_hash']).where('org_id', '=', this.orgId).where('project_id', '=', projectId).orderBy('id').execute();
    return {
      project_id: projectId,
      kept: reasons.length > 0,
      reasons: [...reasons],
      pinned: await this.isPinned(projectId),
      opened_days: this.options.openedDays,
      files: await Promise.all(files.map((file) => this.fileContents(engine, file))),
    };
  }

  async fileContents(engine: EngineContext, file: { id: number; file_hash: string | null }): Promise<FileContentsJson> {
    const here = file.file_hash === null || fs.existsSync(blobPath(engine.store.fileRoot, file.file_hash));
    const link = here ? null : await this.freshLink(file.id);
    // Until when the agent will still use it (it stops LINK_MARGIN_MS before the link's own end).
    return { id: file.id, here, link_expires_at: link ? new Date(Date.parse(link.expires_at) - LINK_MARGIN_MS).toISOString() : null };
  }

  /**
   * Removes replica blobs of files whose contents are no longer kept here, but only
   * where the remote has the same bytes: every file naming the blob is a synced one
   * (not made offline), not kept, with nothing waiting in the outbox (no change, no
   * hold) and no folder copy still mapped to it, and no kept earlier version names it. Looked at after sync cycles, at most
   * every EVICTION_INTERVAL_MS unless the policy changed. Returns how many were removed.
   */
  async evictIfDue(engine: EngineContext): Promise<number> {
    const now = this.now().getTime();
    if (!this.evictionWanted && now - this.lastEvictionAt < EVICTION_INTERVAL_MS) return 0;
    this.evictionWanted = false;
    this.lastEvictionAt = now;
    await this.prune();
    const kept = await this.kept();
    if (kept.projects === null) return 0;
    const keptProjects = [...kept.projects.keys()];
    const keptFiles = [...kept.files];
    const evictable = async (db: Kysely<Database>, hash: string) => {
      const blocking = await db
        .selectFrom('private_files')
        .select('id')
        .where('file_hash', '=', hash)
        .where((builder) =>
          builder.or([
            builder('id', '>=', PROVISIONAL_ID_FLOOR),
            ...(keptProjects.length > 0 ? [builder('project_id', 'in', keptProjects)] : []),
            ...(keptFiles.length > 0 ? [builder('id', 'in', keptFiles)] : []),
            builder.not(hasNoQueuedChange(builder)),
          ]),
        )
        .limit(1)
        .executeTakeFirst();
      if (blocking) return false;
      // A folder copy still mapped (the watcher has not evicted it yet, or may not: open in an editor): its blob stays with it.
      const namers = await db.selectFrom('private_files').select('id').where('file_hash', '=', hash).execute();
      return (await this.folderRecords.filesInProjectFolders(db, namers.map((namer) => namer.id))).size === 0;
    };
    const hashes = await this.db
      .selectFrom('private_files')
      .select('file_hash')
      .distinct()
      .where('org_id', '=', this.orgId)
      .where('file_hash', 'is not', null)
      .where('id', '<', PROVISIONAL_ID_FLOOR)
      .$if(keptProjects.length > 0, (query) => query.where((builder) => builder.or([builder('project_id', 'is', null), builder('project_id', 'not in', keptProjects)])))
      .$if(keptFiles.length > 0, (query) => query.where('id', 'not in', keptFiles))
      .where((builder) => hasNoQueuedChange(builder))
      .execute();
    let evicted = 0;
    for (const { file_hash: hash } of hashes) {
      if (!hash || !fs.existsSync(blobPath(engine.store.fileRoot, hash))) continue;
      const removed = await evictBlob(engine, hash, async () => {
        if (!(await evictable(this.db, hash))) return false;
        const version = await this.db.selectFrom('private_file_versions').select('id').where('file_hash', '=', hash).limit(1).executeTakeFirst();
        return version === undefined;
      });
      if (removed) evicted++;
    }
    return evicted;
  }
}

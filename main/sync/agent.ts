// The sync agent: the engine on a local SQLite replica of one org of a remote
// service, its API on 127.0.0.1, and the sync engine between the two. The desktop
// app runs the same agent inside Electron; `solardesk agent` runs it headless.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { createEngine, type Engine } from '../engine/engine.ts';
import type { EngineContext } from '../engine/context.ts';
import { addChangeCapture } from '../engine/changes/tracked-write.ts';
import { type Clock, nowIso, systemClock } from '../engine/clock.ts';
import { BandwidthLimiter } from './bandwidth-limiter.ts';
import { removeUnneededDownloadParts } from './download-parts.ts';
import type { TransferCaps } from '../../shared/transfer-caps.ts';
import { checkToken, issueToken } from '../engine/auth/accounts.ts';
import type { FolderStatus } from '../../shared/schemas/folder.ts';
import { UnreadableRecords } from './remote-records.ts';
import { hashPassword } from '../engine/auth/passwords.ts';
import { DEFAULT_THROTTLE_RATES, type ThrottleRates } from '../../shared/throttle-rates.ts';
import { isApiPlan } from '../../shared/plans.ts';
import { apiPaths } from '../../shared/api-paths.ts';
import { type AllowanceWait, QuotaPacer } from './quota-pacer.ts';
import type { SyncedModel } from './sync-models.ts';
import { RemoteClient, signInToRemote } from './remote-client.ts';
import { createOutboxCapture } from './outbox.ts';
import { viewOf } from './models/index.ts';
import { SyncEngine, type SyncState } from './sync-engine.ts';
import { FeedPull } from './feed-pull.ts';
import { registerSyncRoutes } from './sync-routes.ts';
import { ForegroundActivity } from './give-way.ts';
import { DEFAULT_RETRY_SCHEDULE, DEFAULT_UPLOAD_SETTINGS, type RetrySchedule, type SyncContext } from './sync-context.ts';
import { reserveProvisionalIds } from './record-ids.ts';
import { type DataFolderLock, lockDataFolder } from '../engine/store/data-folder-lock.ts';
import { PRIVATE_FILE_MODE } from '../engine/store/private-files.ts';
import { ContentsPolicy, createMadeHereCapture, type ContentsPolicyOptions } from './contents-policy.ts';
import { NO_PROJECT_FOLDERS, type ProjectFolderRecords } from './folder-records.ts';
import { type DownloadReporter, type LinkRules, fetchBlobFromRemote, fetchVersionFromRemote } from './remote-contents.ts';

/**
 * What the agent needs of the project folders watcher (main/watch/). Sync does not
 * import the watcher: the host composes it (main/core/agent-folders.ts) and hands
 * the agent a way to make one.
 */
export interface AgentFolders {
  start(): Promise<void>;
  close(): Promise<void>;
  /**
   * A sync cycle ended, or sync's routes changed what the folders hold: check folders
   * and arrivals soon. (The folders hear of local writes on the engine's change feed.)
   */
  requestReconcile(): void;
  reportUploadProgress(fileId: number, progress: { sent: number; total: number } | null): void;
  /** What GET .../sync/folder/ answers. */
  status(): Promise<FolderStatus>;
  /** Tries again now a download into a folder that failed (listed by status() as `downloading`, with why); false when none failed for the file. */
  retryDownload(fileId: number): boolean;
}

/** What the agent gives the folders it is handed: its engine, org, user and log. */
export interface AgentFolderWiring {
  engine: EngineContext;
  orgId: number;
  userId: number;
  log: (line: string) => void;
  /** A file's deletion is now held for the user: the sync status (pending, held) changed. */
  onDeleteHeld: () => void;
  /** Files on demand: which projects' (and files') contents are kept here; only those are written into folders. */
  contents: ContentsPolicy;
}

export interface AgentOptions<Folders extends AgentFolders = AgentFolders> {
  dataDir: string;
  remote?: string;
  username?: string;
  password?: string;
  orgId?: number;
  localApiPort?: number;
  pollIntervalSeconds?: number;
  clock?: Clock;
  /** One line per event worth telling a person (state changes, the local API address). */
  log?: (line: string) => void;
  retry?: RetrySchedule;
  offlineRetryMs?: number;
  /** The remote's quotas, for pacing (default: the documented table). */
  remoteRates?: ThrottleRates;
  /** The share of each org-wide quota background sync may spend (default DEFAULT_BACKGROUND_SHARE, 2 %; docs/sync.md "Budget"). */
  backgroundShare?: number;
  /** Where the remote token is kept (default: DIR/remote-token, mode 0600; the desktop passes Electron's safeStorage). */
  remoteTokenStore?: SecretStore;
  /** Keep one folder per project (main/watch/, docs/project-folders.md): makes the watcher, e.g. main/core/agent-folders.ts's watchProjectFolders. */
  folders?: (wiring: AgentFolderWiring) => Folders;
  /**
   * The project folders' tables as sync needs them (the watcher's, main/core/agent-folders.ts's
   * projectFolderRecords): the host passes them whenever folders may exist in the data
   * folder, with or without a watcher running now. Default: no folders.
   */
  folderRecords?: ProjectFolderRecords;
  /** Private files above this size go up in resumable parts (default 16 MiB), of this size (default 8 MiB). */
  chunkedUploadAboveBytes?: number;
  uploadPartBytes?: number;
  /** `off` treats the remote as one that ignores If-Match, as the hosted service does (default: detect). */
  remotePreconditions?: 'detect' | 'off';
  /** `off` treats the remote as one without `PUT .../private_files/<id>/contents/`, as the hosted service is (default: detect). */
  remoteContentsReplace?: 'detect' | 'off';
  /** Records per list page when pulling (default: 100 for changes, 1000 for sweeps). */
  pullPageSize?: number;
  /** `detect` (default): listen to a SolarDesk remote's change feed when it has one (main/sync/feed-pull.ts); `off`: poll only. */
  changeFeed?: 'detect' | 'off';
  /** What this process is, for the message a second process on the same data folder prints (default "a SolarDesk agent"). */
  lockHolder?: string;
  /** Files on demand (docs/sync.md): which projects keep their files' contents here (default: roles, pins, opened in the last 14 days). */
  contents?: ContentsPolicyOptions;
  /**
   * Hosts (`host` or `host:port`) besides the remote's own origin that file links may
   * point to, as the remote's documentation names for downloads (default: none).
   * A function is asked at each download, so a changed setting holds at once.
   */
  downloadHosts?: readonly string[] | (() => readonly string[]);
  /** Where the user names download hosts, for the message of a refused link (default "--download-hosts"). */
  whereDownloadHostsAreNamed?: string;
  /** Bytes of a private file (by local id) the remote has acknowledged while it goes up; null once done or stopped (the core's activity log). */
  onUploadProgress?: (fileId: number, progress: { sent: number; total: number } | null) => void;
  /** A queued change (an upload, an edit) waits for the org's allowance, and until when: for the activity log. */
  onAllowanceWait?: (model: SyncedModel, recordId: number, wait: AllowanceWait) => void;
  /** A private file's contents coming down: bytes kept, a wait and why, the end (remote-contents.ts DownloadEvent; the core's activity log). */
  onDownload?: DownloadReporter;
  /** The user's speed caps and metered switch (shared/transfer-caps.ts), asked at each piece so a change holds at once (default: none). */
  transferCaps?: () => TransferCaps;
}

/** Somewhere to keep one secret between runs. */
export interface SecretStore {
  read(): string | null;
  write(value: string): void;
  clear(): void;
}

/** A secret in a file only its owner may read. */
export function fileSecretStore(file: string): SecretStore {
  return {
    read: () => {
      try {
        return fs.readFileSync(file, 'utf8').trim() || null;
      } catch {
        return null;
      }
    },
    write: (value) => writeSecret(file, value),
    clear: () => fs.rmSync(file, { force: true }),
  };
}

export interface Agent<Folders extends AgentFolders = AgentFolders> {
  readonly engine: Engine;
  readonly sync: SyncEngine;
  readonly context: SyncContext;
  readonly orgId: number;
  readonly localApiUrl: string;
  readonly localToken: string;
  /** The project folders watcher, when started with one. */
  readonly folders: Folders | null;
  /** The change feed listener (main/sync/feed-pull.ts); null with `changeFeed: 'off'`. */
  readonly feed: FeedPull | null;
  /** Files on demand: what is kept here, pins and opens. */
  readonly contents: ContentsPolicy;
  close(): Promise<void>;
}

interface AgentConfig {
  remote: string;
  org_id: number;
  user_id: number;
  username: string;
}

const CONFIG_FILE = 'agent.json';
export const REMOTE_TOKEN_FILE = 'remote-token';
export const LOCAL_TOKEN_FILE = 'local-api-token';

/** Nothing on the local API is throttled: it is this user's own replica. */
const UNTHROTTLED: Record<string, { user: null; org: null }> = Object.fromEntries(
  Object.keys(DEFAULT_THROTTLE_RATES).map((action) => [action, { user: null, org: null }]),
);

export class AgentSetupError extends Error {}

function writeSecret(file: string, value: string): void {
  fs.writeFileSync(file, value, { mode: PRIVATE_FILE_MODE });
  fs.chmodSync(file, PRIVATE_FILE_MODE); // also when the file already existed with looser rights
}

function readConfig(dataDir: string): AgentConfig | null {
  try {
    return JSON.parse(fs.readFileSync(path.join(dataDir, CONFIG_FILE), 'utf8')) as AgentConfig;
  } catch {
    return null;
  }
}

async function establishSession(options: AgentOptions<AgentFolders>): Promise<{ config: AgentConfig; token: string }> {
  const saved = readConfig(options.dataDir);
  const tokenStore = options.remoteTokenStore ?? fileSecretStore(path.join(options.dataDir, REMOTE_TOKEN_FILE));
  if (options.remote && options.username && options.password) {
    const remote = options.remote.replace(/\/+$/, '');
    const signedIn = await signInToRemote(remote, options.username, options.password).catch((error: Error) => {
      throw new AgentSetupError(error.message);
    });
    const orgId = options.orgId ?? signedIn.orgId;
    if (orgId === null) throw new AgentSetupError('the account belongs to no organisation; pass --org ID.');
    if (saved && (saved.remote !== remote || saved.org_id !== orgId)) {
      throw new AgentSetupError(`${options.dataDir} already holds a replica of org ${saved.org_id} on ${saved.remote}. Use another --data folder.`);
    }
    const config: AgentConfig = { remote, org_id: orgId, user_id: signedIn.userId, username: signedIn.email };
    fs.writeFileSync(path.join(options.dataDir, CONFIG_FILE), JSON.stringify(config, null, 2), { mode: PRIVATE_FILE_MODE });
    tokenStore.write(signedIn.token);
    return { config, token: signedIn.token };
  }
  if (!saved) throw new AgentSetupError('the first start needs --remote URL, --username and --password to sign in.');
  const token = tokenStore.read();
  if (!token) throw new AgentSetupError(`no saved sign-in in ${options.dataDir}; start with --remote, --username and --password.`);
  return { config: saved, token };
}

export async function startAgent<Folders extends AgentFolders = AgentFolders>(options: AgentOptions<Folders>): Promise<Agent<Folders>> {
  // Folders without their records would be re-keyed by nobody: a mistake of the host that composed the agent.
  if (options.folders && !options.folderRecords) {
    throw new Error('An agent with project folders needs their records too: pass folderRecords (main/core/agent-folders.ts, projectFolderRecords) with folders.');
  }
  // Before anything reads or writes the folder: a second agent on it would sync beside the first.
  const lock = lockDataFolder(options.dataDir, options.lockHolder ?? 'a SolarDesk agent');
  try {
    return await startLockedAgent(options, lock);
  } catch (error) {
    lock.release();
    throw error;
  }
}

async function startLockedAgent<Folders extends AgentFolders>(options: AgentOptions<Folders>, lock: DataFolderLock): Promise<Agent<Folders>> {
  const log = options.log ?? (() => {});
  const clock = options.clock ?? systemClock;
  const { config, token: remoteToken } = await establishSession(options);
  const pacer = new QuotaPacer(clock, options.remoteRates ?? DEFAULT_THROTTLE_RATES, { backgroundShare: options.backgroundShare });
  const bandwidth = new BandwidthLimiter(clock, options.transferCaps);
  const remote = new RemoteClient({ baseUrl: config.remote, token: () => remoteToken, pacer, bandwidth });
  // The sync routes are registered as the engine is built, before the sync engine that serves them exists: it is handed over once, before the local API listens.
  let syncRoutesTarget: { sync: SyncContext; engine: SyncEngine; folders: Folders | null; contents: ContentsPolicy } | null = null;
  let contents: ContentsPolicy | null = null;

  const engine = await createEngine({
    dataDir: options.dataDir,
    dataFolder: lock,
    clock,
    role: 'replica',
    deliverWebhooks: false,
    throttleRates: UNTHROTTLED,
    fetchMissingBlob: (engineContext, file, fetchOptions) => {
      if (!contents) throw new Error('a file was fetched before the agent was started');
      const links: LinkRules = {
        downloadHosts: typeof options.downloadHosts === 'function' ? options.downloadHosts() : (options.downloadHosts ?? []),
        whereHostsAreNamed: options.whereDownloadHostsAreNamed,
      };
      return fetchBlobFromRemote({ remote, orgId: config.org_id, engine: engineContext }, contents, links, file, fetchOptions, options.onDownload);
    },
    fetchMissingVersionBlob: (engineContext, file, version) => fetchVersionFromRemote({ remote, orgId: config.org_id, engine: engineContext }, file, version),
    extraOrgRoutes: (scope) =>
      registerSyncRoutes(scope, () => {
        if (!syncRoutesTarget) throw new Error('the sync routes answered before the agent was started');
        return syncRoutesTarget;
      }),
  });
  let folders: Folders | null = null;
  try {
    await ensureLocalIdentity(engine, remote, config);
    // Downloads cut off by the last stop carry on from their parts; parts no file needs any more go.
    await removeUnneededDownloadParts(engine.context.db, engine.context.store.fileRoot);
    const policy = (contents = new ContentsPolicy(engine.context.db, clock, config.org_id, config.user_id, options.contents, options.folderRecords ?? NO_PROJECT_FOLDERS));
    // A file made or changed here (dropped into a folder, uploaded or edited in the app) is kept here, whatever
    // --keep-opened-days says: a file someone just put in a folder must not leave it once it has gone up.
    addChangeCapture(engine.context, createMadeHereCapture(clock));
    // Every request of the local API (the screen's) goes before the pull's next merge (give-way.ts).
    const foreground = new ForegroundActivity();
    engine.app.addHook('onRequest', (request, _reply, done) => {
      foreground.started(request);
      done();
    });
    engine.app.addHook('onResponse', (request, _reply, done) => {
      foreground.finished(request);
      done();
    });
    engine.app.addHook('onRequestAbort', (request, done) => {
      foreground.finished(request);
      done();
    });
    const context: SyncContext = {
      engine: engine.context,
      giveWay: () => foreground.giveWay(),
      db: engine.context.db,
      clock,
      orgId: config.org_id,
      localUserId: config.user_id,
      remote,
      retry: options.retry ?? DEFAULT_RETRY_SCHEDULE,
      folderRecords: options.folderRecords ?? NO_PROJECT_FOLDERS,
      preconditions: { mode: options.remotePreconditions ?? 'detect' },
      contentsReplace: { mode: options.remoteContentsReplace ?? 'detect' },
      unreadable: new UnreadableRecords(),
      pullPageSize: options.pullPageSize,
      onAllowanceWait: options.onAllowanceWait,
      uploads: {
        chunkAboveBytes: options.chunkedUploadAboveBytes ?? DEFAULT_UPLOAD_SETTINGS.chunkAboveBytes,
        partBytes: options.uploadPartBytes ?? DEFAULT_UPLOAD_SETTINGS.partBytes,
        onProgress: (fileId, progress) => {
          folders?.reportUploadProgress(fileId, progress);
          options.onUploadProgress?.(fileId, progress);
        },
      },
    };
    const sync = new SyncEngine(context, {
      pollIntervalMs: (options.pollIntervalSeconds ?? 30) * 1000,
      offlineRetryMs: options.offlineRetryMs ?? 1000,
      onStateChange: (state: SyncState, detail) => {
        log(`sync: ${state}${detail ? ` (${detail})` : ''}`);
        // A cycle ended: pulled projects and files may need folders, renames and downloads.
        if (state === 'idle') {
          folders?.requestReconcile();
          void policy.evictIfDue(engine.context).then(
            (evicted) => evicted > 0 && log(`files on demand: ${evicted} file${evicted === 1 ? '' : 's'} no longer kept here removed (the remote keeps them)`),
            (error: Error) => log(`files on demand: eviction failed: ${error.message}`),
          );
        }
      },
    });
    // The watcher comes after sync, which it tells of each delete it holds for the user; sync reaches it through `folders`.
    folders = options.folders?.({ engine: engine.context, orgId: config.org_id, userId: config.user_id, log, onDeleteHeld: () => sync.statusChanged(), contents: policy }) ?? null;
    // A pin, an unpin or an open: the folders follow (arrivals, evictions, the "Online only" lists).
    policy.onChange = () => folders?.requestReconcile();
    // Before anything can write through the engine (the local API is not listening yet): every tracked write queues its outbox row.
    addChangeCapture(engine.context, createOutboxCapture(clock, viewOf, () => sync.wake('local_write')));
    syncRoutesTarget = { sync: context, engine: sync, folders, contents: policy };
    const localToken = await localApiToken(engine, options.dataDir, config.user_id);
    const address = await engine.listen(options.localApiPort ?? 0, '127.0.0.1');
    log(`local api on ${address}`);
    await folders?.start();
    await sync.start();
    const feed = options.changeFeed === 'off' ? null : new FeedPull(context, sync, { log });
    feed?.start();
    const startedFolders = folders;
    let closing: Promise<void> | undefined;
    return {
      engine,
      sync,
      context,
      orgId: config.org_id,
      localApiUrl: address,
      localToken,
      folders: startedFolders,
      feed,
      contents: policy,
      // Closing twice (a host and its caller both tidying up) is one close: the second waits for the first.
      close() {
        closing ??= (async () => {
          // Whatever the agent waits for (a slow answer, a Retry-After, a download) ends now.
          remote.stop();
          await feed?.stop();
          await startedFolders?.close();
          await sync.stop();
          await engine.close();
          lock.release();
        })();
        return closing;
      },
    };
  } catch (error) {
    await folders?.close();
    await engine.close();
    throw error;
  }
}

/** The local org, user and role the local API needs, made once from what the remote says. */
async function ensureLocalIdentity(engine: Engine, remote: RemoteClient, config: AgentConfig): Promise<void> {
  const { db } = engine.context;
  const org = await db.selectFrom('orgs').select('id').where('id', '=', config.org_id).executeTakeFirst();
  if (!org) {
    const answer = await remote.request({ method: 'GET', path: apiPaths.org(config.org_id), action: 'default' });
    if (answer.kind !== 'ok') {
      throw new AgentSetupError(`the first start must reach the remote to read org ${config.org_id}: ${(answer as { message: string }).message}`);
    }
    const plan = typeof answer.body.api_plan === 'string' && isApiPlan(answer.body.api_plan) ? answer.body.api_plan : 'raw_data_api_access';
    await db
      .insertInto('orgs')
      .values({ id: config.org_id, name: String(answer.body.name ?? `Org ${config.org_id}`), api_plan: plan, plan_starts_on: '2000-01-01', plan_ends_on: null, plan_is_trial: 0, created_date: nowIso(engine.context.clock) })
      .execute();
  }
  const user = await db.selectFrom('users').select('id').where('id', '=', config.user_id).executeTakeFirst();
  if (!user) {
    await db
      .insertInto('users')
      .values({
        id: config.user_id,
        email: config.username,
        // Nobody signs in to the replica with a password; the local API token is the way in.
        password_hash: await hashPassword(randomBytes(24).toString('base64url')),
        first_name: '',
        family_name: '',
        phone: '',
        is_machine_user: 1,
        is_staff: 0,
        created_date: nowIso(engine.context.clock),
      })
      .execute();
  }
  await db.transaction().execute((trx) => reserveProvisionalIds(trx));
  const role = await db.selectFrom('roles').select('id').where('org_id', '=', config.org_id).where('user_id', '=', config.user_id).executeTakeFirst();
  if (!role) {
    const now = nowIso(engine.context.clock);
    await db
      .insertInto('roles')
      .values({
        org_id: config.org_id, user_id: config.user_id, email: config.username, first_name: '', family_name: '', job_title: '', accreditation: '', phone: '',
        is_admin: 1, is_hidden: 0, allow_email_notifications: 0, has_logged_in: 1, external_calendar_id: null, schedule_meeting_url: '', schedule_meeting_label: '',
        is_pro: 1, sees_all_projects: 1, can_access_all_files: 1, can_export_projects: 1, created_date: now, modified_date: now,
      })
      .execute();
  }
}

async function localApiToken(engine: Engine, dataDir: string, userId: number): Promise<string> {
  const file = path.join(dataDir, LOCAL_TOKEN_FILE);
  try {
    const existing = fs.readFileSync(file, 'utf8').trim();
    if ((await checkToken(engine.context.db, engine.context.clock, existing)).status === 'valid') return existing;
  } catch {
    // none yet
  }
  const token = await issueToken(engine.context.db, engine.context.clock, userId);
  writeSecret(file, token);
  return token;
}

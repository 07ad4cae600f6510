// The engine as a library: open a data folder, get an HTTP app over it. The
// server, the agent and the desktop all start it through createEngine().
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { openStore, type Store } from './store/database.ts';
import { warmDesignWorker } from './designs/design-decoder.ts';
import type { Kysely } from 'kysely';
import type { Database, PrivateFileRow, PrivateFileVersionRow } from './store/tables.ts';
import { type Clock, systemClock } from './clock.ts';
import { PLAN_CHANGE_DELAY_SECONDS } from '../../shared/plans.ts';
import { type EngineContext, type FetchBlobOptions, OrgCache } from './context.ts';
import { type App, type TypedApp, buildApp } from './http/app.ts';
import { Throttle, mergeThrottleRates } from './throttle/throttle.ts';
import { DEFAULT_DELIVERY_OPTIONS, type DeliveryWorkerOptions, WebhookDeliveryWorker } from './webhooks/delivery-worker.ts';
import { createWebhookCapture } from './webhooks/webhook-capture.ts';
import { addChangeCapture } from './changes/tracked-write.ts';
import { ChangeFeed } from './changes/change-feed.ts';
import { createChangeLogCapture } from './changes/change-log.ts';
import { partnerFeedListener } from './sharing/project-shares.ts';
import { registerSnapshotSource } from './changes/record-snapshots.ts';
import { projectSnapshots } from './projects/project-service.ts';
import { contactSnapshots } from './contacts/contact-service.ts';
import { eventSnapshots } from './events/event-service.ts';
import { webhookSnapshots } from './webhooks/webhook-service.ts';
import { privateFileSnapshots } from './files/file-service.ts';
import { recordProjectActivity } from './events/events.ts';
import { fileSettings } from './files/file-settings.ts';
import { startFileStorage } from './files/file-storage.ts';
import { FolderBlobs } from './files/blob-store.ts';
import { parseObjectStoreAddress } from './files/object-store-address.ts';
import { type DataFolderLock, lockDataFolder } from './store/data-folder-lock.ts';
import { tightenToPrivate } from './store/private-files.ts';

export interface EngineOptions {
  dataDir: string;
  /** A PostgreSQL address (`postgres://USER:PASS@HOST:PORT/DB`); the SQLite file in `dataDir` when absent. */
  database?: string;
  /** File contents in a folder every process on the same database shares; `dataDir` when absent. */
  blobDir?: string;
  /** File contents in an S3-compatible object store: `s3://bucket/prefix?endpoint=...` (object-store-blobs.ts); overrides blobDir. */
  blobStore?: string;
  /** Base of the `url` fields; set after listening when not known before. */
  publicUrl?: string;
  clock?: Clock;
  logLevel?: string | false;
  /** How long an org's plan may be cached: DEFAULT_PLAN_CACHE_SECONDS, at most PLAN_CHANGE_DELAY_SECONDS. */
  planCacheSeconds?: number;
  /** Overrides of the built-in throttle table (shared/throttle-rates.ts), as --throttle-config gives them. */
  throttleRates?: unknown;
  /** Deliver webhooks from this process (default true; admin commands say false). */
  deliverWebhooks?: boolean;
  /** Delivery settings: private endpoints, retry timing (tests shorten it), timeouts. */
  webhookDelivery?: Partial<DeliveryWorkerOptions>;
  /** The largest file one upload may carry, in bytes (default 2 GiB). */
  maxUploadBytes?: number;
  /** How long an unfinished chunked upload is kept (default 24). */
  uploadExpiryHours?: number;
  /**
   * This engine's claim on its data folder (docs/store.md, "One process per data folder").
   * Absent: the engine takes the folder's lock itself, as `lockHolder`, before it
   * touches anything, and lets go when it closes. A lock: the host took it first (the
   * app core, the agent) and lends it; the host lets go. "guest": admin commands,
   * which work beside a running server on purpose; without the lock the engine leaves
   * crash leftovers and expired uploads alone, since the server may be writing them.
   */
  dataFolder?: DataFolderLock | 'guest';
  /** What this process is, for the message a second process on the same data folder prints (default "a SolarDesk server"). */
  lockHolder?: string;
  /**
   * "server" (default): the authority for its orgs; it records activity events and
   * queues webhook deliveries. "replica": the sync agent's local store, whose remote
   * is the authority for both (architecture.md: exactly one place delivers).
   */
  role?: 'server' | 'replica';
  /**
   * Keep the change log and serve the change feed (docs/http-api.md "Change feed"):
   * default true for a server, never for a replica. `--no-change-feed` turns it off
   * (a stand-in for the hosted service, which has none, in tests of the fallback).
   */
  changeFeed?: boolean;
  /** More routes in the org scope (the agent's sync routes). */
  extraOrgRoutes?: (scope: TypedApp, context: EngineContext) => void;
  /** A replica's way to get a file's missing bytes (EngineContext.fetchMissingBlob); given here so the context is complete when built. */
  fetchMissingBlob?: (context: EngineContext, file: PrivateFileRow, options?: FetchBlobOptions) => Promise<void>;
  /** A replica's way to get a version's missing bytes (EngineContext.fetchMissingVersionBlob). */
  fetchMissingVersionBlob?: (context: EngineContext, file: PrivateFileRow, version: PrivateFileVersionRow) => Promise<void>;
}

export interface Engine {
  readonly context: EngineContext;
  readonly app: App;
  readonly store: Store;
  /** Starts answering HTTP; returns the address it listens on. */
  listen(port: number, host: string): Promise<string>;
  close(): Promise<void>;
}

/** Where servers before the secret moved into the store kept it; adopted into the store on the first start, so links they signed keep working. */
const LEGACY_SECRET_FILE = 'server-secret';
const SECRET_SETTING = 'signing_secret';

/**
 * The secret that signs share links and download URLs. It lives in the store, so
 * every process on one database signs and checks with the same key: a link made by
 * one works on all. It is kept nowhere else: a legacy secret file is adopted into
 * the store once and then removed, since it is read only while the store has none.
 */
export async function loadOrCreateSecret(db: Kysely<Database>, dataDir: string): Promise<Buffer> {
  const read = async () => (await db.selectFrom('settings').select('value').where('key', '=', SECRET_SETTING).executeTakeFirst())?.value;
  const legacyFile = path.join(dataDir, LEGACY_SECRET_FILE);
  let stored = await read();
  if (!stored) {
    let candidate: string;
    try {
      candidate = fs.readFileSync(legacyFile, 'utf8').trim();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      candidate = randomBytes(32).toString('hex');
    }
    // Processes starting together each offer one; the first insert wins and all read it back.
    await db.insertInto('settings').values({ key: SECRET_SETTING, value: candidate }).onConflict((conflict) => conflict.column('key').doNothing()).execute();
    stored = (await read())!;
  }
  // The store's secret has committed, and nothing reads the file while the store has
  // one: links it signed keep working through the store. (A file whose secret lost
  // the race above signed nothing that is still checked.)
  fs.rmSync(legacyFile, { force: true });
  return Buffer.from(stored, 'hex');
}

/**
 * Org rows (their plans) are cached this long by default. Not the delay itself:
 * service.md 5.4 lets a plan change take PLAN_CHANGE_DELAY_SECONDS to apply, and a
 * minute keeps well inside that.
 */
const DEFAULT_PLAN_CACHE_SECONDS = 60;

function planCacheSeconds(options: EngineOptions): number {
  const seconds = options.planCacheSeconds ?? DEFAULT_PLAN_CACHE_SECONDS;
  if (seconds > PLAN_CHANGE_DELAY_SECONDS) throw new Error(`planCacheSeconds is ${seconds}, but a plan change must apply within ${PLAN_CHANGE_DELAY_SECONDS} s`);
  return seconds;
}

export async function createEngine(options: EngineOptions): Promise<Engine> {
  const isGuest = options.dataFolder === 'guest';
  const lent = typeof options.dataFolder === 'object' ? options.dataFolder : null;
  if (lent && lent.folder !== path.resolve(options.dataDir)) throw new Error(`the data folder lock lent to the engine is for ${lent.folder}, not ${options.dataDir}`);
  const ownLock = options.dataFolder === undefined ? lockDataFolder(options.dataDir, options.lockHolder ?? 'a SolarDesk server') : null;
  try {
    return await startEngine(options, { isGuest, releaseLock: () => ownLock?.release() });
  } catch (error) {
    ownLock?.release();
    throw error;
  }
}

async function startEngine(options: EngineOptions, { isGuest, releaseLock }: { isGuest: boolean; releaseLock: () => void }): Promise<Engine> {
  const planCacheMs = planCacheSeconds(options) * 1000;
  if (options.blobStore && options.blobDir) throw new Error('give --blob-store or --blob-dir, not both: file contents live in one place');
  const blobStoreAddress = options.blobStore ? parseObjectStoreAddress(options.blobStore) : null;
  const store = await openStore({ dataDir: options.dataDir, database: options.database, blobDir: options.blobDir });
  // The data folder was tightened when it was locked; a shared --blob-dir has no lock of its own.
  if (!isGuest && store.fileRoot !== path.resolve(options.dataDir)) tightenToPrivate(store.fileRoot);
  const clock = options.clock ?? systemClock;
  const { fetchMissingBlob, fetchMissingVersionBlob } = options;
  const context: EngineContext = {
    store,
    db: store.db,
    clock,
    publicUrl: (options.publicUrl ?? 'http://127.0.0.1').replace(/\/+$/, ''),
    signingSecret: await loadOrCreateSecret(store.db, options.dataDir),
    orgs: new OrgCache(store.db, clock, planCacheMs, store.writes),
    throttle: new Throttle(store, clock, mergeThrottleRates(options.throttleRates)),
    files: fileSettings(options),
    // The S3 client is loaded only by a server that keeps its contents in an object store.
    blobs: blobStoreAddress
      ? new (await import('./files/object-store-blobs.ts')).ObjectStoreBlobs(store.db, store, store.fileRoot, blobStoreAddress)
      : new FolderBlobs(store.db, store.fileRoot, store.shared),
    changes: new ChangeFeed(),
    webhookWorker: null,
    role: options.role ?? 'server',
    ...(fetchMissingBlob ? { fetchMissingBlob: (file: PrivateFileRow, fetchOptions?: FetchBlobOptions) => fetchMissingBlob(context, file, fetchOptions) } : {}),
    ...(fetchMissingVersionBlob ? { fetchMissingVersionBlob: (file: PrivateFileRow, version: PrivateFileVersionRow) => fetchMissingVersionBlob(context, file, version) } : {}),
  };
  for (const source of [projectSnapshots, contactSnapshots, eventSnapshots, webhookSnapshots, privateFileSnapshots]) registerSnapshotSource(context, source);
  const isServer = (options.role ?? 'server') === 'server';
  if (isServer && options.deliverWebhooks !== false) {
    context.webhookWorker = new WebhookDeliveryWorker(context, { ...DEFAULT_DELIVERY_OPTIONS, ...options.webhookDelivery });
  }
  if (isServer) {
    addChangeCapture(context, { phase: 'derive', capture: (trx, orgId, changes, track) => recordProjectActivity(trx, context, orgId, changes, track) });
    addChangeCapture(context, createWebhookCapture(context, () => context.webhookWorker?.wake()));
  }
  const changeFeed = isServer && options.changeFeed !== false;
  if (changeFeed) {
    addChangeCapture(context, createChangeLogCapture(context));
    // A shared project's changes are news for the connected orgs it is shared with (docs/access.md "Teams").
    context.changes.subscribe(partnerFeedListener(context));
  }
  await context.webhookWorker?.releaseStaleClaims();
  context.webhookWorker?.start();
  const app = await buildApp(context, { logLevel: options.logLevel ?? false, extraOrgRoutes: options.extraOrgRoutes, changeFeed });
  const stopFileStorage =
    isGuest
      ? async () => {}
      : await startFileStorage(context, (error) => app.log.error({ err: error }, 'sweeping expired uploads failed'));
  let closed = false;
  return {
    context,
    app,
    store,
    async listen(port, host) {
      await app.listen({ port, host });
      // Not awaited: the host answers at once; designs asked for meanwhile wait for the worker.
      warmDesignWorker().catch((error: unknown) => app.log.error({ err: error }, 'the design worker did not start'));
      const address = app.server.address();
      const actualPort = typeof address === 'object' && address ? address.port : port;
      const bound = `http://${host.includes(':') ? `[${host}]` : host}:${actualPort}`;
      if (!options.publicUrl) context.publicUrl = bound;
      return bound;
    },
    async close() {
      if (closed) return;
      closed = true;
      await app.close();
      await context.throttle.close();
      await context.webhookWorker?.stop();
      await stopFileStorage();
      await context.blobs.close();
      await store.close();
      releaseLock();
    },
  };
}

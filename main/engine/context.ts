// What every engine module is handed: the store, the clock, and how to make URLs.
import type { Kysely } from 'kysely';
import type { Store } from './store/database.ts';
import type { WriteGenerations } from './store/write-generations.ts';
import type { Database, OrgRow, PrivateFileRow, PrivateFileVersionRow } from './store/tables.ts';
import type { Clock } from './clock.ts';
import { findOrg } from './orgs/org-service.ts';
import type { Throttle } from './throttle/throttle.ts';
import type { WebhookDeliveryWorker } from './webhooks/delivery-worker.ts';
import type { FileSettings } from './files/file-settings.ts';
import type { ChangeFeed } from './changes/change-feed.ts';
import type { BlobBackend } from './files/blob-backend.ts';

/** Files on demand: `user` when someone opened or downloaded the file (the default), `background` for a prefetch. */
export interface FetchBlobOptions {
  requestClass?: 'user' | 'background';
}

export interface EngineContext {
  readonly store: Store;
  readonly db: Kysely<Database>;
  readonly clock: Clock;
  /** Base of every `url` field, without a trailing slash: `http://127.0.0.1:8787`. */
  publicUrl: string;
  /** Secret for signing share links (and later download URLs); kept in the data folder. */
  readonly signingSecret: Buffer;
  readonly orgs: OrgCache;
  readonly throttle: Throttle;
  /** Upload size limit and upload expiry (docs/files.md). */
  readonly files: FileSettings;
  /** Where file contents are kept: a folder (the default) or an object store (--blob-store). */
  readonly blobs: BlobBackend;
  /**
   * In a replica, file rows can arrive before their bytes (content on demand): this
   * fetches a missing blob from the remote. Unset on a server, where a missing blob is a fault.
   */
  readonly fetchMissingBlob?: (file: PrivateFileRow, options?: FetchBlobOptions) => Promise<void>;
  /**
   * In a replica, a version listed here may hold bytes only the remote has (its contents
   * were replaced there, or here before they were ever fetched): this fetches them.
   */
  readonly fetchMissingVersionBlob?: (file: PrivateFileRow, version: PrivateFileVersionRow) => Promise<void>;
  /** Every committed change of a tracked record (change-feed.ts): what hosts, views and the watcher listen to. */
  readonly changes: ChangeFeed;
  /** Delivers queued webhook calls; null in processes that must not deliver (admin commands). */
  webhookWorker: WebhookDeliveryWorker | null;
  /** A replica (a sync agent's copy of a remote org) holds what the remote says; unset: a server. */
  readonly role?: 'server' | 'replica';
}

/** An absolute URL for a path of this server. */
export function absoluteUrl(context: EngineContext, path: string): string {
  return `${context.publicUrl}${path}`;
}

/**
 * Org rows, plan included, cached for a short time: every org request needs the
 * plan, and service.md 5.4 allows a plan change up to 5 minutes to take effect.
 * Changes made through this process are seen at once: an entry read before this
 * process's last write to orgs (or users, roles, tokens) is read again.
 */
export class OrgCache {
  private readonly entries = new Map<number, { org: OrgRow | undefined; fetchedAt: number; generation: number }>();
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly ttlMs: number,
    private readonly writes: WriteGenerations,
  ) {}

  async get(orgId: number): Promise<OrgRow | undefined> {
    const now = this.clock.now().getTime();
    const cached = this.entries.get(orgId);
    if (cached && now - cached.fetchedAt < this.ttlMs && cached.generation === this.writes.auth) return cached.org;
    const generation = this.writes.auth;
    const org = await findOrg(this.db, orgId);
    this.entries.set(orgId, { org, fetchedAt: now, generation });
    return org;
  }

  forget(orgId?: number): void {
    if (orgId === undefined) this.entries.clear();
    else this.entries.delete(orgId);
  }
}

// File contents in an S3-compatible object store (--blob-store s3://bucket/prefix?...),
// so server processes on several machines share only PostgreSQL and a bucket
// (docs/scale-out.md). Keys under the prefix:
//   blobs/ab/cd/<sha256>                 a file's or a kept version's contents
//   uploads/<upload id>/<n>.<sha256>.part  one received part of a chunked upload
//   incoming/<uuid>                      a large file sent on while it arrives, until it is
//                                        copied to its blob key (its hash is known only at its end)
// A write becomes visible under its key only when the store has all of it (a PUT,
// or a multipart upload's completion), so a process killed mid-upload leaves no
// half-written object under a live key; its unfinished multipart upload is aborted
// by the sweep. The official AWS SDK (v3) talks to the store: it signs, streams
// and speaks the multipart protocol of AWS S3, MinIO, Garage, R2 and Ceph RGW alike.
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { PassThrough, type Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CopyObjectCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { Kysely } from 'kysely';
import type { Database } from '../store/tables.ts';
import type { Store } from '../store/database.ts';
import { ApiError } from '../http/errors.ts';
import type { BlobBackend, DirectDownloadAnswer, IncomingCopy, LazySource, PartSweep } from './blob-backend.ts';
import type { ByteRange } from './blob-response.ts';
import { adoptInTurn, isBlobReferenced, newTempPath, SHARED_LEFTOVER_AGE_MS, withBlobLock, type ReceivedFile } from './blob-store.ts';
import { makePrivateFolderAsync, PRIVATE_FILE_MODE } from '../store/private-files.ts';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { ObjectStoreAddress } from './object-store-address.ts';


/** Seconds a client is asked to wait when the store does not answer. */
export const STORE_RETRY_AFTER_SECONDS = 30;
/** Parts of the store's multipart upload for one blob; 8 MiB keeps memory per upload at queue x part. */
const MULTIPART_PART_BYTES = 8 * 1024 * 1024;
const MULTIPART_QUEUE = 4;
/** The most one CopyObject may copy (S3's limit); a larger file is sent from its temp file once hashed. */
const COPY_OBJECT_MAX_BYTES = 5 * 1024 ** 3;
/**
 * How long another process's unfinished multipart upload to an incoming key is left
 * alone: it lasts as long as its client takes to send the file (2 GB at 1 Mbit/s is
 * four and a half hours).
 */
const INCOMING_ABANDONED_MS = 24 * 60 * 60 * 1000;
/** What the copy to the store may hold beyond the multipart queue while the store is slower than the client. */
const INCOMING_BUFFER_BYTES = 1024 * 1024;

/** The store did not answer or refused: 503 with Retry-After, never a 500 or a hang. */
export class BlobStoreUnavailableError extends ApiError {
  constructor(override readonly cause: unknown) {
    super(
      503,
      { detail: `The file store is not answering right now. Nothing was lost; try again in ${STORE_RETRY_AFTER_SECONDS} seconds.` },
      { 'retry-after': String(STORE_RETRY_AFTER_SECONDS) },
    );
  }
}

const isMissing = (error: unknown) => {
  const failure = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return failure.name === 'NotFound' || failure.name === 'NoSuchKey' || failure.$metadata?.httpStatusCode === 404;
};

/** Runs one call to the store: a missing object is `missing`, any other failure a 503. */
async function storeCall<T, M = never>(call: () => Promise<T>, missing?: () => M): Promise<T | M> {
  try {
    return await call();
  } catch (error) {
    if (missing && isMissing(error)) return missing();
    if (error instanceof ApiError) throw error;
    throw new BlobStoreUnavailableError(error);
  }
}

export function createS3Client(address: ObjectStoreAddress): S3Client {
  return new S3Client({
    region: address.region,
    ...(address.endpoint ? { endpoint: address.endpoint } : {}),
    forcePathStyle: address.forcePathStyle,
    // One retry: a store that is down answers 503 to the client quickly instead of after a long backoff.
    maxAttempts: 2,
    // Without throwOnRequestTimeout the handler only logs a request past its timeout, and the request hangs on.
    requestHandler: { connectionTimeout: 5_000, requestTimeout: address.requestTimeoutMs, throwOnRequestTimeout: true },
    // Checksums only where the protocol needs them: not every S3-compatible store knows the newer headers.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

export class ObjectStoreBlobs implements BlobBackend {
  readonly kind = 'object-store';
  readonly location: string;
  private readonly client: S3Client;
  /**
   * Keys this process is writing now (a blob's put, a file arriving under its incoming
   * key until it is discarded): never a leftover, whatever the sweep lists, objects or
   * unfinished multipart uploads.
   */
  private readonly liveWrites = new Set<string>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly store: Pick<Store, 'lock' | 'shared'>,
    /** This process's own folder, for temp files on their way in. */
    private readonly fileRoot: string,
    readonly address: ObjectStoreAddress,
    client?: S3Client,
  ) {
    this.client = client ?? createS3Client(address);
    this.location = `s3://${address.bucket}/${address.prefix}`;
  }

  blobKey(sha256: string): string {
    if (!/^[0-9a-f]{64}$/.test(sha256)) throw new Error(`not a sha256: ${sha256}`);
    return `${this.address.prefix}blobs/${sha256.slice(0, 2)}/${sha256.slice(2, 4)}/${sha256}`;
  }

  private uploadPrefix(uploadId: string): string {
    return `${this.address.prefix}uploads/${uploadId}/`;
  }

  private partKey(uploadId: string, part: number, sha256: string): string {
    // Named by its hash too: a part sent again never overwrites bytes a completion is reading.
    return `${this.uploadPrefix(uploadId)}${part}.${sha256}.part`;
  }

  /** Streams a local file to `key`; visible there only once all of it is stored. */
  private async putFile(key: string, file: string, size: number): Promise<void> {
    this.liveWrites.add(key);
    try {
      await storeCall(async () => {
        if (size <= MULTIPART_PART_BYTES) {
          await this.client.send(new PutObjectCommand({ Bucket: this.address.bucket, Key: key, Body: fs.createReadStream(file), ContentLength: size }));
          return;
        }
        await this.multipartUpload(key, fs.createReadStream(file)).done();
      });
    } finally {
      this.liveWrites.delete(key);
    }
  }

  /** The store's multipart upload of `body` to `key`, in parts of MULTIPART_PART_BYTES. A failed one is aborted by the library; one cut off by a crash by sweepParts. */
  private multipartUpload(key: string, body: Readable): Upload {
    return new Upload({
      client: this.client,
      params: { Bucket: this.address.bucket, Key: key, Body: body },
      partSize: MULTIPART_PART_BYTES,
      queueSize: MULTIPART_QUEUE,
      leavePartsOnError: false,
    });
  }

  private exists(key: string): Promise<boolean> {
    return storeCall(
      () => this.client.send(new HeadObjectCommand({ Bucket: this.address.bucket, Key: key })).then(() => true),
      () => false,
    );
  }

  async putVerified(received: ReceivedFile): Promise<void> {
    // Identical contents are stored once: the key is the hash.
    if (await this.exists(this.blobKey(received.sha256))) return;
    await this.storeReceived(received);
  }

  /** Puts received bytes under their hash: copied inside the store from where they were sent while arriving, or sent from the temp file. */
  private async storeReceived(received: ReceivedFile): Promise<void> {
    const key = this.blobKey(received.sha256);
    if (!received.storedAt) {
      await this.putFile(key, received.tempPath, received.size);
      return;
    }
    const source = `${this.address.bucket}/${received.storedAt.split('/').map(encodeURIComponent).join('/')}`;
    await storeCall(() => this.client.send(new CopyObjectCommand({ Bucket: this.address.bucket, Key: key, CopySource: source })));
  }

  private incomingPrefix(): string {
    return `${this.address.prefix}incoming/`;
  }

  private incomingKey(): string {
    return `${this.incomingPrefix()}${randomUUID()}`;
  }

  /**
   * A file larger than one multipart part goes on to the store as it arrives, under an
   * incoming key; adopt() copies it to its blob key, and its receiver discards it then. Smaller files, and files past
   * what one copy may hold, are sent once hashed, as before.
   */
  startIncoming(expectedBytes: number): IncomingCopy | null {
    if (!(expectedBytes > MULTIPART_PART_BYTES && expectedBytes <= COPY_OBJECT_MAX_BYTES)) return null;
    const key = this.incomingKey();
    this.liveWrites.add(key);
    const sink = new PassThrough({ highWaterMark: INCOMING_BUFFER_BYTES });
    // The object itself, should a crash leave it, is sweepParts' too.
    const upload = this.multipartUpload(key, sink);
    const stored = storeCall(() => upload.done()).then(() => key);
    // Awaited by whoever receives; until then a failure must not count as unhandled.
    stored.catch(() => undefined);
    return {
      sink,
      stored,
      discard: async () => {
        sink.destroy();
        await upload.abort().catch(() => undefined);
        await stored.catch(() => undefined);
        // One the store will not remove now is the sweep's.
        await this.client.send(new DeleteObjectCommand({ Bucket: this.address.bucket, Key: key })).catch(() => undefined);
        this.liveWrites.delete(key);
      },
    };
  }

  // A removal and an adoption of the same blob, in any processes, meet on one
  // database lock (the blob's hash): removal checks that nothing names the blob and
  // deletes it holding the lock; adoption, after its row has committed, checks the
  // blob is still there holding the same lock, and puts it back if a removal
  // decided before the row existed. A committed row never names a missing blob.
  // Alone on its database (SQLite), the process's own blob lock is enough: no transaction is held across calls to the store.
  private async underStoreLock<T>(sha256: string, work: (db: Kysely<Database>) => Promise<T>): Promise<T> {
    if (!this.store.shared) return work(this.db);
    return this.db.transaction().execute(async (trx) => {
      await this.store.lock(trx, [`blob:${sha256}`]);
      return work(trx);
    });
  }

  async adopt<T>(received: ReceivedFile, persist: () => Promise<T>): Promise<T> {
    return withBlobLock(this.location, received.sha256, async () => {
      // Durable in the store before the row exists: a 201 names bytes that are kept.
      await this.putVerified(received);
      let result: T;
      try {
        result = await persist();
      } catch (error) {
        await this.removeUnreferenced(received.sha256);
        throw error;
      }
      if (this.store.shared) {
        await this.underStoreLock(received.sha256, async () => {
          if (!(await this.exists(this.blobKey(received.sha256)))) await this.storeReceived(received);
        });
      }
      return result;
    });
  }

  adoptAll<T>(received: readonly ReceivedFile[], persist: () => Promise<T>): Promise<T> {
    return adoptInTurn(this, received, persist);
  }

  private removeUnreferenced(sha256: string): Promise<void> {
    return this.underStoreLock(sha256, async (db) => {
      if (await isBlobReferenced(db, sha256)) return;
      await storeCall(() => this.client.send(new DeleteObjectCommand({ Bucket: this.address.bucket, Key: this.blobKey(sha256) })));
    });
  }

  release(sha256: string): Promise<void> {
    return withBlobLock(this.location, sha256, () => this.removeUnreferenced(sha256));
  }

  size(sha256: string): Promise<number | null> {
    return storeCall(
      async () => (await this.client.send(new HeadObjectCommand({ Bucket: this.address.bucket, Key: this.blobKey(sha256) }))).ContentLength ?? 0,
      () => null,
    );
  }

  read(sha256: string, range?: ByteRange): Promise<Readable> {
    return this.readKey(this.blobKey(sha256), range);
  }

  /**
   * With `downloads=redirect`, a presigned GET of the blob (signed here, without a call
   * to the store). The store answers it with the file's type and name, and honours Range
   * as the server does; it stops working after `answer.seconds`.
   */
  async directDownloadUrl(sha256: string, answer: DirectDownloadAnswer): Promise<string | null> {
    if (this.address.downloads !== 'redirect') return null;
    const command = new GetObjectCommand({
      Bucket: this.address.bucket,
      Key: this.blobKey(sha256),
      ResponseContentType: answer.contentType,
      ResponseContentDisposition: answer.contentDisposition,
      ResponseCacheControl: 'private, no-cache',
    });
    return storeCall(() => getSignedUrl(this.client, command, { expiresIn: answer.seconds }));
  }

  private async readKey(key: string, range?: ByteRange): Promise<Readable> {
    return storeCall(async () => {
      const answer = await this.client.send(
        new GetObjectCommand({ Bucket: this.address.bucket, Key: key, ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }),
      );
      return answer.Body as Readable;
    });
  }

  async receiveStored(sha256: string, size: number): Promise<ReceivedFile | null> {
    if ((await this.size(sha256)) === null) return null;
    const tempPath = newTempPath(this.fileRoot, 'restore');
    await makePrivateFolderAsync(path.dirname(tempPath));
    try {
      await pipeline(await this.read(sha256), fs.createWriteStream(tempPath, { flags: 'wx', mode: PRIVATE_FILE_MODE }));
    } catch (error) {
      await fs.promises.rm(tempPath, { force: true });
      if (error instanceof ApiError) throw error;
      throw new BlobStoreUnavailableError(error);
    }
    const handle = await fs.promises.open(tempPath, 'r');
    try {
      const head = Buffer.alloc(16);
      const { bytesRead } = await handle.read(head, 0, head.length, 0);
      return { tempPath, sha256, size, head: head.subarray(0, bytesRead) };
    } finally {
      await handle.close();
    }
  }

  /** Every key under `prefix`, with when it was last written. */
  private async *listKeys(prefix: string): AsyncIterable<{ key: string; modified: Date | undefined }> {
    let token: string | undefined;
    do {
      const page = await storeCall(() => this.client.send(new ListObjectsV2Command({ Bucket: this.address.bucket, Prefix: prefix, ContinuationToken: token })));
      for (const entry of page.Contents ?? []) if (entry.Key) yield { key: entry.Key, modified: entry.LastModified };
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async *listBlobs(): AsyncIterable<string> {
    for await (const { key } of this.listKeys(`${this.address.prefix}blobs/`)) {
      const name = key.slice(key.lastIndexOf('/') + 1);
      if (/^[0-9a-f]{64}$/.test(name)) yield name;
    }
  }

  async putPart(uploadId: string, part: number, received: ReceivedFile): Promise<void> {
    await this.putFile(this.partKey(uploadId, part, received.sha256), received.tempPath, received.size);
  }

  partSources(uploadId: string, parts: readonly { part: number; etag: string }[]): LazySource[] {
    return parts.map((part) => () => this.readKey(this.partKey(uploadId, part.part, part.etag)));
  }

  private async deleteKeys(keys: string[]): Promise<void> {
    for (let start = 0; start < keys.length; start += 1000) {
      const batch = keys.slice(start, start + 1000);
      await storeCall(() =>
        this.client.send(new DeleteObjectsCommand({ Bucket: this.address.bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } })),
      );
    }
  }

  async removeParts(uploadId: string): Promise<void> {
    const keys: string[] = [];
    for await (const { key } of this.listKeys(this.uploadPrefix(uploadId))) keys.push(key);
    await this.deleteKeys(keys);
  }

  /** A leftover is only one nobody has written for `ageMs`: a neighbour may be writing the rest right now. */
  private isOldEnough(modified: Date | undefined, ageMs = SHARED_LEFTOVER_AGE_MS): boolean {
    if (!this.store.shared) return true;
    // The store stamps from the real clock, not the injected one.
    return modified !== undefined && modified.getTime() < Date.now() - ageMs;
  }

  async sweepParts(sweep: PartSweep): Promise<void> {
    const byUpload = new Map<string, { key: string; modified: Date | undefined }[]>();
    const root = `${this.address.prefix}uploads/`;
    for await (const entry of this.listKeys(root)) {
      const uploadId = entry.key.slice(root.length).split('/')[0]!;
      byUpload.set(uploadId, [...(byUpload.get(uploadId) ?? []), entry]);
    }
    if (byUpload.size > 0) {
      const open = await sweep.openUploads([...byUpload.keys()]);
      for (const [uploadId, entries] of byUpload) {
        await sweep.underLock(uploadId, async () => {
          const wanted = open.has(uploadId)
            ? new Set((await sweep.recordedParts(uploadId)).map((row) => this.partKey(uploadId, row.part, row.etag)))
            : new Set<string>();
          await this.deleteKeys(entries.filter((entry) => !wanted.has(entry.key) && this.isOldEnough(entry.modified)).map((entry) => entry.key));
        });
      }
    }
    // Files sent on while they arrived whose receiving or adoption a crash cut off.
    const incoming: string[] = [];
    for await (const entry of this.listKeys(this.incomingPrefix())) {
      // Between its upload's end and its copy, an incoming object of this process is listed like any other.
      if (!this.liveWrites.has(entry.key) && this.isOldEnough(entry.modified)) incoming.push(entry.key);
    }
    await this.deleteKeys(incoming);
    await this.abortStaleMultipartUploads();
  }

  /** The store's own unfinished multipart uploads under the prefix (a process killed while writing a large blob). */
  private async abortStaleMultipartUploads(): Promise<void> {
    let listing;
    try {
      listing = await this.client.send(new ListMultipartUploadsCommand({ Bucket: this.address.bucket, Prefix: this.address.prefix }));
    } catch (error) {
      // Some small S3-compatible servers (s3rver) do not list multipart uploads; they have none to abort then.
      if ((error as { name?: string }).name === 'NotImplemented') return;
      throw new BlobStoreUnavailableError(error);
    }
    for (const upload of listing.Uploads ?? []) {
      if (!upload.Key || !upload.UploadId || this.liveWrites.has(upload.Key)) continue;
      // A file arriving under its incoming key is written for as long as its client takes to send it: hours on a slow line.
      const abandonedAfter = upload.Key.startsWith(this.incomingPrefix()) ? INCOMING_ABANDONED_MS : SHARED_LEFTOVER_AGE_MS;
      if (!this.isOldEnough(upload.Initiated, abandonedAfter)) continue;
      await storeCall(() => this.client.send(new AbortMultipartUploadCommand({ Bucket: this.address.bucket, Key: upload.Key, UploadId: upload.UploadId })));
    }
  }

  async removeLeftovers(): Promise<void> {
    // Temp files are this process's own (its data folder); blobs no row names are crash leftovers of an adoption.
    await fs.promises.rm(path.join(this.fileRoot, 'tmp'), { recursive: true, force: true });
    const candidates: string[] = [];
    for await (const { key, modified } of this.listKeys(`${this.address.prefix}blobs/`)) {
      const name = key.slice(key.lastIndexOf('/') + 1);
      if (/^[0-9a-f]{64}$/.test(name) && this.isOldEnough(modified)) candidates.push(name);
    }
    for (let start = 0; start < candidates.length; start += 500) {
      const batch = candidates.slice(start, start + 500);
      const named = new Set<string>();
      for (const row of await this.db.selectFrom('private_files').select('file_hash').where('file_hash', 'in', batch).execute()) if (row.file_hash) named.add(row.file_hash);
      for (const row of await this.db.selectFrom('private_file_versions').select('file_hash').where('file_hash', 'in', batch).execute()) named.add(row.file_hash);
      // Each unnamed one is checked again under its lock: an adoption may be naming it now.
      for (const sha256 of batch) if (!named.has(sha256)) await withBlobLock(this.location, sha256, () => this.removeUnreferenced(sha256));
    }
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}

// File contents on disk, content-addressed: ROOT/blobs/ab/cd/<sha256>, where ROOT
// is the data folder or the --blob-dir that several server processes share. An
// upload streams into ROOT/tmp/ while it is hashed, so memory stays flat whatever its
// size, and only a complete upload is linked into place. A blob lives as
// long as a private file names it in file_hash, or a kept version of one does. See docs/files.md.
import fs from 'node:fs';
import { once } from 'node:events';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Kysely } from 'kysely';
import type { Database } from '../store/tables.ts';
import type { EngineContext } from '../context.ts';
import { KeyedLock } from './keyed-lock.ts';
import { makePrivateFolderAsync, PRIVATE_FILE_MODE } from '../store/private-files.ts';
import type { BlobBackend, IncomingCopy, LazySource, PartSweep } from './blob-backend.ts';
import type { ByteRange } from './blob-response.ts';

/** How many leading bytes are kept to recognise a file's type. */
const SNIFF_BYTES = 16;

export interface ReceivedFile {
  /** Where the bytes are until they are adopted as a blob (or discarded). */
  readonly tempPath: string;
  readonly sha256: string;
  readonly size: number;
  /** The first bytes, for recognising the type of a file with no telling name. */
  readonly head: Buffer;
  /** A key of the object store that already holds these bytes: sent on while they arrived (IncomingCopy). */
  readonly storedAt?: string;
}

/** Thrown while streaming when a file grows past the limit; the route answers 413. */
export class FileTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`file larger than ${limitBytes} bytes`);
  }
}

export const tempDir = (fileRoot: string) => path.join(fileRoot, 'tmp');
export const blobsDir = (fileRoot: string) => path.join(fileRoot, 'blobs');

export function blobPath(fileRoot: string, sha256: string): string {
  if (!/^[0-9a-f]{64}$/.test(sha256)) throw new Error(`not a sha256: ${sha256}`);
  return path.join(blobsDir(fileRoot), sha256.slice(0, 2), sha256.slice(2, 4), sha256);
}

/** A fresh path under ROOT/tmp/ for bytes on their way in. */
export function newTempPath(fileRoot: string, purpose: string): string {
  return path.join(tempDir(fileRoot), `${purpose}-${randomBytes(12).toString('hex')}.partial`);
}

/** Counts, hashes and caps the bytes that flow through it. */
class MeteringStream extends Transform {
  private readonly hash = createHash('sha256');
  private readonly headChunks: Buffer[] = [];
  private headLength = 0;
  size = 0;

  constructor(private readonly maxBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.maxBytes) return callback(new FileTooLargeError(this.maxBytes));
    this.hash.update(chunk);
    if (this.headLength < SNIFF_BYTES) {
      this.headChunks.push(chunk.subarray(0, SNIFF_BYTES - this.headLength));
      this.headLength += Math.min(chunk.length, SNIFF_BYTES - this.headLength);
    }
    callback(null, chunk);
  }

  digest(): { sha256: string; head: Buffer } {
    return { sha256: this.hash.digest('hex'), head: Buffer.concat(this.headChunks) };
  }
}

/**
 * Streams `source` into a new temp file while hashing it. On any failure (too
 * large, the client went away) the temp file is removed before the error is rethrown.
 */
/**
 * Also writes each chunk to an IncomingCopy, at the pace of the slower of the two: a
 * chunk goes on once the copy has room for more, so no more than its buffer is held.
 */
class CopyingStream extends Transform {
  constructor(private readonly copy: IncomingCopy) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (this.copy.sink.write(chunk)) {
      callback(null, chunk);
      return;
    }
    // The store takes the bytes more slowly than they arrive; a store that fails ends the wait with its error.
    const failed = this.copy.stored.then(() => {
      throw new Error('the store finished before the file did');
    });
    Promise.race([once(this.copy.sink, 'drain'), failed]).then(() => callback(null, chunk), callback);
  }

  override _flush(callback: TransformCallback): void {
    this.copy.sink.end();
    callback();
  }
}

/**
 * Streams `source` into a new temp file while hashing it. With `copy`, the bytes also
 * go on to the object store as they arrive, and the received file names the key that
 * holds them once the store has all of them (a failing store fails the receiving).
 */
export async function receiveToTempFile(fileRoot: string, source: Readable | Array<Readable | LazySource>, maxBytes: number, purpose = 'upload', copy?: IncomingCopy | null): Promise<ReceivedFile> {
  const tempPath = newTempPath(fileRoot, purpose);
  await makePrivateFolderAsync(path.dirname(tempPath));
  const meter = new MeteringStream(maxBytes);
  // Private from the start: a blob is this file hard-linked into place, and an upload part is this file renamed.
  const output = fs.createWriteStream(tempPath, { flags: 'wx', mode: PRIVATE_FILE_MODE });
  let storedAt: string | undefined;
  try {
    const sources = Array.isArray(source) ? source : [source];
    // Several sources (the parts of a chunked upload) are written one after another.
    const chunks = async function* () {
      for (const stream of sources) yield* typeof stream === 'function' ? await stream() : stream;
    };
    if (copy) {
      await pipeline(chunks, meter, new CopyingStream(copy), output);
      storedAt = await copy.stored;
    } else {
      await pipeline(chunks, meter, output);
    }
  } catch (error) {
    await copy?.discard();
    // The file is opened asynchronously: a source that fails at once can fail before
    // the open has created it. Removing it only after the stream has closed leaves no
    // empty temp file behind.
    if (!output.closed) await once(output, 'close').catch(() => undefined);
    await discardTempFile(tempPath);
    throw error;
  }
  return { tempPath, size: meter.size, ...meter.digest(), ...(storedAt ? { storedAt } : {}) };
}

/** A temp file is always a file: one unlink (rm would lstat it first), and gone already is fine. */
export async function discardTempFile(tempPath: string): Promise<void> {
  try {
    await fsp.unlink(tempPath);
  } catch (error) {
    if (!isCode(error, 'ENOENT')) throw error;
  }
}

// Work on one blob is serialised within a process, so "is any file still using
// it?" and "a new file now uses it" never interleave here. Other processes on the
// same file root (--blob-dir) are not held by this lock, so removal and adoption
// also follow a protocol that is safe across processes without one:
//  - removal first renames the blob aside, then checks the store, and puts it back
//    if a file names it after all;
//  - adoption keeps its own copy until its row has committed, then checks the blob
//    is still there and puts its copy in place if a removal took it meanwhile.
// Whichever order the two interleave in, a committed row never names a missing blob.
const blobLock = new KeyedLock();
export const withBlobLock = <T>(fileRoot: string, sha256: string, work: () => Promise<T>) => blobLock.run(`${fileRoot}\0${sha256}`, work);

/** Whether a file, or a kept earlier version of one (file-versions.ts), names the blob. */
export async function isBlobReferenced(db: Kysely<Database>, sha256: string): Promise<boolean> {
  const file = await db.selectFrom('private_files').select('id').where('file_hash', '=', sha256).limit(1).executeTakeFirst();
  if (file) return true;
  const version = await db.selectFrom('private_file_versions').select('id').where('file_hash', '=', sha256).limit(1).executeTakeFirst();
  return version !== undefined;
}

const isCode = (error: unknown, code: string) => (error as NodeJS.ErrnoException).code === code;

/** Hard-links `from` to `to` unless `to` exists already (same name, same bytes). */
async function linkUnlessPresent(from: string, to: string): Promise<void> {
  try {
    await fsp.link(from, to);
  } catch (error) {
    if (!isCode(error, 'EEXIST')) throw error;
  }
}

async function pathExists(file: string): Promise<boolean> {
  try {
    await fsp.lstat(file);
    return true;
  } catch (error) {
    if (isCode(error, 'ENOENT')) return false;
    throw error;
  }
}

async function unlinkIfUnreferenced(db: Kysely<Database>, fileRoot: string, sha256: string): Promise<void> {
  const target = blobPath(fileRoot, sha256);
  const aside = `${target}.${randomBytes(6).toString('hex')}.removing`;
  try {
    await fsp.rename(target, aside);
  } catch (error) {
    if (isCode(error, 'ENOENT')) return;
    throw error;
  }
  try {
    if (await isBlobReferenced(db, sha256)) await linkUnlessPresent(aside, target);
  } finally {
    await fsp.rm(aside, { force: true });
  }
}

/**
 * Links a received file into the blob store and runs `persist` (which writes the
 * row that names the blob) under the blob's lock. If `persist` fails, a blob that
 * no file names is removed again: nothing is left behind.
 */
export function adoptBlob<T>(context: EngineContext, received: ReceivedFile, persist: () => Promise<T>): Promise<T> {
  return context.blobs.adopt(received, persist);
}

async function adoptIntoFolder<T>(db: Kysely<Database>, fileRoot: string, shared: boolean, received: ReceivedFile, persist: () => Promise<T>): Promise<T> {
  const target = blobPath(fileRoot, received.sha256);
  return withBlobLock(fileRoot, received.sha256, async () => {
    try {
      // An existing blob has the same bytes (same name); the received copy waits as a spare.
      // The blob's folder usually exists: it is made only when the link says it is missing.
      try {
        await linkUnlessPresent(received.tempPath, target);
      } catch (error) {
        if (!isCode(error, 'ENOENT')) throw error;
        await makePrivateFolderAsync(path.dirname(target));
        await linkUnlessPresent(received.tempPath, target);
      }
      const result = await persist();
      // A removal in another process may have taken the blob between the link and the commit.
      // Looked at first: a link that fails with EEXIST, the usual case, costs more than an lstat.
      // A store alone with its file root (SQLite) has no such process, and removals here
      // wait for this blob's lock: nothing to look at.
      if (shared && !(await pathExists(target))) await linkUnlessPresent(received.tempPath, target);
      return result;
    } catch (error) {
      await unlinkIfUnreferenced(db, fileRoot, received.sha256);
      throw error;
    } finally {
      await discardTempFile(received.tempPath);
    }
  });
}

/** Call after a write that stopped naming a blob (file deleted, contents replaced); run outside any transaction. */
export async function releaseBlob(context: EngineContext, sha256: string | null): Promise<void> {
  if (!sha256) return;
  await context.blobs.release(sha256);
}

/**
 * A replica's eviction (files on demand, main/sync/contents-policy.ts): removes a
 * blob that files still name, whose bytes the remote keeps, when `mayEvict` (asked
 * under the blob's lock, with the blob set aside) still says so. True when removed.
 */
export async function evictBlob(context: EngineContext, sha256: string, mayEvict: () => Promise<boolean>): Promise<boolean> {
  const { fileRoot } = context.store;
  return withBlobLock(fileRoot, sha256, async () => {
    const target = blobPath(fileRoot, sha256);
    const aside = `${target}.${randomBytes(6).toString('hex')}.removing`;
    try {
      await fsp.rename(target, aside);
    } catch (error) {
      if (isCode(error, 'ENOENT')) return false;
      throw error;
    }
    let evicted = false;
    try {
      evicted = await mayEvict();
    } finally {
      if (!evicted) await linkUnlessPresent(aside, target);
      await fsp.rm(aside, { force: true });
    }
    return evicted;
  });
}

/**
 * A stored blob as a received file ready to adopt again (a restored version):
 * hard-linked into ROOT/tmp/, so even a large one costs no copy. Null when the
 * blob is missing.
 */
export async function receiveStoredBlob(fileRoot: string, sha256: string, size: number): Promise<ReceivedFile | null> {
  const tempPath = newTempPath(fileRoot, 'restore');
  await makePrivateFolderAsync(path.dirname(tempPath));
  try {
    await fsp.link(blobPath(fileRoot, sha256), tempPath);
  } catch (error) {
    if (isCode(error, 'ENOENT')) return null;
    throw error;
  }
  const handle = await fsp.open(tempPath, 'r');
  try {
    const head = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(head, 0, SNIFF_BYTES, 0);
    return { tempPath, sha256, size, head: head.subarray(0, bytesRead) };
  } finally {
    await handle.close();
  }
}

/** Stores bytes made in memory (demo files, rendered system images) as a received file ready to adopt. */
export async function receiveBuffer(fileRoot: string, bytes: Buffer, purpose: string): Promise<ReceivedFile> {
  return receiveToTempFile(fileRoot, Readable.from([bytes]), Number.MAX_SAFE_INTEGER, purpose);
}

/**
 * How long a temp file or an unnamed blob must have sat untouched before a process
 * sharing the file root treats it as a crash leftover: an upload in progress writes
 * to its temp file all the time, and a blob waits unnamed only for one commit.
 */
export const SHARED_LEFTOVER_AGE_MS = 60 * 60_000;

/**
 * Whether a file is a crash leftover this process may remove: any file, for a
 * process alone with its files (SQLite); for processes sharing a file root, only
 * one nobody has touched for `SHARED_LEFTOVER_AGE_MS`, since a neighbour may be
 * writing the rest right now.
 */
export function crashLeftoverTest(shared: boolean): (file: string) => Promise<boolean> {
  if (!shared) return async () => true;
  // Compared with mtimes, which the file system stamps from the real clock: not the injected one.
  const cutoff = Date.now() - SHARED_LEFTOVER_AGE_MS;
  return async (file) => ((await fsp.stat(file).catch(() => null))?.mtimeMs ?? Number.POSITIVE_INFINITY) < cutoff;
}

/**
 * Temp files are leftovers of uploads cut off by a crash, and blobs no file names
 * are leftovers of a crash between the link into place and the commit of the row.
 * Removed at start, before any request, as far as `crashLeftoverTest` allows.
 */
export async function removeStorageLeftovers(db: Kysely<Database>, fileRoot: string, options: { shared: boolean }): Promise<void> {
  const isLeftover = crashLeftoverTest(options.shared);
  await makePrivateFolderAsync(tempDir(fileRoot));
  for (const name of await fsp.readdir(tempDir(fileRoot))) {
    const file = path.join(tempDir(fileRoot), name);
    if (await isLeftover(file)) await fsp.rm(file, { recursive: true, force: true });
  }
  const { hashes: onDisk, setAside } = await listBlobFolder(fileRoot);
  // A removal cut off between its rename and its unlink.
  for (const file of setAside) if (await isLeftover(file)) await fsp.rm(file, { force: true });
  if (onDisk.length === 0) return;
  const referenced = new Set<string>();
  const batchSize = 500;
  for (let start = 0; start < onDisk.length; start += batchSize) {
    const batch = onDisk.slice(start, start + batchSize);
    const rows = await db.selectFrom('private_files').select('file_hash').where('file_hash', 'in', batch).execute();
    for (const row of rows) if (row.file_hash) referenced.add(row.file_hash);
    const versions = await db.selectFrom('private_file_versions').select('file_hash').where('file_hash', 'in', batch).execute();
    for (const row of versions) referenced.add(row.file_hash);
  }
  for (const sha256 of onDisk) {
    if (referenced.has(sha256) || !(await isLeftover(blobPath(fileRoot, sha256)))) continue;
    await withBlobLock(fileRoot, sha256, () => unlinkIfUnreferenced(db, fileRoot, sha256));
  }
}

/** The blobs under ROOT/blobs/, and the files a removal set aside there. */
async function listBlobFolder(fileRoot: string): Promise<{ hashes: string[]; setAside: string[] }> {
  const hashes: string[] = [];
  const setAside: string[] = [];
  const readDir = async (dir: string) => (await fsp.readdir(dir, { withFileTypes: true }).catch(() => []));
  for (const first of await readDir(blobsDir(fileRoot))) {
    if (!first.isDirectory()) continue;
    for (const second of await readDir(path.join(blobsDir(fileRoot), first.name))) {
      if (!second.isDirectory()) continue;
      const folder = path.join(blobsDir(fileRoot), first.name, second.name);
      for (const entry of await readDir(folder)) {
        if (!entry.isFile()) continue;
        if (/^[0-9a-f]{64}$/.test(entry.name)) hashes.push(entry.name);
        else if (entry.name.endsWith('.removing')) setAside.push(path.join(folder, entry.name));
      }
    }
  }
  return { hashes, setAside };
}

export const uploadsDir = (fileRoot: string) => path.join(fileRoot, 'uploads');
const uploadDir = (fileRoot: string, uploadId: string) => path.join(uploadsDir(fileRoot), uploadId);
const partPath = (fileRoot: string, uploadId: string, part: number) => path.join(uploadDir(fileRoot, uploadId), `${part}.part`);

/** The default backend: blobs, upload parts and temp files under one folder (the data folder or a shared --blob-dir). */
export class FolderBlobs implements BlobBackend {
  readonly kind = 'folder';
  readonly location: string;

  constructor(
    private readonly db: Kysely<Database>,
    readonly fileRoot: string,
    private readonly shared: boolean,
  ) {
    this.location = fileRoot;
  }

  adopt<T>(received: ReceivedFile, persist: () => Promise<T>): Promise<T> {
    return adoptIntoFolder(this.db, this.fileRoot, this.shared, received, persist);
  }

  release(sha256: string): Promise<void> {
    return withBlobLock(this.fileRoot, sha256, () => unlinkIfUnreferenced(this.db, this.fileRoot, sha256));
  }

  async size(sha256: string): Promise<number | null> {
    return fsp.stat(blobPath(this.fileRoot, sha256)).then((stats) => stats.size, () => null);
  }

  async read(sha256: string, range?: ByteRange): Promise<Readable> {
    return fs.createReadStream(blobPath(this.fileRoot, sha256), range ? { start: range.start, end: range.end } : {});
  }

  /** A folder adopts a received temp file by a link: nothing to gain by sending it on early. */
  startIncoming(): null {
    return null;
  }

  /** A folder has no URL of its own: its downloads stream through the server. */
  async directDownloadUrl(): Promise<null> {
    return null;
  }

  receiveStored(sha256: string, size: number): Promise<ReceivedFile | null> {
    return receiveStoredBlob(this.fileRoot, sha256, size);
  }

  async *listBlobs(): AsyncIterable<string> {
    yield* (await listBlobFolder(this.fileRoot)).hashes;
  }

  async putVerified(received: ReceivedFile): Promise<void> {
    const target = blobPath(this.fileRoot, received.sha256);
    await makePrivateFolderAsync(path.dirname(target));
    await linkUnlessPresent(received.tempPath, target);
  }

  async putPart(uploadId: string, part: number, received: ReceivedFile): Promise<void> {
    await makePrivateFolderAsync(uploadDir(this.fileRoot, uploadId));
    await fsp.rename(received.tempPath, partPath(this.fileRoot, uploadId, part));
  }

  partSources(uploadId: string, parts: readonly { part: number }[]): LazySource[] {
    return parts.map((part) => async () => fs.createReadStream(partPath(this.fileRoot, uploadId, part.part)));
  }

  async removeParts(uploadId: string): Promise<void> {
    await fsp.rm(uploadDir(this.fileRoot, uploadId), { recursive: true, force: true });
  }

  async sweepParts(sweep: PartSweep): Promise<void> {
    const { fileRoot } = this;
    // Sharing a --blob-dir, a process leaves alone what a neighbour may be writing right now.
    const isLeftover = crashLeftoverTest(this.shared);
    const folders = await fsp.readdir(uploadsDir(fileRoot)).catch(() => [] as string[]);
    if (folders.length === 0) return;
    const open = await sweep.openUploads(folders);
    for (const folder of folders) {
      await sweep.underLock(folder, async () => {
        // A crash can leave the folder of a completed upload (killed before its parts were
        // removed) or a part moved into place but not recorded: neither is ever read again.
        if (!open.has(folder)) {
          if (await isLeftover(uploadDir(fileRoot, folder))) await fsp.rm(uploadDir(fileRoot, folder), { recursive: true, force: true });
          return;
        }
        const wanted = new Set((await sweep.recordedParts(folder)).map((row) => path.basename(partPath(fileRoot, folder, row.part))));
        for (const name of await fsp.readdir(uploadDir(fileRoot, folder))) {
          const file = path.join(uploadDir(fileRoot, folder), name);
          if (!wanted.has(name) && (await isLeftover(file))) await fsp.rm(file, { force: true });
        }
      });
    }
  }

  removeLeftovers(): Promise<void> {
    return removeStorageLeftovers(this.db, this.fileRoot, { shared: this.shared });
  }

  async close(): Promise<void> {}
}

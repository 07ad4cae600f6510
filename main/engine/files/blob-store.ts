// File contents on disk, content-addressed: DATA/blobs/ab/cd/<sha256>. An upload
// streams into DATA/tmp/ while it is hashed, so memory stays flat whatever its
// size, and only a complete upload is moved (renamed) into place. A blob lives as
// long as a private file names it in file_hash. See docs/files.md.
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

/** How many leading bytes are kept to recognise a file's type. */
const SNIFF_BYTES = 16;

export interface ReceivedFile {
  /** Where the bytes are until they are adopted as a blob (or discarded). */
  readonly tempPath: string;
  readonly sha256: string;
  readonly size: number;
  /** The first bytes, for recognising the type of a file with no telling name. */
  readonly head: Buffer;
}

/** Thrown while streaming when a file grows past the limit; the route answers 413. */
export class FileTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`file larger than ${limitBytes} bytes`);
  }
}

export const tempDir = (dataDir: string) => path.join(dataDir, 'tmp');
export const blobsDir = (dataDir: string) => path.join(dataDir, 'blobs');

export function blobPath(dataDir: string, sha256: string): string {
  if (!/^[0-9a-f]{64}$/.test(sha256)) throw new Error(`not a sha256: ${sha256}`);
  return path.join(blobsDir(dataDir), sha256.slice(0, 2), sha256.slice(2, 4), sha256);
}

/** A fresh path under DATA/tmp/ for bytes on their way in. */
export function newTempPath(dataDir: string, purpose: string): string {
  return path.join(tempDir(dataDir), `${purpose}-${randomBytes(12).toString('hex')}.partial`);
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
export async function receiveToTempFile(dataDir: string, source: Readable | Readable[], maxBytes: number, purpose = 'upload'): Promise<ReceivedFile> {
  const tempPath = newTempPath(dataDir, purpose);
  await fsp.mkdir(path.dirname(tempPath), { recursive: true });
  const meter = new MeteringStream(maxBytes);
  const output = fs.createWriteStream(tempPath, { flags: 'wx' });
  try {
    const sources = Array.isArray(source) ? source : [source];
    // Several sources (the parts of a chunked upload) are written one after another.
    await pipeline(async function* () {
      for (const stream of sources) yield* stream;
    }, meter, output);
  } catch (error) {
    // The file is opened asynchronously: a source that fails at once can fail before
    // the open has created it. Removing it only after the stream has closed leaves no
    // empty temp file behind.
    if (!output.closed) await once(output, 'close').catch(() => undefined);
    await discardTempFile(tempPath);
    throw error;
  }
  return { tempPath, size: meter.size, ...meter.digest() };
}

export async function discardTempFile(tempPath: string): Promise<void> {
  await fsp.rm(tempPath, { force: true });
}

// Work on one blob is serialised, so that "is any file still using it?" and "a new
// file now uses it" never interleave: the check and the unlink happen together.
const blobLock = new KeyedLock();
const withBlobLock = <T>(dataDir: string, sha256: string, work: () => Promise<T>) => blobLock.run(`${dataDir}\0${sha256}`, work);

async function isBlobReferenced(db: Kysely<Database>, sha256: string): Promise<boolean> {
  const row = await db.selectFrom('private_files').select('id').where('file_hash', '=', sha256).limit(1).executeTakeFirst();
  return row !== undefined;
}

async function unlinkIfUnreferenced(context: EngineContext, sha256: string): Promise<void> {
  if (await isBlobReferenced(context.db, sha256)) return;
  await fsp.rm(blobPath(context.store.dataDir, sha256), { force: true });
}

/**
 * Moves a received file into the blob store and runs `persist` (which writes the
 * row that names the blob) under the blob's lock. If `persist` fails, a blob that
 * no file names is removed again: nothing is left behind.
 */
export async function adoptBlob<T>(context: EngineContext, received: ReceivedFile, persist: () => Promise<T>): Promise<T> {
  const target = blobPath(context.store.dataDir, received.sha256);
  return withBlobLock(context.store.dataDir, received.sha256, async () => {
    try {
      await fsp.mkdir(path.dirname(target), { recursive: true });
      // Same name, same bytes: an existing blob is kept and the new copy dropped.
      if (fs.existsSync(target)) await discardTempFile(received.tempPath);
      else await fsp.rename(received.tempPath, target);
      return await persist();
    } catch (error) {
      await discardTempFile(received.tempPath);
      await unlinkIfUnreferenced(context, received.sha256);
      throw error;
    }
  });
}

/** Call after a write that stopped naming a blob (file deleted, contents replaced); run outside any transaction. */
export async function releaseBlob(context: EngineContext, sha256: string | null): Promise<void> {
  if (!sha256) return;
  await withBlobLock(context.store.dataDir, sha256, () => unlinkIfUnreferenced(context, sha256));
}

/** Stores bytes made in memory (demo files, rendered system images) as a received file ready to adopt. */
export async function receiveBuffer(dataDir: string, bytes: Buffer, purpose: string): Promise<ReceivedFile> {
  return receiveToTempFile(dataDir, Readable.from([bytes]), Number.MAX_SAFE_INTEGER, purpose);
}

/**
 * At engine start, before any request: temp files are leftovers of uploads cut
 * off by a crash, and blobs no file names are leftovers of a crash between the
 * move into place and the commit of the row.
 */
export async function removeStorageLeftovers(db: Kysely<Database>, dataDir: string): Promise<void> {
  await fsp.rm(tempDir(dataDir), { recursive: true, force: true });
  await fsp.mkdir(tempDir(dataDir), { recursive: true });
  const onDisk = await listBlobHashes(dataDir);
  if (onDisk.length === 0) return;
  const referenced = new Set<string>();
  const batchSize = 500;
  for (let start = 0; start < onDisk.length; start += batchSize) {
    const batch = onDisk.slice(start, start + batchSize);
    const rows = await db.selectFrom('private_files').select('file_hash').where('file_hash', 'in', batch).execute();
    for (const row of rows) if (row.file_hash) referenced.add(row.file_hash);
  }
  for (const sha256 of onDisk) if (!referenced.has(sha256)) await fsp.rm(blobPath(dataDir, sha256), { force: true });
}

async function listBlobHashes(dataDir: string): Promise<string[]> {
  const hashes: string[] = [];
  const readDir = async (dir: string) => (await fsp.readdir(dir, { withFileTypes: true }).catch(() => []));
  for (const first of await readDir(blobsDir(dataDir))) {
    if (!first.isDirectory()) continue;
    for (const second of await readDir(path.join(blobsDir(dataDir), first.name))) {
      if (!second.isDirectory()) continue;
      for (const entry of await readDir(path.join(blobsDir(dataDir), first.name, second.name))) {
        if (entry.isFile() && /^[0-9a-f]{64}$/.test(entry.name)) hashes.push(entry.name);
      }
    }
  }
  return hashes;
}

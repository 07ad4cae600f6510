// Bytes on their way into the blob store (blob-store.ts): streamed into ROOT/tmp/
// while they are hashed, so memory stays flat whatever their size, or written there
// from memory when they are already held (a small file read whole). A received
// file is then adopted as a blob, or discarded. See docs/files.md.
import type fs from 'node:fs';
import { once } from 'node:events';
import fsp, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { type Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { makePrivateFolderAsync, PRIVATE_FILE_MODE } from '../store/private-files.ts';
import type { IncomingCopy, LazySource } from './blob-backend.ts';

const isCode = (error: unknown, code: string) => (error as NodeJS.ErrnoException).code === code;

/** How many leading bytes are kept to recognise a file's type. */
export const SNIFF_BYTES = 16;

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

/**
 * What makes a temp name this process's own among the processes sharing a file root:
 * drawn at random once, then counted (random bytes drawn for every name were a visible
 * cost of a 1,000-file drop: issue 30). The temp folder is private, so names need not
 * be hard to guess, and a temp file is never created over an existing one.
 */
const tempNamePrefix = randomBytes(12).toString('hex');
let tempNamesGiven = 0;

/** A fresh path under ROOT/tmp/ for bytes on their way in. */
export function newTempPath(fileRoot: string, purpose: string): string {
  tempNamesGiven += 1;
  return path.join(tempDir(fileRoot), `${purpose}-${tempNamePrefix}-${tempNamesGiven.toString(36)}.partial`);
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
 * holds them once the store has all of them (a failing store fails the receiving). On
 * any failure (too large, the client went away) the temp file is removed before the
 * error is rethrown.
 */
export async function receiveToTempFile(fileRoot: string, source: Readable | Array<Readable | LazySource>, maxBytes: number, purpose = 'upload', copy?: IncomingCopy | null): Promise<ReceivedFile> {
  const tempPath = newTempPath(fileRoot, purpose);
  const meter = new MeteringStream(maxBytes);
  let output: fs.WriteStream | null = null;
  let storedAt: string | undefined;
  try {
    output = (await createTempFile(tempPath)).createWriteStream();
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
    // The stream closes the file asynchronously: it is removed once that is done, so no
    // temp file is left open behind (on Windows, its name would stay until then).
    if (output && !output.closed) await once(output, 'close').catch(() => undefined);
    await discardTempFile(tempPath);
    throw error;
  }
  return { tempPath, size: meter.size, ...meter.digest(), ...(storedAt ? { storedAt } : {}) };
}

/**
 * The temp folders this process has made: each is made once, not before every file
 * (a 1,000-file drop into a project folder made the same folder 1,000 times).
 */
const madeTempFolders = new Set<string>();

/**
 * Creates a new temp file, private from the start (a blob is this file hard-linked into
 * place, an upload part is this file renamed), and never over an existing one. Its
 * folder is made the first time; one removed since (by hand, or by a cleaner of temp
 * folders) fails the create with ENOENT, and is then made again for one more try.
 */
async function createTempFile(tempPath: string): Promise<FileHandle> {
  const folder = path.dirname(tempPath);
  const create = () => fsp.open(tempPath, 'wx', PRIVATE_FILE_MODE);
  if (madeTempFolders.has(folder)) {
    try {
      return await create();
    } catch (error) {
      if (!isCode(error, 'ENOENT')) throw error;
    }
  }
  await makePrivateFolderAsync(folder);
  madeTempFolders.add(folder);
  return create();
}

/** A temp file is always a file: one unlink (rm would lstat it first), and gone already is fine. */
export async function discardTempFile(tempPath: string): Promise<void> {
  try {
    await fsp.unlink(tempPath);
  } catch (error) {
    if (!isCode(error, 'ENOENT')) throw error;
  }
}

/**
 * Stores bytes held in memory (demo files, rendered system images, a small file the
 * folder watcher read whole) as a received file ready to adopt: one write, no streams.
 */
export async function receiveBuffer(fileRoot: string, bytes: Buffer, purpose: string): Promise<ReceivedFile> {
  const tempPath = newTempPath(fileRoot, purpose);
  const handle = await createTempFile(tempPath);
  try {
    await handle.writeFile(bytes);
    await handle.close();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await discardTempFile(tempPath);
    throw error;
  }
  // The head is a copy: the received file, kept until adopted, does not hold on to all the bytes.
  return { tempPath, sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length, head: Buffer.from(bytes.subarray(0, SNIFF_BYTES)) };
}

// File contents on disk, content-addressed: ROOT/blobs/ab/cd/<sha256>, where ROOT
// is the data folder or the --blob-dir that several server processes share. An
// upload streams into ROOT/tmp/ while it is hashed (blob-receive.ts), so memory stays
// flat whatever its size, and only a complete upload is linked into place. A blob lives as
// long as a private file names it in file_hash, or a kept version of one does. See docs/files.md.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import type { Database } from '../store/tables.ts';
import type { EngineContext } from '../context.ts';
import { KeyedLock } from './keyed-lock.ts';
import { makePrivateFolderAsync } from '../store/private-files.ts';
import type { BlobBackend, LazySource, PartSweep } from './blob-backend.ts';
import type { ByteRange } from './blob-response.ts';
import { discardTempFile, newTempPath, type ReceivedFile, SNIFF_BYTES, tempDir } from './blob-receive.ts';

export { discardTempFile, FileTooLargeError, newTempPath, receiveBuffer, receiveToTempFile, type ReceivedFile, tempDir } from './blob-receive.ts';

export const blobsDir = (fileRoot: string) => path.join(fileRoot, 'blobs');

export function blobPath(fileRoot: string, sha256: string): string {
  if (!/^[0-9a-f]{64}$/.test(sha256)) throw new Error(`not a sha256: ${sha256}`);
  return path.join(blobsDir(fileRoot), sha256.slice(0, 2), sha256.slice(2, 4), sha256);
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

/**
 * Identical contents once, in the order of their hashes: the order in which an
 * adoption of several files takes their blobs' locks, so two never wait on each other.
 * The received copies left out stay with the caller, to discard.
 */
export function distinctContents(received: readonly ReceivedFile[]): ReceivedFile[] {
  return [...new Map(received.map((file) => [file.sha256, file])).values()].sort((a, b) => (a.sha256 < b.sha256 ? -1 : 1));
}

/** BlobBackend.adoptAll as one adoption inside another: each blob's lock is held until `persist` has run. */
export function adoptInTurn<T>(backend: Pick<BlobBackend, 'adopt'>, received: readonly ReceivedFile[], persist: () => Promise<T>): Promise<T> {
  const blobs = distinctContents(received);
  const adoptFrom = (index: number): Promise<T> => (index === blobs.length ? persist() : backend.adopt(blobs[index]!, () => adoptFrom(index + 1)));
  return adoptFrom(0);
}

/** Waits for all of `work` (none is left running behind), then throws the first failure. */
async function settleAll(work: ReadonlyArray<Promise<unknown>>): Promise<void> {
  const failed = (await Promise.allSettled(work)).find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;
}

/** Links a received file in as its blob; an existing blob has the same bytes (same name), and the received copy waits as a spare. */
async function linkIntoPlace(fileRoot: string, received: ReceivedFile): Promise<void> {
  const target = blobPath(fileRoot, received.sha256);
  // The blob's folder usually exists: it is made only when the link says it is missing.
  try {
    await linkUnlessPresent(received.tempPath, target);
  } catch (error) {
    if (!isCode(error, 'ENOENT')) throw error;
    await makePrivateFolderAsync(path.dirname(target));
    await linkUnlessPresent(received.tempPath, target);
  }
}

/**
 * Adopts the received files (their distinct contents) into the folder with one
 * `persist`: each blob's lock is taken, in the order of their hashes, then the work on
 * the blobs is done for all of them at once (a batch's links one after another were
 * most of its time: issue 30), each as adopting it alone would.
 */
async function adoptIntoFolder<T>(db: Kysely<Database>, fileRoot: string, shared: boolean, received: readonly ReceivedFile[], persist: () => Promise<T>): Promise<T> {
  const blobs = distinctContents(received);
  const adoptLocked = async (): Promise<T> => {
    try {
      await settleAll(blobs.map((blob) => linkIntoPlace(fileRoot, blob)));
      const result = await persist();
      // A removal in another process may have taken a blob between the link and the commit.
      // Looked at first: a link that fails with EEXIST, the usual case, costs more than an lstat.
      // A store alone with its file root (SQLite) has no such process, and removals here
      // wait for the blob's lock: nothing to look at.
      if (shared) {
        await settleAll(
          blobs.map(async (blob) => {
            const target = blobPath(fileRoot, blob.sha256);
            if (!(await pathExists(target))) await linkUnlessPresent(blob.tempPath, target);
          }),
        );
      }
      return result;
    } catch (error) {
      await settleAll(blobs.map((blob) => unlinkIfUnreferenced(db, fileRoot, blob.sha256)));
      throw error;
    } finally {
      await settleAll(blobs.map((blob) => discardTempFile(blob.tempPath)));
    }
  };
  const lockFrom = (index: number): Promise<T> => (index === blobs.length ? adoptLocked() : withBlobLock(fileRoot, blobs[index]!.sha256, () => lockFrom(index + 1)));
  return lockFrom(0);
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
    return adoptIntoFolder(this.db, this.fileRoot, this.shared, [received], persist);
  }

  adoptAll<T>(received: readonly ReceivedFile[], persist: () => Promise<T>): Promise<T> {
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

// The file contents a store copy (store-copy.ts) takes along: every blob the
// private files and their kept versions name, and the parts of chunked uploads
// still open. Each is hashed on the way and put in place only when its bytes match
// its sha256; what is missing or damaged is reported, not fatal.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Kysely } from 'kysely';
import { blobPath, newTempPath, uploadsDir } from '../files/blob-store.ts';
import { makePrivateFolderAsync, PRIVATE_FILE_MODE } from './private-files.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the source's tables are read as discovered, untyped
type AnyKysely = Kysely<any>;

export interface FileCopyReport {
  /** Files the source names: private files' blobs, and the parts of unfinished chunked uploads. */
  files: number;
  bytes: number;
  copied: number;
  /** Already in the target with the right contents (checked), so left as they were. */
  alreadyPresent: number;
  /** Blobs named by private_files.file_hash that the source does not have. */
  missing: string[];
  /** Source files whose contents do not hash to their name: not copied. */
  damaged: string[];
  /** Parts of unfinished uploads that are missing or damaged: those uploads cannot complete on the target. */
  unusableUploadParts: string[];
}

/** How far the files are: reported as each file's bytes go through. */
export interface FileCopyProgress {
  phase: 'files';
  files: number;
  totalFiles: number;
  bytes: number;
  totalBytes: number;
}

interface FileToCopy {
  /** For messages: the blob's sha256, or uploads/<id>/<n>.part. */
  label: string;
  from: string;
  to: string;
  sha256: string;
  /** A private file's blob (missing is an error), or a part of an unfinished upload (missing spoils only that upload). */
  kind: 'blob' | 'part';
}

const SHA256 = /^[0-9a-f]{64}$/;

/** The sha256 names of the blobs private files and their kept versions name, sorted. */
export async function referencedBlobs(db: AnyKysely): Promise<string[]> {
  const rows = await db.selectFrom('private_files').select('file_hash').distinct().where('file_hash', 'is not', null).execute();
  const versions = await db.selectFrom('private_file_versions').select('file_hash').distinct().execute();
  const hashes = new Set([...rows, ...versions].map((row) => String(row.file_hash)).filter((hash) => hash !== ''));
  return [...hashes].sort();
}

/** The files to copy from `fromRoot` to `toRoot`, and the names that cannot be a blob's or a part's. */
export async function filesToCopy(db: AnyKysely, fromRoot: string, toRoot: string, now: Date): Promise<{ files: FileToCopy[]; badNames: string[] }> {
  const files: FileToCopy[] = [];
  const badNames: string[] = [];
  for (const hash of await referencedBlobs(db)) {
    if (!SHA256.test(hash)) {
      badNames.push(hash);
      continue;
    }
    files.push({ label: hash, from: blobPath(fromRoot, hash), to: blobPath(toRoot, hash), sha256: hash, kind: 'blob' });
  }
  // Parts of chunked uploads still open: without them such an upload could not complete on the target.
  const parts = await db
    .selectFrom('file_upload_parts')
    .innerJoin('file_uploads', 'file_uploads.id', 'file_upload_parts.upload_id')
    .select(['file_upload_parts.upload_id', 'file_upload_parts.part_number', 'file_upload_parts.etag'])
    .where('file_uploads.completed_file_id', 'is', null)
    .where('file_uploads.expires_at', '>', now.toISOString())
    .orderBy('file_upload_parts.upload_id')
    .orderBy('file_upload_parts.part_number')
    .execute();
  for (const part of parts) {
    const uploadId = String(part.upload_id);
    const relative = path.join(uploadId, `${Number(part.part_number)}.part`);
    if (!/^[0-9a-zA-Z_-]+$/.test(uploadId) || !SHA256.test(String(part.etag))) {
      badNames.push(`uploads/${relative}`);
      continue;
    }
    files.push({ label: `uploads/${relative}`, from: path.join(uploadsDir(fromRoot), relative), to: path.join(uploadsDir(toRoot), relative), sha256: String(part.etag), kind: 'part' });
  }
  return { files, badNames };
}

async function sizeOf(file: string): Promise<number | null> {
  try {
    return (await fsp.stat(file)).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Counts and hashes the bytes that flow through it. */
class HashingCounter extends Transform {
  readonly hash = createHash('sha256');
  constructor(private readonly onBytes: (count: number) => void) {
    super();
  }
  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.hash.update(chunk);
    this.onBytes(chunk.length);
    callback(null, chunk);
  }
}

async function hashFile(file: string, onBytes: (count: number) => void): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1024 * 1024 })) {
    hash.update(chunk as Buffer);
    onBytes((chunk as Buffer).length);
  }
  return hash.digest('hex');
}

/**
 * Copies each file to the target, hashing it on the way, and puts it in place only
 * when the bytes match its sha256. A target file already holding the right bytes is
 * kept. The copy goes through the target root's tmp/ and is renamed into place, so a
 * blob's name never shows partial contents.
 */
export async function copyFiles(files: readonly FileToCopy[], toRoot: string, report: FileCopyReport, onProgress?: (progress: FileCopyProgress) => void): Promise<void> {
  const sizes: (number | null)[] = [];
  for (const file of files) sizes.push(await sizeOf(file.from));
  const totalBytes = sizes.reduce<number>((sum, size) => sum + (size ?? 0), 0);
  report.files = files.length;
  report.bytes = totalBytes;
  let done = 0;
  let doneBytes = 0;
  let fileBytes = 0;
  const progress = () => onProgress?.({ phase: 'files', files: done, totalFiles: files.length, bytes: doneBytes + fileBytes, totalBytes });
  const count = (n: number) => {
    fileBytes += n;
    progress();
  };
  const spoil = (file: FileToCopy, how: 'missing' | 'damaged') => {
    if (file.kind === 'part') report.unusableUploadParts.push(`${file.label} (${how})`);
    else report[how].push(file.label);
  };
  progress();

  for (const [index, file] of files.entries()) {
    const size = sizes[index]!;
    fileBytes = 0;
    if (size === null) {
      spoil(file, 'missing');
    } else if (path.resolve(file.from) === path.resolve(file.to)) {
      // The same folder on both sides: nothing to copy, only to check.
      if ((await hashFile(file.from, count)) === file.sha256) report.alreadyPresent += 1;
      else spoil(file, 'damaged');
    } else if ((await sizeOf(file.to)) === size && (await hashFile(file.to, count)) === file.sha256) {
      // Copied by an earlier run (or the same contents under another file's name).
      report.alreadyPresent += 1;
    } else {
      fileBytes = 0;
      const temp = newTempPath(toRoot, 'migrate');
      await makePrivateFolderAsync(path.dirname(temp));
      const counter = new HashingCounter(count);
      try {
        await pipeline(fs.createReadStream(file.from, { highWaterMark: 1024 * 1024 }), counter, fs.createWriteStream(temp, { flags: 'wx', mode: PRIVATE_FILE_MODE }));
        if (counter.hash.digest('hex') === file.sha256) {
          await makePrivateFolderAsync(path.dirname(file.to));
          await fsp.rename(temp, file.to);
          report.copied += 1;
        } else {
          spoil(file, 'damaged');
        }
      } finally {
        await fsp.rm(temp, { force: true });
      }
    }
    done += 1;
    doneBytes += size ?? 0;
    fileBytes = 0;
    progress();
  }
}

// `solardesk admin migrate-blobs`: copies a server's file contents between a folder
// and an object store, in either direction. Every blob a file or a kept version
// names is streamed from the source through a hash into a temp file and put to the
// target only when the hash matches its name, so a corrupt or truncated source is
// reported, never copied. A blob the target already has (same size) is skipped,
// so a run cut off anywhere is simply run again. It may run beside a live server:
// after a pass it looks again for blobs named meanwhile, until a pass finds none.
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { Database } from '../store/tables.ts';
import type { Store } from '../store/database.ts';
import type { BlobBackend } from './blob-backend.ts';
import { discardTempFile, FolderBlobs, receiveToTempFile } from './blob-store.ts';
import { ObjectStoreBlobs } from './object-store-blobs.ts';
import { parseObjectStoreAddress } from './object-store-address.ts';

export interface MigrationProgress {
  files: number;
  totalFiles: number;
  bytes: number;
  totalBytes: number;
  /** Already in the target, from an earlier run or a live server. */
  skipped: number;
  /** Seconds left at the pace so far; null until there is a pace. */
  secondsLeft: number | null;
  pass: number;
}

export interface MigrationResult {
  copied: number;
  skipped: number;
  bytesCopied: number;
  /** Named by a row but missing from the source: nothing to copy. */
  missing: string[];
  /** The source's bytes did not hash to the blob's name: not copied. */
  corrupt: string[];
  passes: number;
}

/** A folder path or an `s3://` address as a backend over `store`'s database. */
export function openBlobBackendAt(where: string, store: Store, tempRoot: string): BlobBackend {
  if (where.startsWith('s3://')) return new ObjectStoreBlobs(store.db, store, tempRoot, parseObjectStoreAddress(where));
  return new FolderBlobs(store.db, path.resolve(where), store.shared);
}

/** Every blob rows name, with its size. */
async function namedBlobs(db: Kysely<Database>): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  for (const row of await db.selectFrom('private_files').select(['file_hash', 'filesize']).where('file_hash', 'is not', null).execute()) {
    sizes.set(row.file_hash!, Number(row.filesize));
  }
  for (const row of await db.selectFrom('private_file_versions').select(['file_hash', 'filesize']).execute()) sizes.set(row.file_hash, Number(row.filesize));
  return sizes;
}

/** How many passes look for blobs named while the one before ran, at most. */
const MAX_CATCH_UP_PASSES = 10;

export async function migrateBlobs(
  db: Kysely<Database>,
  source: BlobBackend,
  target: BlobBackend,
  options: { onProgress?: (progress: MigrationProgress) => void | Promise<void>; maxBytes?: number } = {},
): Promise<MigrationResult> {
  const tempRoot = await fsp.mkdtemp(path.join(os.tmpdir(), 'solardesk-migrate-blobs-'));
  const result: MigrationResult = { copied: 0, skipped: 0, bytesCopied: 0, missing: [], corrupt: [], passes: 0 };
  const done = new Set<string>();
  const started = Date.now();
  try {
    for (let pass = 1; pass <= MAX_CATCH_UP_PASSES; pass++) {
      const todo = [...(await namedBlobs(db))].filter(([hash]) => !done.has(hash));
      if (todo.length === 0) break;
      result.passes = pass;
      const totalBytes = todo.reduce((sum, [, size]) => sum + size, 0);
      let files = 0;
      let bytes = 0;
      let copiedBytesThisPass = 0;
      for (const [hash, size] of todo) {
        done.add(hash);
        if ((await target.size(hash)) === size) {
          result.skipped++;
        } else if ((await source.size(hash)) === null) {
          result.missing.push(hash);
        } else {
          const received = await receiveToTempFile(tempRoot, [() => source.read(hash)], options.maxBytes ?? Number.MAX_SAFE_INTEGER, 'migrate');
          try {
            if (received.sha256 !== hash) result.corrupt.push(hash);
            else {
              await target.putVerified(received);
              result.copied++;
              result.bytesCopied += received.size;
              copiedBytesThisPass += received.size;
            }
          } finally {
            await discardTempFile(received.tempPath);
          }
        }
        files++;
        bytes += size;
        const elapsed = (Date.now() - started) / 1000;
        const pace = copiedBytesThisPass > 0 && elapsed > 0 ? bytes / elapsed : 0;
        await options.onProgress?.({
          files,
          totalFiles: todo.length,
          bytes,
          totalBytes,
          skipped: result.skipped,
          secondsLeft: pace > 0 ? Math.round((totalBytes - bytes) / pace) : null,
          pass,
        });
      }
    }
  } finally {
    await fsp.rm(tempRoot, { recursive: true, force: true });
  }
  return result;
}

/** One progress line: "pass 1: 120/400 files, 1.2 GiB/3.9 GiB, about 3 min left". */
export function progressLine(progress: MigrationProgress): string {
  const gib = (bytes: number) => (bytes >= 1024 ** 3 ? `${(bytes / 1024 ** 3).toFixed(1)} GiB` : `${(bytes / 1024 ** 2).toFixed(1)} MiB`);
  const left = progress.secondsLeft === null ? '' : progress.secondsLeft < 90 ? `, about ${progress.secondsLeft} s left` : `, about ${Math.round(progress.secondsLeft / 60)} min left`;
  return `pass ${progress.pass}: ${progress.files}/${progress.totalFiles} files, ${gib(progress.bytes)}/${gib(progress.totalBytes)}${progress.skipped ? ` (${progress.skipped} already there)` : ''}${left}`;
}

// A replicated file's contents on their way down, kept across cuts and restarts
// (issue 32): field staff on a phone's link lose it at every hill, and a download
// that starts again from zero each time never ends. The bytes go to a part file
// named by what they belong to (the file's id and the sha256 its record names), with
// the ETag the remote sent them under beside it. The next attempt asks only for the
// rest (Range, with If-Range: that ETag), so a remote whose file changed meanwhile
// sends the new contents whole (200) and the part starts over. The final sha256 is
// checked before the bytes become a blob; a part that fails it is dropped.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import type { Database } from '../engine/store/tables.ts';
import { FileTooLargeError, type ReceivedFile, blobPath, newTempPath, tempDir } from '../engine/files/blob-store.ts';
import { KeyedLock } from '../engine/files/keyed-lock.ts';
import { makePrivateFolderAsync, PRIVATE_FILE_MODE } from '../engine/store/private-files.ts';

/** Where parts are kept: beside the blobs (same disk, so a finished part is renamed, not copied), outside tmp/, which is emptied at start. */
export const downloadPartsDir = (fileRoot: string) => path.join(fileRoot, 'downloads');

const PART_NAME = /^(\d+)-([0-9a-f]{64})\.part$/;
/** How many leading bytes a received file keeps to recognise its type (as blob-store's receive does). */
const HEAD_BYTES = 16;

/** What the bytes of a part came under: the ETag asked for again with If-Range. */
interface PartFacts {
  fileId: number;
  sha256: string;
  etag: string | null;
}

/** A resumed answer that does not start where the kept bytes end: nothing of it can be appended. */
export class MisplacedRangeError extends Error {}

/** Answers a ranged request: `range` is what to ask for (absent: from the start), `onAnswer` must be told the answer's status and headers. */
export type OpenDownload = (
  range: { start: number; ifRange: string } | undefined,
  onAnswer: (answer: { status: number; headers: Record<string, string | string[] | undefined> }) => void,
) => Readable;

/** One part per file and contents: only one attempt at a time writes it (a person's open waits for the prefetch already fetching it). */
const partLock = new KeyedLock();

export class DownloadPart {
  readonly path: string;
  private readonly factsPath: string;

  constructor(
    private readonly fileRoot: string,
    readonly fileId: number,
    readonly sha256: string,
  ) {
    this.path = path.join(downloadPartsDir(fileRoot), `${fileId}-${sha256}.part`);
    this.factsPath = `${this.path}.json`;
  }

  /** Runs `work` as the only one on this part (in this process; one agent owns a data folder). */
  exclusively<T>(work: () => Promise<T>): Promise<T> {
    return partLock.run(this.path, work);
  }

  /** The bytes kept so far (0 when none). */
  async keptBytes(): Promise<number> {
    return (await fsp.stat(this.path).catch(() => null))?.size ?? 0;
  }

  private async facts(): Promise<PartFacts | null> {
    try {
      const facts = JSON.parse(await fsp.readFile(this.factsPath, 'utf8')) as Partial<PartFacts>;
      return facts.fileId === this.fileId && facts.sha256 === this.sha256 ? { fileId: this.fileId, sha256: this.sha256, etag: typeof facts.etag === 'string' ? facts.etag : null } : null;
    } catch {
      return null;
    }
  }

  /** Parts of the same file for other contents: the record moved on, they can never finish. */
  async dropOtherContents(): Promise<void> {
    const names = await fsp.readdir(downloadPartsDir(this.fileRoot)).catch(() => [] as string[]);
    for (const name of names) {
      const match = PART_NAME.exec(name.replace(/\.json$/, ''));
      if (match && Number(match[1]) === this.fileId && match[2] !== this.sha256) await fsp.rm(path.join(downloadPartsDir(this.fileRoot), name), { force: true });
    }
  }

  /**
   * One attempt: asks for what is missing (all of it when nothing is kept, or the ETag
   * is unknown) and appends it as it streams in. A cut keeps what arrived; a 200 where
   * a 206 was asked for (the contents changed) starts the part over. `onKept` is told
   * the bytes kept after each piece written (the activity log's progress).
   */
  async receive(open: OpenDownload, maxBytes: number, onKept?: (bytes: number) => void): Promise<void> {
    await makePrivateFolderAsync(downloadPartsDir(this.fileRoot));
    const kept = await this.keptBytes();
    const etag = kept > 0 ? ((await this.facts())?.etag ?? null) : null;
    const range = etag !== null ? { start: kept, ifRange: etag } : undefined;
    let answer: { status: number; headers: Record<string, string | string[] | undefined> } | undefined;
    const body = open(range, (given) => (answer = given));
    const output = await fsp.open(this.path, 'a', PRIVATE_FILE_MODE);
    let size = 0;
    let isPlaced = false;
    // Decided once the answer is known, before its first byte is written.
    const place = async () => {
      isPlaced = true;
      if (answer?.status === 206 && range) {
        const contentRange = String(answer.headers['content-range'] ?? '');
        if (!contentRange.startsWith(`bytes ${range.start}-`)) throw new MisplacedRangeError(`the remote answered the range from byte ${range.start} with "${contentRange}"`);
        size = range.start;
        return;
      }
      await output.truncate(0);
      const given = answer?.headers.etag;
      await fsp.writeFile(this.factsPath, JSON.stringify({ fileId: this.fileId, sha256: this.sha256, etag: typeof given === 'string' ? given : null } satisfies PartFacts), { mode: PRIVATE_FILE_MODE });
    };
    try {
      for await (const chunk of body as AsyncIterable<Buffer>) {
        if (!isPlaced) await place();
        size += chunk.length;
        if (size > maxBytes) throw new FileTooLargeError(maxBytes);
        await output.write(chunk);
        onKept?.(size);
      }
      if (!isPlaced) await place();
    } catch (error) {
      body.destroy();
      // Bytes that can never be part of the contents are not kept.
      if (error instanceof FileTooLargeError || error instanceof MisplacedRangeError) await this.discard();
      throw error;
    } finally {
      await output.close();
    }
  }

  /** The kept bytes as a received file ready to adopt, when their sha256 is the one the record names; else the part is dropped and null. */
  async finish(): Promise<ReceivedFile | null> {
    const hash = createHash('sha256');
    const headChunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of fs.createReadStream(this.path) as AsyncIterable<Buffer>) {
      if (size < HEAD_BYTES) headChunks.push(chunk.subarray(0, HEAD_BYTES - size));
      size += chunk.length;
      hash.update(chunk);
    }
    if (hash.digest('hex') !== this.sha256) {
      await this.discard();
      return null;
    }
    const tempPath = newTempPath(this.fileRoot, 'download');
    await makePrivateFolderAsync(tempDir(this.fileRoot));
    await fsp.rename(this.path, tempPath);
    await fsp.rm(this.factsPath, { force: true });
    return { tempPath, sha256: this.sha256, size, head: Buffer.concat(headChunks) };
  }

  async discard(): Promise<void> {
    await fsp.rm(this.path, { force: true });
    await fsp.rm(this.factsPath, { force: true });
  }
}

/**
 * At start: parts no file needs any more (the file is gone, its record names other
 * contents, or the blob is here after all) are removed; the others wait to be resumed.
 */
export async function removeUnneededDownloadParts(db: Kysely<Database>, fileRoot: string): Promise<void> {
  const folder = downloadPartsDir(fileRoot);
  const names = await fsp.readdir(folder).catch(() => [] as string[]);
  for (const name of names) {
    const match = PART_NAME.exec(name.replace(/\.json$/, ''));
    const row = match ? await db.selectFrom('private_files').select('file_hash').where('id', '=', Number(match[1])).executeTakeFirst() : undefined;
    const isNeeded = match !== null && row?.file_hash === match[2] && !fs.existsSync(blobPath(fileRoot, match[2]!));
    if (!isNeeded) await fsp.rm(path.join(folder, name), { force: true });
  }
}

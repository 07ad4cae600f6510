// Where file contents are kept: one interface, two backends. A folder (the data
// folder or a shared --blob-dir, blob-store.ts) is the default; an S3-compatible
// object store (--blob-store s3://..., object-store-blobs.ts) lets server processes
// on several machines share nothing but PostgreSQL and a bucket. Either way a
// received file first streams into this process's own temp folder while it is
// hashed (receiveToTempFile), and only then becomes a blob. See docs/files.md and
// docs/scale-out.md.
import type { Readable, Writable } from 'node:stream';
import type { ByteRange } from './blob-response.ts';
import type { ReceivedFile } from './blob-store.ts';

/** A stream opened only when it is first needed, so a long list of parts holds no open connections. */
export type LazySource = () => Promise<Readable>;

export interface BlobBackend {
  /** 'folder' or 'object-store', for logs and the admin commands. */
  readonly kind: 'folder' | 'object-store';
  /** Where, for messages; never includes a secret. */
  readonly location: string;
  /**
   * Makes `received` durable under its hash (once: identical contents are stored
   * once), then runs `persist`, which writes the row naming it. A blob no row names
   * when `persist` fails is removed again. Safe against a removal of the same blob
   * deciding at the same time in this or another process.
   */
  adopt<T>(received: ReceivedFile, persist: () => Promise<T>): Promise<T>;
  /**
   * adopt() for several received files with one `persist` (a batch of new files): the
   * same contents twice are adopted once (the other copies stay with the caller), and
   * the blobs' locks are taken in the order of their hashes (distinctContents), so two
   * batches never wait on each other's.
   */
  adoptAll<T>(received: readonly ReceivedFile[], persist: () => Promise<T>): Promise<T>;
  /** Removes the blob unless a file or a kept version still names it; run after a write that stopped naming it. */
  release(sha256: string): Promise<void>;
  /**
   * For a file of about `expectedBytes` on its way in, a copy to send on to the store
   * while it arrives (receiveToTempFile writes to it); null when this backend gains
   * nothing by it (a folder; a small file, which one request stores once it is hashed).
   */
  startIncoming(expectedBytes: number): IncomingCopy | null;
  /** The blob's size, or null when it is missing. */
  size(sha256: string): Promise<number | null>;
  /** The blob's bytes, or one inclusive span of them, streamed. */
  read(sha256: string, range?: ByteRange): Promise<Readable>;
  /**
   * A URL of the store that serves the blob itself, with `answer`'s type and name,
   * for `answer.seconds` and no longer; null when this backend streams its downloads
   * through the server (a folder always does; an object store unless told to redirect).
   */
  directDownloadUrl(sha256: string, answer: DirectDownloadAnswer): Promise<string | null>;
  /** A stored blob as a received file in `fileRoot`'s temp folder, ready to adopt again (a restored version); null when missing. */
  receiveStored(sha256: string, size: number): Promise<ReceivedFile | null>;
  /** Every blob's hash, in no particular order. */
  listBlobs(): AsyncIterable<string>;
  /** Puts bytes that are known to hash to their name (a copy between backends): no row is written. */
  putVerified(received: ReceivedFile): Promise<void>;

  /** Keeps one received part of a chunked upload where every process can read it. */
  putPart(uploadId: string, part: number, received: ReceivedFile): Promise<void>;
  /** The recorded parts, in order, as streams opened one at a time. */
  partSources(uploadId: string, parts: readonly { part: number; etag: string }[]): LazySource[];
  /** Removes every part of an upload. */
  removeParts(uploadId: string): Promise<void>;
  /**
   * Removes crash leftovers of uploads as far as sharing allows: part sets no open
   * upload names, parts no part row names, and the store's own unfinished multipart
   * uploads. `openUploads` says which of some upload ids are open, `recordedParts`
   * which parts an open one has recorded; `underLock` runs work on one upload
   * serialised with its part writes in this process.
   */
  sweepParts(sweep: PartSweep): Promise<void>;

  /** At start, before any request: removes crash leftovers (temp files, unnamed blobs) as far as sharing allows. */
  removeLeftovers(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A file sent on to an object store as it arrives, under a key of its own (its hash,
 * the blob's key, is known only at its end): the upload then takes the time of the
 * slower of receiving and storing, not of both in turn. Adopting the file copies it
 * to its blob key inside the store.
 */
export interface IncomingCopy {
  /** Where the bytes go as they arrive; ended after the last one. */
  readonly sink: Writable;
  /** The key that holds all of them once the store has them; rejects (503) when the store fails. */
  readonly stored: Promise<string>;
  /**
   * Stops sending, if it still is, and removes the incoming object: called by whoever
   * started the copy once the received file is adopted (copied to its blob key by
   * then) or given up. Never throws; an object the store will not remove now is left
   * to the sweep.
   */
  discard(): Promise<void>;
}

export interface DirectDownloadAnswer {
  contentType: string;
  contentDisposition: string;
  /** How long the URL may work: at most what is left of the link that asked for it. */
  seconds: number;
}

export interface PartSweep {
  openUploads(uploadIds: string[]): Promise<Set<string>>;
  recordedParts(uploadId: string): Promise<{ part: number; etag: string }[]>;
  underLock(uploadId: string, work: () => Promise<void>): Promise<void>;
}

// Sends a stored file: streamed from its blob (never read into memory), with its
// type and name, and single byte ranges (RFC 9110 section 14) so an interrupted
// download resumes where it stopped.
import fs from 'node:fs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EngineContext } from '../context.ts';
import type { PrivateFileRow } from '../store/tables.ts';
import { ApiError, notFound } from '../http/errors.ts';
import { blobPath } from './blob-store.ts';
import { contentDisposition, contentTypeFor, isTellingType, nameWithTypeExtension } from './file-types.ts';

export type ByteRange = { start: number; end: number };

/**
 * One `bytes=` range -> the inclusive byte span; 'unsatisfiable' for a range that
 * starts past the end; null for anything to ignore (no header, several ranges, a
 * malformed one), which RFC 9110 answers with the whole file.
 */
export function parseRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | null {
  const match = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!match) return null;
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return null;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  if (start >= size) return 'unsatisfiable';
  const end = last === '' ? size - 1 : Number(last);
  if (end < start) return null;
  return { start, end: Math.min(end, size - 1) };
}

/** Enough of a blob for contentTypeFor's signatures. */
const SIGNATURE_BYTES = 16;

/**
 * The name a download is saved under: the file's name, with an extension that fits
 * its type when it has none (a replica knows a remote file only by its title, typed
 * octet-stream, until its bytes are here: then its first bytes say what it is).
 */
async function downloadName(context: EngineContext, file: Pick<PrivateFileRow, 'mime_type' | 'file_name'>, sha256: string, size: number): Promise<string> {
  if (isTellingType(file.mime_type) || size === 0) return nameWithTypeExtension(file.file_name, [], file.mime_type);
  const chunks: Buffer[] = [];
  for await (const chunk of await context.blobs.read(sha256, { start: 0, end: Math.min(SIGNATURE_BYTES, size) - 1 })) chunks.push(chunk as Buffer);
  return nameWithTypeExtension(file.file_name, [], contentTypeFor('', Buffer.concat(chunks)));
}

export async function sendStoredFile(context: EngineContext, request: FastifyRequest, reply: FastifyReply, file: PrivateFileRow, options: SendOptions = {}): Promise<FastifyReply> {
  if (!file.file_hash) throw notFound('This file has no contents.');
  if (context.fetchMissingBlob && !fs.existsSync(blobPath(context.store.fileRoot, file.file_hash))) await context.fetchMissingBlob(file);
  return sendBlob(context, request, reply, { ...file, file_hash: file.file_hash, logId: { fileId: file.id } }, options);
}

export interface SendOptions {
  /**
   * When the signed link that asked expires (Unix seconds). Only a link's download may
   * be redirected to the store (`--blob-store ...&downloads=redirect`), and then for no
   * longer than the link has left.
   */
  linkExpires?: number;
}

/** What sendBlob needs of stored contents: a file's current ones, or a kept version's. */
export interface StoredContents {
  file_hash: string;
  mime_type: string;
  file_name: string;
  /** Last-Modified. */
  modified_date: string;
  /** Names the contents in the log when their blob is missing. */
  logId: Record<string, number>;
}

/**
 * Where the store may serve a link's download itself, the URL that does, valid no
 * longer than the link. A request with If-Range streams through the server: the
 * store's ETag is not the file's hash, so it could not tell a resumed download that
 * the contents are still the same.
 */
async function directDownloadUrl(context: EngineContext, request: FastifyRequest, sha256: string, headers: { contentType: string; contentDisposition: string }, options: SendOptions): Promise<string | null> {
  if (options.linkExpires === undefined || request.headers['if-range'] !== undefined) return null;
  const seconds = Math.floor(options.linkExpires - context.clock.now().getTime() / 1000);
  if (seconds < 1) return null;
  return context.blobs.directDownloadUrl(sha256, { ...headers, seconds });
}

/** Streams stored contents, honouring a single Range (see parseRange), or sends a link's download to the store (SendOptions). */
export async function sendBlob(context: EngineContext, request: FastifyRequest, reply: FastifyReply, file: StoredContents, options: SendOptions = {}): Promise<FastifyReply> {
  const size = await context.blobs.size(file.file_hash);
  if (size === null) {
    request.log.error(file.logId, 'the blob of a private file is missing');
    throw notFound('The contents of this file are missing on this server.');
  }
  const etag = `"${file.file_hash}"`;
  const ifRange = request.headers['if-range'];
  const range = ifRange === undefined || ifRange === etag ? parseRange(request.headers.range, size) : null;
  if (range === 'unsatisfiable') {
    throw new ApiError(416, { detail: `Range not satisfiable: the file has ${size} bytes.` }, { 'content-range': `bytes */${size}` });
  }
  const disposition = contentDisposition(await downloadName(context, file, file.file_hash, size), file.mime_type);
  const direct = await directDownloadUrl(context, request, file.file_hash, { contentType: file.mime_type, contentDisposition: disposition }, options);
  if (direct) {
    // The URL is a credential of its own: not cached, not passed on as a referrer.
    return reply.code(302).header('location', direct).header('cache-control', 'private, no-store').header('referrer-policy', 'no-referrer').send();
  }
  reply
    .header('content-type', file.mime_type)
    .header('content-disposition', disposition)
    .header('accept-ranges', 'bytes')
    .header('etag', etag)
    .header('last-modified', new Date(file.modified_date).toUTCString())
    // The bytes are private; a served file must never run as a page of this origin.
    .header('cache-control', 'private, no-cache')
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', "default-src 'none'; sandbox");
  if (range === null) {
    return reply.code(200).header('content-length', String(size)).send(size === 0 ? '' : await context.blobs.read(file.file_hash));
  }
  return reply
    .code(206)
    .header('content-range', `bytes ${range.start}-${range.end}/${size}`)
    .header('content-length', String(range.end - range.start + 1))
    .send(await context.blobs.read(file.file_hash, range));
}

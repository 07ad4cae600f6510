// Reading a multipart private file create (service.md 4.2) as it streams in: the
// `file_contents` part goes straight to a temp file while it is hashed, text
// parts are collected, and nothing is held in memory whatever the file's size.
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, fieldError } from '../http/errors.ts';
import { discardTempFile, FileTooLargeError, receiveToTempFile, type ReceivedFile } from './blob-store.ts';
import { describeBytes } from './file-settings.ts';
import type { BlobBackend, IncomingCopy } from './blob-backend.ts';

export const FILE_PART = 'file_contents';

/** Room for the text parts and part headers around the file, before a declared length counts as too large. */
const MULTIPART_OVERHEAD_ALLOWANCE = 1024 * 1024;
const MAX_TEXT_PART_BYTES = 64 * 1024;

export interface MultipartFile {
  received: ReceivedFile;
  /** The name the client gave the file part ('' when none). */
  fileName: string;
  /** The first value of each text part. */
  fields: Record<string, string>;
  /** Removes what is left of the received file once the request is done with it: its temp file, and any copy sent on to the store. */
  discard(): Promise<void>;
}

/**
 * 413 that also closes the connection: the rest of an oversize body is not read
 * (draining gigabytes to answer "no" would be the server's loss, not the client's).
 */
export function tooLarge(maxBytes: number): ApiError {
  return new ApiError(
    413,
    { detail: `The file is too large. This server accepts files of at most ${describeBytes(maxBytes)} (${maxBytes} bytes).` },
    { connection: 'close' },
  );
}

/**
 * A client that went away mid-upload is the client's doing, not a server fault:
 * answered (to no one) and logged as a 400, not as a 500.
 */
export function asCutOffUpload(request: FastifyRequest, error: unknown): unknown {
  if (error instanceof ApiError) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const cutOff = request.raw.aborted || request.raw.destroyed || code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE';
  return cutOff ? new ApiError(400, { detail: 'The upload was cut off before it was complete; nothing was kept.' }) : error;
}

/** What busboy throws about a body that is not well-formed multipart (no boundary, cut short). */
const MALFORMED_MULTIPART = /^(Multipart: Boundary not found|Boundary required|Unsupported Content-Type\.|Unexpected end of multipart data|.+ terminated early due to unexpected end of multipart data)$/;

/**
 * A body that is not well-formed multipart is the client's error: 400 (and
 * @fastify/multipart's own refusals, such as too many fields, keep their 4xx),
 * not a 500. The rest of such a body is not read.
 */
function asMalformedMultipart(error: unknown): ApiError | null {
  const statusCode = (error as { statusCode?: unknown } | undefined)?.statusCode;
  const message = error instanceof Error ? error.message : '';
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    return new ApiError(statusCode, { detail: `The multipart body was refused (${message}); nothing was kept.` }, { connection: 'close' });
  }
  if (MALFORMED_MULTIPART.test(message)) return new ApiError(400, { detail: `The multipart body is malformed (${message}); nothing was kept.` }, { connection: 'close' });
  return null;
}

/** A body that says up front it is larger than any acceptable upload is refused before a byte of it is read. */
export function refuseDeclaredOversize(request: FastifyRequest, maxBytes: number, allowance = 0): void {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes + allowance) throw tooLarge(maxBytes);
}

/**
 * `blobs`: where the file will be kept; an object store is sent a large file while it
 * arrives (BlobBackend.startIncoming), sized by the request's declared length.
 */
export async function receiveMultipartFile(request: FastifyRequest, fileRoot: string, maxBytes: number, blobs?: Pick<BlobBackend, 'startIncoming'>): Promise<MultipartFile> {
  if (!request.isMultipart()) {
    throw new ApiError(415, { detail: `Send the file as multipart/form-data, with the file in a part named "${FILE_PART}".` });
  }
  refuseDeclaredOversize(request, maxBytes, MULTIPART_OVERHEAD_ALLOWANCE);
  const fields: Record<string, string> = {};
  let received: ReceivedFile | undefined;
  let copy: IncomingCopy | null = null;
  let fileName = '';
  // The temp file, and the copy sent on to the store: what is left once the file is adopted or refused.
  const discard = async (file: ReceivedFile) => {
    await discardTempFile(file.tempPath);
    await copy?.discard();
  };
  try {
    // busboy stops one byte past the limit, which is enough for the meter to say "too large".
    const parts = request.parts({ limits: { fileSize: maxBytes + 1, fieldSize: MAX_TEXT_PART_BYTES, fields: 50 } });
    for await (const part of parts) {
      if (part.type === 'field') {
        if (typeof part.value === 'string') fields[part.fieldname] ??= part.value;
      } else if (part.fieldname === FILE_PART && !received) {
        fileName = part.filename;
        const declared = Number(request.headers['content-length']);
        copy = blobs && Number.isFinite(declared) ? blobs.startIncoming(declared) : null;
        received = await receiveToTempFile(fileRoot, part.file, maxBytes, 'upload', copy);
      } else {
        await drain(part.file);
      }
    }
  } catch (error) {
    if (received) await discard(received);
    if (error instanceof FileTooLargeError) throw tooLarge(maxBytes);
    throw asMalformedMultipart(error) ?? asCutOffUpload(request, error);
  }
  if (!received) throw fieldError(FILE_PART, 'No file was submitted.');
  const kept = received;
  return { received, fileName, fields, discard: () => discard(kept) };
}

/** Parts the route does not want still have to be read for the next one to arrive. */
async function drain(stream: Readable): Promise<void> {
  for await (const chunk of stream) void chunk;
}

const JSON_TYPE = /^application\/json\b/i;
const FIRST_LINE_BYTES = 80;

/**
 * compatibility.md: some clients send their default `Content-Type:
 * application/json` with a real multipart body. A multipart body starts with
 * `--<boundary>\r\n`, so the first line tells; the content type is then corrected
 * before Fastify picks a body parser. (A preParsing hook of the create route.)
 */
export async function recogniseMultipartSentAsJson(request: FastifyRequest, _reply: FastifyReply, payload: Readable): Promise<Readable> {
  const declared = request.headers['content-type'];
  if (!declared || !JSON_TYPE.test(declared) || payload !== request.raw) return payload;
  const { head, ended } = await peekFirstLine(request.raw);
  // A body shorter than one line is no multipart body; hand what was read to the JSON parser.
  if (ended) return Readable.from([head]);
  const boundary = /^--([^\r\n"]{1,70})\r\n/.exec(head.toString('latin1'))?.[1];
  if (boundary) request.raw.headers['content-type'] = `multipart/form-data; boundary="${boundary}"`;
  return payload;
}

/** Reads up to the first line break (or FIRST_LINE_BYTES) and puts it back, so the body is read whole later. */
function peekFirstLine(stream: Readable): Promise<{ head: Buffer; ended: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const cleanup = () => {
      stream.off('readable', onReadable);
      stream.off('end', onEnd);
      stream.off('error', onError);
    };
    const finish = (ended: boolean) => {
      cleanup();
      const head = Buffer.concat(chunks);
      if (!ended && head.length > 0) stream.unshift(head);
      resolve({ head, ended });
    };
    const onReadable = () => {
      let chunk: Buffer | null;
      while (length < FIRST_LINE_BYTES && (chunk = stream.read() as Buffer | null) !== null) {
        chunks.push(chunk);
        length += chunk.length;
        if (chunk.includes(0x0a)) break;
      }
      const head = Buffer.concat(chunks);
      if (length >= FIRST_LINE_BYTES || head.includes(0x0a)) finish(false);
    };
    const onEnd = () => finish(true);
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    stream.on('readable', onReadable);
    stream.on('end', onEnd);
    stream.on('error', onError);
  });
}

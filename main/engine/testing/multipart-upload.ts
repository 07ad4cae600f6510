// Sends a multipart private file create the way real clients do, streamed from a
// buffer or a file on disk, so tests and benchmarks can upload hundreds of
// megabytes without holding them in memory, and can control every header.
import fs from 'node:fs';
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';

export interface MultipartFilePart {
  fileName: string;
  /** The bytes, or the path of a file to stream them from. */
  contents: Buffer | { path: string };
  contentType?: string;
}

export interface MultipartBody {
  contentType: string;
  length: number;
  /** Fresh on each call: the body can be sent more than once. */
  stream(): Readable;
}

/** Text fields first, then the file part named `file_contents`. */
export function multipartBody(fields: Record<string, string>, file: MultipartFilePart, partName = 'file_contents'): MultipartBody {
  const boundary = `----solardesk${randomBytes(12).toString('hex')}`;
  const textParts = Object.entries(fields)
    .map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
    .join('');
  const fileHead = Buffer.from(
    `${textParts}--${boundary}\r\nContent-Disposition: form-data; name="${partName}"; filename="${file.fileName}"\r\n` +
      `Content-Type: ${file.contentType ?? 'application/octet-stream'}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const fileLength = Buffer.isBuffer(file.contents) ? file.contents.length : fs.statSync(file.contents.path).size;
  const contents = file.contents;
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    length: fileHead.length + fileLength + tail.length,
    stream: () =>
      Readable.from(
        (async function* () {
          yield fileHead;
          if (Buffer.isBuffer(contents)) yield contents;
          else yield* fs.createReadStream(contents.path, { highWaterMark: 1024 * 1024 });
          yield tail;
        })(),
      ),
  };
}

export interface UploadResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- callers index into the file record
}

/** POSTs a multipart body over a plain HTTP connection; `headers` may override the content type. */
export function postMultipart(url: string, token: string, body: MultipartBody, headers: Record<string, string> = {}): Promise<UploadResponse> {
  return sendMultipart('POST', url, token, body, headers);
}

/** Sends a multipart body with any method (PUT for new contents). */
export function sendMultipart(method: string, url: string, token: string, body: MultipartBody, headers: Record<string, string> = {}): Promise<UploadResponse> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': body.contentType, 'content-length': String(body.length), ...headers },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = text ? JSON.parse(text) : undefined;
          } catch {
            json = undefined;
          }
          resolve({ status: response.statusCode ?? 0, headers: response.headers, json });
        });
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    body.stream().pipe(request);
  });
}

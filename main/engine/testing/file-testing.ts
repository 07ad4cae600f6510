// Helpers the private file tests share: upload through the real HTTP route, and
// look at what is on disk (blobs, temp files, upload parts).
import fs from 'node:fs';
import path from 'node:path';
import type { TestServer } from './test-server.ts';
import { multipartBody, postMultipart, type UploadResponse } from './multipart-upload.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { STATE_HANG_GUARD_MS } from '../../testing/hang-guards.ts';

export async function uploadFile(
  server: TestServer,
  token: string,
  bytes: Buffer,
  fileName: string,
  fields: Record<string, string> = {},
  orgId = 1,
): Promise<UploadResponse> {
  return postMultipart(`${server.baseUrl}${apiPaths.privateFiles(orgId)}`, token, multipartBody(fields, { fileName, contents: bytes }));
}

/** Uploads and insists on 201; returns the file record. */
export async function createFile(server: TestServer, token: string, bytes: Buffer | string, fileName: string, fields: Record<string, string> = {}, orgId = 1) {
  const response = await uploadFile(server, token, Buffer.from(bytes), fileName, fields, orgId);
  if (response.status !== 201) throw new Error(`upload of ${fileName} failed: ${response.status} ${JSON.stringify(response.json)}`);
  return response.json;
}

/** Every file below a folder, as paths relative to it (none when it does not exist). */
export function filesBelow(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true, withFileTypes: true }) as fs.Dirent[])
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)));
}

export const blobNames = (server: TestServer) => filesBelow(path.join(server.dataDir, 'blobs')).map((file) => path.basename(file)).sort();
export const tempFiles = (server: TestServer) => filesBelow(path.join(server.dataDir, 'tmp'));
export const uploadPartFiles = (server: TestServer) => filesBelow(path.join(server.dataDir, 'uploads'));

/**
 * Polls until the check passes (the server cleans up after a dropped connection on its
 * own time). `timeoutMs` is what a call expects on a quiet machine; the wait gives up no
 * sooner than STATE_HANG_GUARD_MS, so a loaded machine never fails it by chance (issue 33).
 */
export async function eventually(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + Math.max(timeoutMs, STATE_HANG_GUARD_MS);
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Downloads a signed link with no Authorization header. */
export async function download(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { headers });
  return { status: response.status, headers: response.headers, body: Buffer.from(await response.arrayBuffer()) };
}

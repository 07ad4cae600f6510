// Issue 35's checks: where a file's bytes are, by sha256, on disk in its project
// folder, in the agent's replica (the blob its record names) and on the server (the
// record's file_hash and the bytes its signed link gives).
import fs from 'node:fs';
import path from 'node:path';
import type { SyncHarness } from '../../sync/testing/sync-harness.ts';
import { folderCopiesOf } from '../../watch/folder-records.ts';
import type { TestServer } from '../../engine/testing/test-server.ts';
import { download } from '../../engine/testing/file-testing.ts';
import { multipartBody, sendMultipart } from '../../engine/testing/multipart-upload.ts';
import { blobPath } from '../../engine/files/blob-store.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { sha256, type Json } from './folder-harness.ts';

export interface BytesEverywhere {
  /** sha256 of the folder copy, null when it is not there. */
  disk: string | null;
  /** The replica record's file_hash, and whether its blob is here with exactly those bytes. */
  replica: { hash: string | null; blobHere: boolean };
  /** The server record's file_hash, and sha256 of what its link gives. */
  server: { hash: string | null; bytes: string | null };
}

export const sha256Of = (bytes: string | Buffer) => sha256(Buffer.from(bytes));

export async function bytesEverywhere(h: SyncHarness, diskPath: string, fileId: number): Promise<BytesEverywhere> {
  const disk = fs.existsSync(diskPath) ? sha256(fs.readFileSync(diskPath)) : null;
  const record = await h.agent.engine.context.db.selectFrom('private_files').select('file_hash').where('id', '=', fileId).executeTakeFirst();
  const hash = record?.file_hash ?? null;
  const blob = hash ? blobPath(h.agent.engine.context.store.fileRoot, hash) : null;
  const blobHere = blob !== null && fs.existsSync(blob) && sha256(fs.readFileSync(blob)) === hash;
  const remote = await h.remote('GET', apiPaths.privateFile(1, fileId));
  const remoteJson = remote.status === 200 ? (remote.json as Json) : null;
  const bytes = remoteJson?.file_contents ? await download(remoteJson.file_contents as string) : null;
  return { disk, replica: { hash, blobHere }, server: { hash: remoteJson?.file_hash ?? null, bytes: bytes && bytes.status === 200 ? sha256(bytes.body) : null } };
}

/** A colleague replaces the file's contents on the server (the contents route: a new version there). */
export async function replaceOnServer(server: TestServer, token: string, fileId: number, bytes: string, fileName: string): Promise<Json> {
  const response = await sendMultipart('PUT', `${server.baseUrl}${apiPaths.privateFileContents(1, fileId)}`, token, multipartBody({}, { fileName, contents: Buffer.from(bytes) }));
  if (response.status !== 200) throw new Error(`replacing the contents of file ${fileId} failed: ${response.status} ${JSON.stringify(response.json)}`);
  return response.json as Json;
}

/** The folder copy's path by the name the agent mapped for this file. */
export async function mappedPath(h: SyncHarness, folder: string, fileId: number): Promise<string | null> {
  const [copy] = await folderCopiesOf(h.agent.engine.context.db, fileId);
  return copy ? path.join(folder, copy.name) : null;
}

// files.upload and files.download: moving bytes between the renderer, the local
// API and the project folders. Uploads use the engine's chunked upload routes, so
// progress is real (one event per part) and a later resume is possible. Which
// folder and which name a download gets is main/watch/'s rule, the watcher's own.
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { BridgeError, type ApiResponse, type FileUploadRequest, type UploadProgress, type UploadStarted, type UploadStartRequest } from '../../shared/bridge.ts';
import { apiPaths, parseOrgReference } from '../../shared/api-paths.ts';
import type { PrivateFileJson, PrivateFileVersionJson, UploadJson } from '../../shared/schemas/private-file.ts';
import { describeApiError, type RawApiRequest } from './local-api.ts';
import { fileNameFromContentDisposition } from '../engine/files/file-types.ts';
import { safeName } from '../watch/folder-names.ts';
import type { Database } from '../engine/store/tables.ts';
import { folderForProject, type FolderProject } from '../watch/project-folders.ts';
import { saveDownload } from '../watch/arrivals.ts';
import { HEAD_BYTES, nameWithExtension } from '../watch/file-extension.ts';

export const UPLOAD_PART_BYTES = 1024 * 1024;

type CallApi = (request: RawApiRequest) => Promise<ApiResponse>;

function failed(what: string, response: ApiResponse): BridgeError {
  return new BridgeError(`${what}: ${describeApiError(response)}`, { status: response.status, details: response.body });
}

/**
 * Why the server refused a file, in sentences that say what to do: too large
 * (413), over the quota (429), no permission (403). Other answers: `what` and the
 * API's words. Nothing of the file is kept either way (the upload is cancelled).
 */
export function uploadRefused(fileName: string, what: string, response: ApiResponse): BridgeError {
  const detail = describeApiError(response);
  const options = { status: response.status, details: response.body };
  if (response.status === 413) {
    return new BridgeError(
      `${fileName} was not uploaded: it is too large for this server. ${detail.replace(/^The file is too large\.\s*/, '')} Make it smaller (export a photo at a lower resolution, compress or split a PDF) and add it again.`,
      options,
    );
  }
  if (response.status === 429) {
    const seconds = Number(response.headers['retry-after']);
    const when = Number.isFinite(seconds) && seconds > 0 ? `in ${seconds < 120 ? `${Math.ceil(seconds)} seconds` : `${Math.ceil(seconds / 60)} minutes`}` : 'later';
    return new BridgeError(`${fileName} was not uploaded: the upload quota is used up for now. Nothing was attached; add the file again ${when}.`, options);
  }
  if (response.status === 403) {
    return new BridgeError(
      `${fileName} was not uploaded: your account may not add files here (${detail.replace(/\.$/, '')}). Ask an admin of your org for access to private files, then add it again.`,
      options,
    );
  }
  return failed(what, response);
}

/** Starts a chunked upload for the renderer, which sends the parts itself (files.uploadPart) so its progress is what reached the engine. */
export async function startUpload(callApi: CallApi, orgId: number, request: UploadStartRequest): Promise<UploadStarted> {
  const started = await callApi({
    method: 'POST',
    path: apiPaths.fileUploads(orgId),
    body: { filename: request.fileName, title: request.title || undefined, project: request.projectId, size: request.size },
  });
  if (started.status !== 201) throw uploadRefused(request.fileName, `Could not start uploading ${request.fileName}`, started);
  return { uploadId: (started.body as UploadJson).upload_id, partBytes: UPLOAD_PART_BYTES };
}

export async function sendUploadPart(callApi: CallApi, orgId: number, request: { uploadId: string; fileName: string; part: number; bytes: Uint8Array }): Promise<{ part: number; size: number }> {
  const sent = await callApi({ method: 'PUT', path: apiPaths.fileUploadPart(orgId, request.uploadId, request.part), bytes: request.bytes });
  if (sent.status !== 200) {
    await cancelUpload(callApi, orgId, request.uploadId).catch(() => undefined);
    throw uploadRefused(request.fileName, `Could not upload part ${request.part} of ${request.fileName}`, sent);
  }
  return { part: request.part, size: request.bytes.length };
}

export async function finishUpload(callApi: CallApi, orgId: number, { uploadId, fileName }: { uploadId: string; fileName: string }): Promise<ApiResponse> {
  const completed = await callApi({ method: 'POST', path: apiPaths.fileUploadComplete(orgId, uploadId) });
  if (completed.status !== 201 && completed.status !== 200) {
    await cancelUpload(callApi, orgId, uploadId).catch(() => undefined);
    throw uploadRefused(fileName, `Could not finish uploading ${fileName}`, completed);
  }
  return completed;
}

/** Removes an open upload's parts (DELETE on the upload): nothing of it is attached or kept. An upload already gone is cancelled too. */
export async function cancelUpload(callApi: CallApi, orgId: number, uploadId: string): Promise<{ cancelled: boolean }> {
  const answer = await callApi({ method: 'DELETE', path: apiPaths.fileUpload(orgId, uploadId) });
  if (answer.status === 204 || answer.status === 404) return { cancelled: true };
  if (answer.status === 409) return { cancelled: false };
  throw failed('Could not cancel the upload', answer);
}

export async function uploadFile(
  callApi: CallApi,
  orgId: number,
  request: FileUploadRequest,
  report: (progress: UploadProgress) => void,
): Promise<ApiResponse> {
  const totalBytes = request.bytes.length;
  const progress = (sentBytes: number, state: UploadProgress['state'], error?: string) =>
    report({ uploadId: request.uploadId, projectId: request.projectId, fileName: request.fileName, sentBytes, totalBytes, state, ...(error ? { error } : {}) });
  progress(0, 'uploading');
  let uploadId: string | null = null;
  try {
    const started = await callApi({
      method: 'POST',
      path: apiPaths.fileUploads(orgId),
      body: { filename: request.fileName, title: request.title || undefined, project: request.projectId, size: totalBytes },
    });
    if (started.status !== 201) throw uploadRefused(request.fileName, `Could not start uploading ${request.fileName}`, started);
    uploadId = (started.body as UploadJson).upload_id;
    const partCount = Math.max(1, Math.ceil(totalBytes / UPLOAD_PART_BYTES));
    for (let part = 1; part <= partCount; part++) {
      const bytes = request.bytes.subarray((part - 1) * UPLOAD_PART_BYTES, part * UPLOAD_PART_BYTES);
      const sent = await callApi({ method: 'PUT', path: apiPaths.fileUploadPart(orgId, uploadId, part), bytes });
      if (sent.status !== 200) throw uploadRefused(request.fileName, `Could not upload part ${part} of ${request.fileName}`, sent);
      progress(Math.min(part * UPLOAD_PART_BYTES, totalBytes), 'uploading');
    }
    const completed = await callApi({ method: 'POST', path: apiPaths.fileUploadComplete(orgId, uploadId) });
    if (completed.status !== 201 && completed.status !== 200) throw uploadRefused(request.fileName, `Could not finish uploading ${request.fileName}`, completed);
    progress(totalBytes, 'done');
    return completed;
  } catch (error) {
    // Nothing half-attached: the parts already sent go now, not at the upload's expiry.
    if (uploadId) await cancelUpload(callApi, orgId, uploadId).catch(() => undefined);
    progress(0, 'failed', (error as Error).message);
    throw error instanceof BridgeError ? error : new BridgeError(`Could not upload ${request.fileName}: ${(error as Error).message}`);
  }
}

/** Where a workspace's project folders live: its store (the watch_projects mapping) and the root its watcher watches. */
export interface WorkspaceFolders {
  db: Kysely<Database>;
  root: string;
}

/** The folder of a project, as the folder watcher has it or would make it (main/watch/project-folders.ts). */
export async function projectFolder(callApi: CallApi, orgId: number, folders: WorkspaceFolders, projectId: number): Promise<string> {
  // Through the API, not the store: the session's user must be able to see the project.
  const project = await callApi({ method: 'GET', path: apiPaths.project(orgId, projectId) });
  if (project.status !== 200) throw failed(`Could not find project ${projectId}`, project);
  try {
    return await folderForProject(folders.db, folders.root, project.body as FolderProject);
  } catch (error) {
    throw new BridgeError(`Could not open the folder of project ${projectId}: ${(error as Error).message}`);
  }
}

/**
 * Saves a private file into its project's folder (or the root for files without
 * one), named as the watcher names a folder copy: its title with an extension that
 * matches its type (main/watch/file-extension.ts), never over a different file.
 */
export async function downloadFile(callApi: CallApi, orgId: number, folders: WorkspaceFolders, fileId: number): Promise<{ path: string; bytes: number }> {
  const described = await callApi({ method: 'GET', path: apiPaths.privateFile(orgId, fileId) });
  if (described.status !== 200) throw failed(`Could not find file ${fileId}`, described);
  const file = described.body as PrivateFileJson;
  // file_contents is a signed link that needs no token (service.md 2.2).
  const response = await fetch(file.file_contents);
  if (!response.ok) throw new BridgeError(`Could not download ${file.title}: the local API answered ${response.status}.`, { status: response.status });
  const bytes = new Uint8Array(await response.arrayBuffer());
  const project = parseOrgReference(file.project, 'projects');
  // The engine's name for the file (Content-Disposition) gives the extension when the title has none.
  const fileName = fileNameFromContentDisposition(response.headers.get('content-disposition')) ?? '';
  const name = await nameWithExtension(file.title, fileName, response.headers.get('content-type'), bytes.subarray(0, HEAD_BYTES), `file-${fileId}`);
  const folder = project ? await projectFolder(callApi, orgId, folders, project.id) : folders.root;
  try {
    return { path: await saveDownload(folders.root, folder, name, bytes), bytes: bytes.length };
  } catch (error) {
    throw new BridgeError(`Could not save ${file.title}: ${(error as Error).message}`);
  }
}

/** One multipart/form-data body with the file in the part `file_contents`, as the engine's file routes read it (encoded by the platform's FormData). */
async function multipartFileBody(fileName: string, bytes: Uint8Array): Promise<{ contentType: string; body: Uint8Array }> {
  const form = new FormData();
  form.append('file_contents', new Blob([bytes]), fileName);
  const encoded = new Response(form);
  return { contentType: encoded.headers.get('content-type')!, body: new Uint8Array(await encoded.arrayBuffer()) };
}

/** New contents for a private file, which keeps its id (docs/files.md "Versions"). */
export async function replaceContents(callApi: CallApi, orgId: number, request: { fileId: number; fileName: string; bytes: Uint8Array }): Promise<ApiResponse> {
  const { contentType, body } = await multipartFileBody(request.fileName, request.bytes);
  const response = await callApi({ method: 'PUT', path: apiPaths.privateFileContents(orgId, request.fileId), bytes: body, contentType });
  if (response.status !== 200) throw failed(`Could not replace the contents of ${request.fileName}`, response);
  return response;
}

/**
 * Where downloaded versions go: a hidden folder under the folder root, so the
 * watcher never takes an old version for a new file of the project
 * (docs/project-folders.md: names starting with a dot are left alone).
 */
export const VERSIONS_FOLDER = '.earlier-versions';

type FetchBytes = (path: string) => Promise<ApiResponse & { bytes: Uint8Array | null }>;

/**
 * Saves one earlier version of a private file (docs/files.md "Versions") as
 * "<name> (version <date>)<ext>" in <workspace's folders>/.earlier-versions/<project folder>/,
 * never over a different file.
 */
export async function downloadFileVersion(
  callApi: CallApi,
  fetchBytes: FetchBytes,
  orgId: number,
  folders: WorkspaceFolders,
  fileId: number,
  versionId: number,
): Promise<{ path: string; bytes: number }> {
  const described = await callApi({ method: 'GET', path: apiPaths.privateFileVersions(orgId, fileId) });
  if (described.status !== 200) throw failed(`Could not list the versions of file ${fileId}`, described);
  const version = (described.body as PrivateFileVersionJson[]).find((candidate) => candidate.id === versionId);
  if (!version) throw new BridgeError(`File ${fileId} has no version ${versionId} (any more): versions older than 30 days beyond the newest 10 are not kept.`, { status: 404 });
  const response = await fetchBytes(apiPaths.privateFileVersionContents(orgId, fileId, versionId));
  if (!response.bytes) throw failed(`Could not download version ${versionId} of file ${fileId}`, response);
  const file = await callApi({ method: 'GET', path: apiPaths.privateFile(orgId, fileId) });
  const project = file.status === 200 ? parseOrgReference((file.body as PrivateFileJson).project, 'projects') : null;
  const folder = project
    ? path.join(folders.root, VERSIONS_FOLDER, path.basename(await projectFolder(callApi, orgId, folders, project.id)))
    : path.join(folders.root, VERSIONS_FOLDER);
  await fsp.mkdir(folder, { recursive: true });
  const extension = path.extname(version.file_name);
  const stem = version.file_name.slice(0, version.file_name.length - extension.length);
  // "2026-11-24 03.12": sorts by date, and has no character any disk refuses.
  const when = version.replaced_at.slice(0, 16).replace('T', ' ').replace(':', '.');
  const name = safeName(`${stem} (version ${when})${extension}`, `file-${fileId}-version-${versionId}${extension}`);
  return { path: await saveDownload(folders.root, folder, name, response.bytes), bytes: response.bytes.length };
}

// files.upload and files.download: moving bytes between the renderer, the local
// API and the project folders. Uploads use the engine's chunked upload routes, so
// progress is real (one event per part) and a later resume is possible. Which
// folder and which name a download gets is main/watch/'s rule, the watcher's own.
import type { Kysely } from 'kysely';
import { BridgeError, type ApiResponse, type FileUploadRequest, type UploadProgress } from '../../shared/bridge.ts';
import { apiPaths, parseOrgReference } from '../../shared/api-paths.ts';
import type { PrivateFileJson, UploadJson } from '../../shared/schemas/private-file.ts';
import { describeApiError, type RawApiRequest } from './local-api.ts';
import { fileNameFromContentDisposition } from '../engine/files/file-types.ts';
import type { Database } from '../engine/store/tables.ts';
import { folderForProject, type FolderProject } from '../watch/project-folders.ts';
import { saveDownload } from '../watch/arrivals.ts';
import { HEAD_BYTES, nameWithExtension } from '../watch/file-extension.ts';

export const UPLOAD_PART_BYTES = 1024 * 1024;

type CallApi = (request: RawApiRequest) => Promise<ApiResponse>;

function failed(what: string, response: ApiResponse): BridgeError {
  return new BridgeError(`${what}: ${describeApiError(response)}`, { status: response.status, details: response.body });
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
  try {
    const started = await callApi({
      method: 'POST',
      path: apiPaths.fileUploads(orgId),
      body: { filename: request.fileName, title: request.title || undefined, project: request.projectId, size: totalBytes },
    });
    if (started.status !== 201) throw failed(`Could not start uploading ${request.fileName}`, started);
    const uploadId = (started.body as UploadJson).upload_id;
    const partCount = Math.max(1, Math.ceil(totalBytes / UPLOAD_PART_BYTES));
    for (let part = 1; part <= partCount; part++) {
      const bytes = request.bytes.subarray((part - 1) * UPLOAD_PART_BYTES, part * UPLOAD_PART_BYTES);
      const sent = await callApi({ method: 'PUT', path: apiPaths.fileUploadPart(orgId, uploadId, part), bytes });
      if (sent.status !== 200) throw failed(`Could not upload part ${part} of ${request.fileName}`, sent);
      progress(Math.min(part * UPLOAD_PART_BYTES, totalBytes), 'uploading');
    }
    const completed = await callApi({ method: 'POST', path: apiPaths.fileUploadComplete(orgId, uploadId) });
    if (completed.status !== 201 && completed.status !== 200) throw failed(`Could not finish uploading ${request.fileName}`, completed);
    progress(totalBytes, 'done');
    return completed;
  } catch (error) {
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

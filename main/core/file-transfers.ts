// files.upload and files.download: moving bytes between the renderer, the local
// API and the project folders. Uploads use the engine's chunked upload routes, so
// progress is real (one event per part) and a later resume is possible.
import path from 'node:path';
import { BridgeError, type ApiResponse, type FileUploadRequest, type UploadProgress } from '../../shared/bridge.ts';
import { apiPaths, parseOrgReference } from '../../shared/api-paths.ts';
import type { PrivateFileJson, UploadJson } from '../../shared/schemas/private-file.ts';
import { describeApiError, type RawApiRequest } from './local-api.ts';
import { projectFolderName, safeName } from '../watch/folder-names.ts';
import { saveIntoProjectFolder, saveWithoutOverwriting } from './project-folders.ts';
import { fileNameFromContentDisposition } from '../engine/files/file-types.ts';

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

/** The folder of a project under the folder root. */
export async function projectFolder(callApi: CallApi, orgId: number, folderRoot: string, projectId: number): Promise<string> {
  const project = await callApi({ method: 'GET', path: apiPaths.project(orgId, projectId) });
  if (project.status !== 200) throw failed(`Could not find project ${projectId}`, project);
  return path.join(folderRoot, projectFolderName(project.body as { id: number; title?: string; identifier?: string }));
}

/** Saves a private file into its project's folder (or the root for files without one). */
export async function downloadFile(callApi: CallApi, orgId: number, folderRoot: string, fileId: number): Promise<{ path: string; bytes: number }> {
  const described = await callApi({ method: 'GET', path: apiPaths.privateFile(orgId, fileId) });
  if (described.status !== 200) throw failed(`Could not find file ${fileId}`, described);
  const file = described.body as PrivateFileJson;
  // file_contents is a signed link that needs no token (service.md 2.2).
  const response = await fetch(file.file_contents);
  if (!response.ok) throw new BridgeError(`Could not download ${file.title}: the local API answered ${response.status}.`, { status: response.status });
  const bytes = new Uint8Array(await response.arrayBuffer());
  const project = parseOrgReference(file.project, 'projects');
  const name = safeName(fileNameOf(response, file), `file-${fileId}`);
  const saved = project
    ? await saveIntoProjectFolder(await projectFolder(callApi, orgId, folderRoot, project.id), name, bytes)
    : await saveWithoutOverwriting(folderRoot, name, bytes);
  return { path: saved, bytes: bytes.length };
}

/** The name from Content-Disposition if the engine sent one, else the title. */
function fileNameOf(response: Response, file: PrivateFileJson): string {
  return fileNameFromContentDisposition(response.headers.get('content-disposition')) ?? file.title;
}

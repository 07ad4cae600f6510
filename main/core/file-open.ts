// "Open" and "Show in folder" on the desktop (docs/files.md "Thumbnails and
// viewers"): both need the file on disk. The copy in its project folder is used
// when the folder watcher has one with the file's current contents; otherwise the
// file is downloaded there first (files.download's rule: never over a different
// file), so the system's app opens a file that stays with the project.
import fs from 'node:fs';
import path from 'node:path';
import { apiPaths } from '../../shared/api-paths.ts';
import { BridgeError, type ApiResponse } from '../../shared/bridge.ts';
import type { PrivateFileJson } from '../../shared/schemas/private-file.ts';
import { describeApiError, type RawApiRequest } from './local-api.ts';
import { downloadFile, type WorkspaceFolders } from './file-transfers.ts';
import { folderCopiesOf } from '../watch/folder-records.ts';

type CallApi = (request: RawApiRequest) => Promise<ApiResponse>;

/** The file's copy on this computer: the folder copy the watcher mapped, if it still holds these contents, else a fresh download into the project folder. */
export async function localCopyOf(callApi: CallApi, orgId: number, folders: WorkspaceFolders, fileId: number): Promise<string> {
  const described = await callApi({ method: 'GET', path: apiPaths.privateFile(orgId, fileId) });
  if (described.status !== 200) throw new BridgeError(`Could not find file ${fileId}: ${describeApiError(described)}`, { status: described.status });
  const file = described.body as PrivateFileJson;
  const mapped = await folderCopiesOf(folders.db, fileId);
  for (const copy of mapped) {
    const candidate = path.join(folders.root, copy.folder, copy.name);
    if (file.file_hash && copy.file_hash !== file.file_hash) continue;
    try {
      if (fs.statSync(candidate).size === copy.size) return candidate;
    } catch {
      // moved or deleted since the watcher saw it: download instead
    }
  }
  return (await downloadFile(callApi, orgId, folders, fileId)).path;
}

// The bridge channels of the local API and files: api.request, uploads (whole and
// in parts), downloads into the project folders, new contents, the desktop's Open
// and Show in folder, and opening a project's folder (file-transfers.ts does the work).
import fsp from 'node:fs/promises';
import { BridgeError, type BridgeHandlers } from '../../shared/bridge.ts';
import type { CoreRuntime } from './core-runtime.ts';
import { callLocalApiForBytes } from './local-api.ts';
import { cancelUpload, downloadFile, downloadFileVersion, finishUpload, projectFolder, replaceContents, sendUploadPart, startUpload, uploadFile } from './file-transfers.ts';
import { localCopyOf } from './file-open.ts';

type FileChannels =
  | 'api.request'
  | 'files.upload'
  | 'files.uploadStart'
  | 'files.uploadPart'
  | 'files.uploadFinish'
  | 'files.uploadCancel'
  | 'files.download'
  | 'files.downloadVersion'
  | 'files.replaceContents'
  | 'files.open'
  | 'files.showInFolder'
  | 'folder.open';

const notOnDesktop = (what: string) =>
  new BridgeError(`${what} works in the desktop app only. Here, Download saves the file into its project folder, with an extension your system opens.`, { code: 'not_available' });

export function fileHandlers(runtime: CoreRuntime): Pick<BridgeHandlers, FileChannels> {
  const { options, events, callApi, orgId, workspaceFolders } = runtime;
  return {
    // What a write changed reaches `records.changed` from the engine (core-runtime.ts), not from here.
    'api.request': (request) => callApi(request),

    'files.upload': async (request) => uploadFile(callApi, await orgId(), request, (progress) => events.emit('upload.progress', progress)),
    'files.uploadStart': async (request) => startUpload(callApi, await orgId(), request),
    'files.uploadPart': async (request) => sendUploadPart(callApi, await orgId(), request),
    'files.uploadFinish': async (request) => finishUpload(callApi, await orgId(), request),
    'files.uploadCancel': async ({ uploadId }) => cancelUpload(callApi, await orgId(), uploadId),

    'files.download': async ({ fileId }) => downloadFile(callApi, await orgId(), await workspaceFolders(), fileId),

    'files.downloadVersion': async ({ fileId, versionId }) =>
      downloadFileVersion(callApi, (path) => callLocalApiForBytes(runtime.current, path), await orgId(), await workspaceFolders(), fileId, versionId),

    'files.replaceContents': async (request) => replaceContents(callApi, await orgId(), request),

    'files.open': async ({ fileId }) => {
      if (!options.openFile) throw notOnDesktop('Open');
      const file = await localCopyOf(callApi, await orgId(), await workspaceFolders(), fileId);
      return { path: file, opened: await options.openFile(file) };
    },

    'files.showInFolder': async ({ fileId }) => {
      if (!options.showItemInFolder) throw notOnDesktop('Show in folder');
      const file = await localCopyOf(callApi, await orgId(), await workspaceFolders(), fileId);
      options.showItemInFolder(file);
      return { path: file };
    },

    'folder.open': async ({ projectId }) => {
      const folders = await workspaceFolders();
      const folder = projectId === undefined ? folders.root : await projectFolder(callApi, await orgId(), folders, projectId);
      await fsp.mkdir(folder, { recursive: true });
      return { path: folder, opened: await options.openFolder(folder) };
    },
  };
}

// The bridge channels of Settings: read them, change them (a new org, remote or
// folder root swaps the backend, and with it the project folders watcher), and the
// desktop's folder dialog.
import path from 'node:path';
import { BridgeError, type BridgeHandlers, type FolderRootChange, type Settings } from '../../shared/bridge.ts';
import type { CoreRuntime } from './core-runtime.ts';
import { FolderMoveError, moveFolderRoot, whyNotMove } from '../watch/move-root.ts';

type SettingsChannels = 'settings.get' | 'settings.set' | 'settings.chooseFolder' | 'settings.changeFolderRoot';

export function settingsHandlers(runtime: CoreRuntime): Pick<BridgeHandlers, SettingsChannels> {
  const { options } = runtime;
  return {
    'settings.get': async () => options.settings.read(),

    'settings.chooseFolder': async (request) => {
      if (!options.chooseFolder) return { available: false, path: null };
      const defaultPath = request?.defaultPath && path.isAbsolute(request.defaultPath) ? request.defaultPath : undefined;
      return { available: true, path: await options.chooseFolder(defaultPath) };
    },

    'settings.changeFolderRoot': async ({ folderRoot, moveFolders }) => {
      if (!path.isAbsolute(folderRoot)) throw new BridgeError('The folder root must be an absolute path.', { code: 'invalid_request' });
      const before = options.settings.read();
      const target = path.resolve(folderRoot);
      if (target === path.resolve(before.folderRoot)) return { settings: before, moved: null };
      if (moveFolders) {
        // Checked before anything stops, so a refusal changes nothing at all.
        const refusal = await whyNotMove(before.folderRoot, target);
        if (refusal) throw new BridgeError(refusal, { code: 'invalid_request' });
      }
      let moved: FolderRootChange['moved'] = null;
      // Moved while no watcher watches either root: a watcher seeing files go would hold their deletes.
      await runtime
        .restartBackend(undefined, async () => {
          if (moveFolders) {
            const result = await moveFolderRoot(before.folderRoot, target, (progress) => runtime.events.emit('folders.moveProgress', progress));
            moved = { files: result.files, bytes: result.bytes, copied: result.copied };
          }
          options.settings.write({ ...before, folderRoot: target, folderRootChosen: true });
        })
        .catch((error: unknown) => {
          throw error instanceof FolderMoveError ? new BridgeError(error.message) : error;
        });
      return { settings: options.settings.read(), moved };
    },

    'settings.set': async (patch) => {
      if (patch.folderRoot !== undefined && !path.isAbsolute(patch.folderRoot)) {
        throw new BridgeError('The folder root must be an absolute path.', { code: 'invalid_request' });
      }
      const before = options.settings.read();
      // A folder root saved is a folder root chosen.
      const after: Settings = { ...before, ...patch, ...(patch.folderRoot !== undefined ? { folderRootChosen: true } : {}) };
      // A sign-in belongs to the remote it was made with.
      if (after.remoteUrl !== before.remoteUrl) options.syncAgent?.forgetSignIn(options.dataDir);
      options.settings.write(after);
      // Either backend watches the folder root (main/core/folder-session.ts): a new root means a new watcher, started with the backend.
      if (after.orgId !== before.orgId || after.remoteUrl !== before.remoteUrl || after.folderRoot !== before.folderRoot || after.folderRootChosen !== before.folderRootChosen) await runtime.restartBackend();
      return after;
    },
  };
}

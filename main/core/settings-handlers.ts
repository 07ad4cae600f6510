// The bridge channels of Settings: read them, change them (a new org, remote or
// folder root swaps the backend, and with it the project folders watcher), and the
// desktop's folder dialog.
import path from 'node:path';
import { BridgeError, type BridgeHandlers, type Settings } from '../../shared/bridge.ts';
import type { CoreRuntime } from './core-runtime.ts';

type SettingsChannels = 'settings.get' | 'settings.set' | 'settings.chooseFolder';

export function settingsHandlers(runtime: CoreRuntime): Pick<BridgeHandlers, SettingsChannels> {
  const { options } = runtime;
  return {
    'settings.get': async () => options.settings.read(),

    'settings.chooseFolder': async (request) => {
      if (!options.chooseFolder) return { available: false, path: null };
      const defaultPath = request?.defaultPath && path.isAbsolute(request.defaultPath) ? request.defaultPath : undefined;
      return { available: true, path: await options.chooseFolder(defaultPath) };
    },

    'settings.set': async (patch) => {
      if (patch.folderRoot !== undefined && !path.isAbsolute(patch.folderRoot)) {
        throw new BridgeError('The folder root must be an absolute path.', { code: 'invalid_request' });
      }
      const before = options.settings.read();
      const after: Settings = { ...before, ...patch };
      // A sign-in belongs to the remote it was made with.
      if (after.remoteUrl !== before.remoteUrl) options.syncAgent?.forgetSignIn(options.dataDir);
      options.settings.write(after);
      // Either backend watches the folder root (main/core/folder-session.ts): a new root means a new watcher, started with the backend.
      if (after.orgId !== before.orgId || after.remoteUrl !== before.remoteUrl || after.folderRoot !== before.folderRoot) await runtime.restartBackend();
      return after;
    },
  };
}

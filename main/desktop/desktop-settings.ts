// The desktop's settings and window state, kept by electron-store in the user's
// app-data folder (browser mode keeps the same settings in a file in its data folder).
import Store from 'electron-store';
import { type SettingsStore, normaliseSettings } from '../core/host-stores.ts';
import type { Settings } from '../../shared/bridge.ts';
import type { SavedWindowState } from './window-state.ts';

interface DesktopStoreShape {
  settings?: Settings;
  windowState?: SavedWindowState;
}

export interface DesktopStores {
  settings: SettingsStore;
  readWindowState(): unknown;
  writeWindowState(state: SavedWindowState): void;
}

export function openDesktopStores(defaults: Settings): DesktopStores {
  const store = new Store<DesktopStoreShape>({ name: 'solardesk' });
  return {
    settings: {
      read: () => normaliseSettings(store.get('settings'), defaults),
      write: (settings) => store.set('settings', settings),
    },
    readWindowState: () => store.get('windowState'),
    writeWindowState: (state) => store.set('windowState', state),
  };
}

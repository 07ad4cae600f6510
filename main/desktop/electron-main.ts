// The Electron main process: one hardened window over the same core browser mode
// runs (main/core/app-core.ts), a tray icon that shows sync, native notifications, an
// application menu. Everything with a rule in it lives in a pure module beside
// this one and is tested in plain Node; this file only wires Electron to them.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { BrowserWindow, Menu, Notification, Tray, app, dialog, ipcMain, nativeImage, protocol, safeStorage, screen, session, shell } from 'electron';
import type { SyncState } from '../../shared/bridge.ts';
import { trayFaceOf } from '../../shared/sync-api.ts';
import { type AppCore, DataFolderInUseError, startAppCore } from '../core/app-core.ts';
import { createSyncAgentHost } from '../core/agent-backend.ts';
import { defaultSettings } from '../core/host-stores.ts';
import { safeStorageTokenStore } from '../core/safe-token-store.ts';
import { preloadBundle, rendererDist } from '../renderer-files.ts';
import { buildMenuTemplate } from './app-menu.ts';
import { answerAppRequest, mediaPathOf } from './app-protocol.ts';
import { openDesktopStores } from './desktop-settings.ts';
import { DESKTOP_EXIT_CODES } from './exit-codes.ts';
import { registerIpcBridge, windowOf } from './ipc-bridge.ts';
import { folderChooser, saveFileChooser } from './folder-dialog.ts';
import { noticesFor, trayBitmap, trayTooltip } from './tray-state.ts';
import { showActivityNotice } from './activity-notices.ts';
import { APP_SCHEME, APP_START_URL, buildWindowOptions, decideNavigation, isNativeModuleMismatch, isPermissionGranted } from './window-policy.ts';
import { restoreWindowState } from './window-state.ts';

protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } }]);
app.enableSandbox();

let mainWindow: BrowserWindow | null = null;

function focusMainWindow(): void {
  if (!mainWindow) return;
  if (mainWindow.isMinimized()) mainWindow.restore();
  mainWindow.show();
  mainWindow.focus();
}

// Every web contents, now or later, gets the same rules: no navigating away, no new windows, no webviews.
app.on('web-contents-created', (_event, contents) => {
  contents.on('will-navigate', (event, url) => {
    const decision = decideNavigation(url, 'navigate');
    if (decision.action === 'allow') return;
    event.preventDefault();
    if (decision.action === 'open-externally') void shell.openExternal(decision.url);
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    const decision = decideNavigation(url, 'new-window');
    if (decision.action === 'open-externally') void shell.openExternal(decision.url);
    return { action: 'deny' };
  });
});

async function startDesktop(): Promise<void> {
  const { values } = parseArgs({ args: process.argv.slice(1), options: { data: { type: 'string' } }, strict: false, allowPositionals: true });
  const dataDir = typeof values.data === 'string' ? path.resolve(values.data) : path.join(app.getPath('userData'), 'data');
  const stores = openDesktopStores(defaultSettings(path.join(app.getPath('documents'), 'SolarDesk'), { isFolderRootChosen: false }));

  let core: AppCore;
  // The window at an activity entry: a clicked notification's (the core is there by then).
  const openAtEntry = (entryId: number) => {
    focusMainWindow();
    core.events.emit('activity.open', { entryId });
  };
  try {
    core = await startAppCore({
      dataDir,
      hostName: 'the SolarDesk desktop app',
      settings: stores.settings,
      openFolder: async (folder) => (await shell.openPath(folder)) === '',
      chooseFolder: folderChooser(dialog, () => mainWindow),
      chooseSaveFile: saveFileChooser(dialog, () => mainWindow, app.getPath('documents')),
      openFile: async (file) => (await shell.openPath(file)) === '',
      showItemInFolder: (file) => shell.showItemInFolder(file),
      notify: (notice) => showActivityNotice(notice, openAtEntry),
      syncAgent: createSyncAgentHost({ remoteTokenStore: (replicaFolder) => safeStorageTokenStore(safeStorage, replicaFolder) }),
    });
  } catch (error) {
    if (isNativeModuleMismatch(error)) {
      console.error('SolarDesk: better-sqlite3 is built for Node, not for Electron.');
      app.exit(DESKTOP_EXIT_CODES.nativeModuleForNode);
      return;
    }
    if (error instanceof DataFolderInUseError) {
      console.error(`SolarDesk: ${error.message}`);
      dialog.showErrorBox('SolarDesk is already running on this data folder', `SolarDesk could not start: ${error.message}`);
      app.exit(1);
      return;
    }
    throw error;
  }

  session.defaultSession.setPermissionRequestHandler((_contents, permission, callback) => callback(isPermissionGranted(permission)));
  protocol.handle(APP_SCHEME, async (request) => {
    const media = mediaPathOf(request.url);
    if (media) {
      const answer = await core.media(media, request.headers.get('if-none-match') ?? undefined);
      return new Response(answer.status === 204 || answer.status === 304 ? null : (answer.body as ConstructorParameters<typeof Response>[0]), { status: answer.status, headers: answer.headers });
    }
    const answer = answerAppRequest(rendererDist, request.url);
    return new Response(answer.body, { status: answer.status, headers: answer.headers });
  });

  const saved = restoreWindowState(stores.readWindowState(), screen.getAllDisplays().map((display) => display.workArea));
  const isDark = stores.settings.read().theme === 'dark';
  mainWindow = new BrowserWindow(buildWindowOptions(preloadBundle, saved.bounds, isDark ? '#10151d' : '#f4f6f9'));
  if (saved.isMaximized) mainWindow.maximize();
  mainWindow.once('ready-to-show', () => mainWindow?.show());
  const rememberPlace = () => {
    if (mainWindow && !mainWindow.isDestroyed()) stores.writeWindowState({ bounds: mainWindow.getNormalBounds(), isMaximized: mainWindow.isMaximized() });
  };
  mainWindow.on('close', rememberPlace);
  mainWindow.on('closed', () => (mainWindow = null));

  const disposeBridge = registerIpcBridge({
    ipcMain,
    core,
    windows: () => (mainWindow ? [windowOf(mainWindow.webContents)] : []),
    onRefused: (reason) => console.error(`SolarDesk: refused ${reason}`),
  });

  const tray = new Tray(nativeImage.createEmpty());
  tray.on('click', focusMainWindow);
  let lastState: SyncState | null = null;
  const showSyncState = (state: SyncState) => {
    tray.setImage(nativeImage.createFromBitmap(trayBitmap(trayFaceOf(state.state)), { width: 32, height: 32 }).resize({ width: 16, height: 16 }));
    tray.setToolTip(trayTooltip(state));
    for (const notice of noticesFor(lastState, state)) {
      if (!Notification.isSupported()) break;
      const notification = new Notification({ title: notice.title, body: notice.body });
      notification.on('click', focusMainWindow);
      notification.show();
    }
    lastState = state;
  };
  const initialState = core.events.latestOf('sync.state');
  if (initialState) showSyncState(initialState);
  const stopWatchingSync = core.events.subscribe('sync.state', showSyncState);
  tray.setContextMenu(Menu.buildFromTemplate([{ label: 'Open SolarDesk', click: focusMainWindow }, { type: 'separator' }, { label: 'Quit SolarDesk', click: () => app.quit() }]));

  Menu.setApplicationMenu(
    Menu.buildFromTemplate(
      buildMenuTemplate(
        process.platform,
        {
          openDataFolder: () => void shell.openPath(dataDir),
          openProjectFolders: () => void shell.openPath(stores.settings.read().folderRoot),
          reload: () => mainWindow?.webContents.reload(),
          toggleDevTools: () => mainWindow?.webContents.toggleDevTools(),
          quit: () => app.quit(),
        },
        app.isPackaged,
      ) as Electron.MenuItemConstructorOptions[],
    ),
  );

  await mainWindow.loadURL(APP_START_URL);

  let isQuitting = false;
  app.on('before-quit', (event) => {
    if (isQuitting) return;
    event.preventDefault();
    isQuitting = true;
    stopWatchingSync();
    disposeBridge();
    tray.destroy();
    // The core finishes writes in flight and closes the database before the process ends.
    void core.close().finally(() => app.exit(0));
  });
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', focusMainWindow);
  app.on('window-all-closed', () => app.quit());
  void app.whenReady().then(startDesktop).catch((error: unknown) => {
    console.error('SolarDesk could not start:', error);
    app.exit(1);
  });
}

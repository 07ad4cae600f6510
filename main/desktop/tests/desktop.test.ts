// The Electron shell's rules, in plain Node: window options, CSP, navigation,
// IPC sender checks, and the bridge over IPC end to end. The Electron binary is
// the one thing faked here: ipcMain and ipcRenderer are an in-memory pipe with
// Electron's call shapes (handle/invoke, send/on, senderFrame), between the real
// main-side helper, the real core on a temp folder, and the real preload client.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { EVENT_CHANNELS, IPC_CHANNELS, bridgeFromEnvelopes } from '../../../shared/bridge.ts';
import { createEnvelopeBridge, type IpcRendererLike } from '../../../preload/ipc-client.ts';
import { type AppCore, startAppCore } from '../../core/app-core.ts';
import { defaultSettings, fileSettingsStore } from '../../core/host-stores.ts';
import { makeTempDir } from '../../engine/testing/test-server.ts';
import { answerAppRequest, mediaPathOf } from '../app-protocol.ts';
import { buildMenuTemplate } from '../app-menu.ts';
import { type BridgeWindow, type IpcMainLike, registerIpcBridge } from '../ipc-bridge.ts';
import { type FolderDialogLike, folderChooser } from '../folder-dialog.ts';
import { noticesFor, trayBitmap, trayTooltip } from '../tray-state.ts';
import {
  APP_START_URL,
  CONTENT_SECURITY_POLICY,
  buildWindowOptions,
  decideNavigation,
  isNativeModuleMismatch,
  isPermissionGranted,
  isTrustedSender,
  type SenderFrame,
} from '../window-policy.ts';
import { DEFAULT_BOUNDS, restoreWindowState } from '../window-state.ts';
import { LOCAL_ONLY_STATE } from '../../core/local-backend.ts';

describe('window hardening', () => {
  test('the window runs sandboxed and isolated, with no Node in the page and no webviews', () => {
    const options = buildWindowOptions('/app/preload/dist/preload.cjs', DEFAULT_BOUNDS, '#fff');
    const preferences: Record<string, unknown> = options.webPreferences;
    for (const on of ['contextIsolation', 'sandbox', 'webSecurity']) assert.equal(preferences[on], true, on);
    const off = ['nodeIntegration', 'nodeIntegrationInWorker', 'nodeIntegrationInSubFrames', 'allowRunningInsecureContent', 'webviewTag', 'navigateOnDragDrop'];
    for (const name of off) assert.equal(preferences[name], false, name);
    assert.equal(options.webPreferences.preload, '/app/preload/dist/preload.cjs');
    assert.equal(options.show, false); // shown on ready-to-show: no white flash
    // About as small as the smallest page the layout check passes at (800x600), frame included.
    assert.deepEqual([options.minWidth, options.minHeight], [816, 640]);
  });

  test('the CSP allows only the app itself: no inline or eval script, no plugins, no framing, no foreign connections', () => {
    const directives = new Map(CONTENT_SECURITY_POLICY.split(';').map((part) => part.trim().split(/\s+/)).map(([name, ...values]) => [name!, values]));
    assert.deepEqual(directives.get('default-src'), ["'self'"]);
    assert.deepEqual(directives.get('script-src'), ["'self'"]);
    assert.deepEqual(directives.get('connect-src'), ["'self'"]);
    assert.deepEqual(directives.get('object-src'), ["'none'"]);
    assert.deepEqual(directives.get('frame-ancestors'), ["'none'"]);
    assert.deepEqual(directives.get('base-uri'), ["'none'"]);
    assert.doesNotMatch(CONTENT_SECURITY_POLICY, /unsafe-inline|unsafe-eval|\*/);
  });

  test('navigation stays in the app; http(s) links open in the browser; everything else goes nowhere', () => {
    assert.deepEqual(decideNavigation(`${APP_START_URL}#/projects`, 'navigate'), { action: 'allow' });
    assert.deepEqual(decideNavigation('https://example.com/help', 'navigate'), { action: 'open-externally', url: 'https://example.com/help' });
    assert.deepEqual(decideNavigation('http://example.com/', 'new-window'), { action: 'open-externally', url: 'http://example.com/' });
    for (const url of ['file:///etc/passwd', 'javascript:alert(1)', 'app://evil/index.html', 'smb://share/x', 'data:text/html,hi', 'not a url']) {
      assert.deepEqual(decideNavigation(url, 'navigate'), { action: 'deny' }, url);
      assert.deepEqual(decideNavigation(url, 'new-window'), { action: 'deny' }, url);
    }
    // A second window of the app itself is not opened either.
    assert.deepEqual(decideNavigation(APP_START_URL, 'new-window'), { action: 'deny' });
    assert.equal(isPermissionGranted('media'), false);
    assert.equal(isPermissionGranted('geolocation'), false);
  });

  test('IPC is trusted only from our window’s main frame while it shows our page', () => {
    const ours: SenderFrame = { url: APP_START_URL };
    const subframe: SenderFrame = { url: APP_START_URL };
    const navigatedAway: SenderFrame = { url: 'https://evil.example/' };
    assert.equal(isTrustedSender(ours, [ours]), true);
    assert.equal(isTrustedSender(subframe, [ours]), false);
    assert.equal(isTrustedSender(navigatedAway, [navigatedAway]), false);
    assert.equal(isTrustedSender(null, [ours]), false);
  });

  test('the app protocol serves the built renderer with the CSP and nothing outside it', () => {
    const dist = makeTempDir('solardesk-dist-');
    try {
      fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html>');
      const answer = answerAppRequest(dist, APP_START_URL);
      assert.equal(answer.status, 200);
      assert.equal(answer.headers['content-security-policy'], CONTENT_SECURITY_POLICY);
      assert.match(answer.headers['content-type']!, /text\/html/);
      assert.equal(answerAppRequest(dist, 'app://solardesk/%2e%2e%2f%2e%2e%2fetc%2fpasswd').status, 404);
      assert.equal(answerAppRequest(dist, 'app://other/index.html').status, 404);
      // /media/ goes to the core (thumbnails, the viewers' contents), from our own origin only.
      assert.equal(mediaPathOf('app://solardesk/media/files/12?v=abc'), '/media/files/12?v=abc');
      assert.equal(mediaPathOf('app://solardesk/index.html'), null);
      assert.equal(mediaPathOf('app://other/media/files/12'), null);
    } finally {
      fs.rmSync(dist, { recursive: true, force: true });
    }
  });

  test('a native module built for Node is recognised, so start can fall back to browser mode', () => {
    assert.equal(isNativeModuleMismatch({ code: 'ERR_DLOPEN_FAILED', message: 'x' }), true);
    assert.equal(isNativeModuleMismatch(new Error('was compiled against a different Node.js version using NODE_MODULE_VERSION 115')), true);
    assert.equal(isNativeModuleMismatch(new Error('disk full')), false);
  });
});

/** ipcMain and ipcRenderer joined in memory: invoke -> handle with a senderFrame, send -> on. */
function fakeIpc(frame: SenderFrame) {
  const handlers = new Map<string, (event: { senderFrame: SenderFrame }, ...args: unknown[]) => Promise<unknown>>();
  const listeners = new Map<string, Set<(event: unknown, payload: unknown) => void>>();
  const ipcMain: IpcMainLike = {
    handle: (channel, handler) => void handlers.set(channel, handler),
    removeHandler: (channel) => void handlers.delete(channel),
  };
  const rendererFor = (sender: SenderFrame): IpcRendererLike => ({
    invoke: (async (channel: string, ...args: unknown[]) => {
      const handler = handlers.get(channel);
      if (!handler) throw new Error(`No handler registered for '${channel}'`);
      // Electron copies arguments with the structured clone algorithm.
      return structuredClone(await handler({ senderFrame: sender }, ...structuredClone(args)));
    }) as IpcRendererLike['invoke'],
    on: ((channel: string, listener: (event: unknown, payload: unknown) => void) => {
      const set = listeners.get(channel) ?? new Set();
      set.add(listener);
      listeners.set(channel, set);
    }) as IpcRendererLike['on'],
    removeListener: ((channel: string, listener: (event: unknown, payload: unknown) => void) => {
      listeners.get(channel)?.delete(listener);
    }) as IpcRendererLike['removeListener'],
  });
  const sent: string[] = [];
  const window: BridgeWindow = {
    mainFrame: frame,
    send: (channel, payload) => {
      sent.push(channel);
      for (const listener of listeners.get(channel) ?? []) listener({ sender: 'hidden' }, structuredClone(payload));
    },
    isDestroyed: () => false,
  };
  return { ipcMain, rendererFor, window, sent, handlerCount: () => handlers.size };
}

describe('the bridge over IPC, end to end with the real core', () => {
  const dataDir = makeTempDir('solardesk-ipc-');
  let core: AppCore;
  before(async () => {
    core = await startAppCore({ dataDir, settings: fileSettingsStore(path.join(dataDir, 's.json'), defaultSettings(dataDir)), openFolder: async () => false });
  });
  after(async () => {
    await core.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('our window calls every kind of channel and gets answers, errors as BridgeErrors, and events', async () => {
    const mainFrame: SenderFrame = { url: APP_START_URL };
    const ipc = fakeIpc(mainFrame);
    const dispose = registerIpcBridge({ ipcMain: ipc.ipcMain, core, windows: () => [ipc.window] });
    const bridge = bridgeFromEnvelopes(createEnvelopeBridge(ipc.rendererFor(mainFrame)));
    try {
      assert.equal((await bridge.invoke('session.get')).orgName, 'Sunrise Solar');
      const projects = await bridge.invoke('api.request', { method: 'GET', path: '/api/orgs/1/projects/', query: { limit: 5 } });
      assert.equal((projects.body as unknown[]).length, 5);
      const upload = await bridge.invoke('files.upload', { uploadId: 'ipc', projectId: 1, fileName: 'bytes.bin', bytes: new Uint8Array([9, 8, 7]) });
      assert.equal(upload.status, 201);
      await assert.rejects(bridge.invoke('files.download', { fileId: 987654 }), (error: Error & { status?: number }) => error.name === 'BridgeError' && error.status === 404);

      const changes: unknown[] = [];
      const unsubscribe = bridge.subscribe('records.changed', (change) => changes.push(change));
      await bridge.invoke('api.request', { method: 'PATCH', path: '/api/orgs/1/projects/1/', body: { notes: 'via IPC' } });
      assert.deepEqual(changes, [{ kinds: ['projects'], projectIds: [1], source: 'local' }]);
      unsubscribe();
      await bridge.invoke('api.request', { method: 'PATCH', path: '/api/orgs/1/projects/1/', body: { notes: 'via IPC again' } });
      assert.equal(changes.length, 1, 'an unsubscribed listener hears nothing more');
      assert.ok(ipc.sent.every((channel) => EVENT_CHANNELS.some((event) => IPC_CHANNELS.event(event) === channel)));
    } finally {
      dispose();
    }
    assert.equal(ipc.handlerCount(), 0);
  });

  test('a frame that is not our window’s main frame is refused before the core sees it', async () => {
    const mainFrame: SenderFrame = { url: APP_START_URL };
    const ipc = fakeIpc(mainFrame);
    const refusals: string[] = [];
    const dispose = registerIpcBridge({ ipcMain: ipc.ipcMain, core, windows: () => [ipc.window], onRefused: (reason) => refusals.push(reason) });
    try {
      const intruder = bridgeFromEnvelopes(createEnvelopeBridge(ipc.rendererFor({ url: APP_START_URL })));
      await assert.rejects(intruder.invoke('session.get'), /not SolarDesk/);
      const navigated = bridgeFromEnvelopes(createEnvelopeBridge(ipc.rendererFor({ url: 'https://evil.example/' })));
      await assert.rejects(navigated.invoke('api.request', { method: 'GET', path: '/api/orgs/1/' }), /not SolarDesk/);
      assert.equal(refusals.length, 2);
      // The preload refuses channels outside the contract too.
      const ours = createEnvelopeBridge(ipc.rendererFor(mainFrame));
      const envelope = await ours.invoke('shell.openExternal' as never, {});
      assert.equal(envelope.ok, false);
      assert.throws(() => ours.subscribe('secrets.leaked' as never, () => {}));
    } finally {
      dispose();
    }
  });
});

describe('the folder root’s Browse button: the folder dialog over the bridge', () => {
  const dataDir = makeTempDir('solardesk-browse-');
  const picked = path.join(dataDir, 'Project folders on the NAS');
  // Electron's dialog, faked: it records what it was asked and answers as the user would.
  const asked: { window: unknown; options: Electron.OpenDialogOptions }[] = [];
  let answer: Electron.OpenDialogReturnValue = { canceled: false, filePaths: [picked] };
  const mainWindow = { id: 'main window' };
  const dialog = {
    showOpenDialog: async (...args: unknown[]) => {
      const [window, options] = args.length === 2 ? args : [undefined, args[0]];
      asked.push({ window, options: options as Electron.OpenDialogOptions });
      return answer;
    },
  } as FolderDialogLike;
  let desktopCore: AppCore;
  let browserCore: AppCore;
  before(async () => {
    const settings = (name: string) => fileSettingsStore(path.join(dataDir, name), defaultSettings(path.join(dataDir, 'folders')));
    desktopCore = await startAppCore({
      dataDir: path.join(dataDir, 'desktop'),
      settings: settings('desktop.json'),
      openFolder: async () => false,
      chooseFolder: folderChooser(dialog, () => mainWindow as unknown as Electron.BaseWindow),
    });
    // Browser mode's core: no chooseFolder, as main/cli/web-command.ts builds it.
    browserCore = await startAppCore({ dataDir: path.join(dataDir, 'browser'), settings: settings('browser.json'), openFolder: async () => false });
  });
  after(async () => {
    await desktopCore.close();
    await browserCore.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('the desktop shows the folder dialog over its window and answers the folder picked, or null when cancelled; no setting changes', async () => {
    const ipc = fakeIpc({ url: APP_START_URL });
    const dispose = registerIpcBridge({ ipcMain: ipc.ipcMain, core: desktopCore, windows: () => [ipc.window] });
    const bridge = bridgeFromEnvelopes(createEnvelopeBridge(ipc.rendererFor(ipc.window.mainFrame)));
    try {
      assert.equal((await bridge.invoke('session.get')).canChooseFolder, true);
      const before = await bridge.invoke('settings.get');
      assert.deepEqual(await bridge.invoke('settings.chooseFolder', { defaultPath: before.folderRoot }), { available: true, path: picked });
      assert.equal(asked.length, 1);
      assert.equal(asked[0]!.window, mainWindow, 'modal to the main window');
      assert.equal(asked[0]!.options.defaultPath, before.folderRoot);
      assert.ok(asked[0]!.options.properties?.includes('openDirectory'), 'folders, not files');
      assert.deepEqual(await bridge.invoke('settings.get'), before, 'picking is not saving: Save applies it');

      answer = { canceled: true, filePaths: [] };
      assert.deepEqual(await bridge.invoke('settings.chooseFolder'), { available: true, path: null });
      // A relative start folder means nothing to the dialog: it is left out.
      await bridge.invoke('settings.chooseFolder', { defaultPath: 'relative/folder' });
      assert.equal(asked.at(-1)!.options.defaultPath, undefined);
      await assert.rejects(bridge.invoke('settings.chooseFolder', { defaultPath: 7 } as never), /invalid|Expected string/i);
    } finally {
      dispose();
    }
  });

  test('browser mode has no folder dialog: the session says so and the channel answers "not available"', async () => {
    const count = asked.length;
    assert.equal((await browserCore.session()).canChooseFolder, false);
    const answered = await browserCore.invoke('settings.chooseFolder', {});
    assert.deepEqual(answered, { ok: true, response: { available: false, path: null } });
    assert.equal(asked.length, count, 'no dialog was shown');
  });
});

describe('tray, notifications, window state and menu', () => {
  test('each sync face has its own colour, and the tooltip says what waits', () => {
    const synced = trayBitmap('synced', 16);
    const offline = trayBitmap('offline', 16);
    assert.equal(synced.length, 16 * 16 * 4);
    const centre = (8 * 16 + 8) * 4;
    assert.notDeepEqual([...synced.subarray(centre, centre + 3)], [...offline.subarray(centre, centre + 3)]);
    assert.equal(synced[3], 0, 'the corners are transparent');
    assert.equal(synced[centre + 3], 255);
    assert.equal(trayTooltip(LOCAL_ONLY_STATE), 'SolarDesk — local only');
    assert.equal(trayTooltip({ ...LOCAL_ONLY_STATE, state: 'offline', pending: 3 }), 'SolarDesk — Offline, 3 waiting');
  });

  test('the tray notifies once of a lapsed sign-in, not on every report; conflicts and held deletes are the activity log\'s notices', () => {
    const calm = { ...LOCAL_ONLY_STATE, state: 'synced' as const };
    assert.deepEqual(noticesFor(calm, calm), []);
    // Told by the activity log, behind their Settings switches (shared/activity.test.ts): not twice.
    assert.deepEqual(noticesFor(calm, { ...calm, conflicts: 2, heldDeletes: 1 }), []);
    const signedOut = { ...calm, state: 'needs_sign_in' as const };
    assert.match(noticesFor(calm, signedOut)[0]!.title, /sign in again/);
    assert.deepEqual(noticesFor(signedOut, signedOut), []);
  });

  test('the window reopens where it was, unless that place is off every screen', () => {
    const screen = [{ x: 0, y: 0, width: 1920, height: 1080 }];
    const saved = { bounds: { x: 100, y: 80, width: 1200, height: 800 }, isMaximized: true };
    assert.deepEqual(restoreWindowState(saved, screen), saved);
    assert.deepEqual(restoreWindowState({ bounds: { x: 3000, y: 80, width: 1200, height: 800 } }, screen).bounds, DEFAULT_BOUNDS);
    assert.deepEqual(restoreWindowState({ bounds: { x: 10, y: 10, width: 50, height: 50 } }, screen).bounds, DEFAULT_BOUNDS);
    assert.deepEqual(restoreWindowState(undefined, screen), { bounds: DEFAULT_BOUNDS, isMaximized: false });
  });

  test('the menu offers developer tools only in a build from source', () => {
    const noop = () => {};
    const actions = { openDataFolder: noop, openProjectFolders: noop, reload: noop, toggleDevTools: noop, quit: noop };
    const labels = (isPackaged: boolean) => JSON.stringify(buildMenuTemplate('linux', actions, isPackaged));
    assert.match(labels(false), /Toggle Developer Tools/);
    assert.doesNotMatch(labels(true), /Toggle Developer Tools/);
    assert.match(JSON.stringify(buildMenuTemplate('darwin', actions, true)), /"label":"SolarDesk"/);
  });
});

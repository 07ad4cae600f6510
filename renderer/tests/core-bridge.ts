// The renderer's stores against the real core: a test imports this module before
// any store, so `window.solardesk` (what Electron's preload puts there, faked here:
// no Electron in Node) is the core's own dispatcher and event hub. Every call then
// goes through the real bridge contract to the engine on a real SQLite store in a
// temp data folder, filled with the demo data as the app's first start fills it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { EnvelopeBridge } from '../../shared/bridge.ts';
import { type AppCore, startAppCore } from '../../main/core/app-core.ts';
import { defaultSettings, fileSettingsStore } from '../../main/core/host-stores.ts';

declare global {
  // The page's window as renderer/src/bridge-client.ts reads it. These tests are type
  // checked with the main process (no DOM library); at run time only `solardesk` is
  // there, and bridge-client reads nothing else once it is.
  interface Window {
    location: { hash: string; pathname: string; search: string };
    sessionStorage: { getItem(key: string): string | null; setItem(key: string, value: string): void };
    history: { replaceState(data: unknown, unused: string, url?: string): void };
    // The activity store's (a notification's click, Restore's question): never called by these tests.
    focus(): void;
    confirm(message: string): boolean;
  }
  var window: Window;
  // The browser's notifications: absent in Node, which the activity store checks before it shows one.
  var Notification: {
    readonly permission: string;
    new (title: string, options?: { body?: string; tag?: string }): { onclick: (() => void) | null; close(): void };
  };
}

let running: AppCore | null = null;
const core = () => {
  if (!running) throw new Error('startTestCore() first.');
  return running;
};

/** An answer a test holds back: the core has answered (`answered`), and the store hears it once `release()` is called. */
export interface HeldAnswer {
  answered: Promise<void>;
  release(): void;
}

const heldAnswers = new Map<string, { markAnswered(): void; released: Promise<void> }>();

/**
 * Holds the next answer on `channel` between the core and the store: the test controls
 * when an answer lands (what happens meanwhile), never what it says.
 */
export function holdNextAnswer(channel: string): HeldAnswer {
  let markAnswered!: () => void;
  let release!: () => void;
  const answered = new Promise<void>((resolve) => (markAnswered = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  heldAnswers.set(channel, { markAnswered, released });
  return { answered, release };
}

const preloadBridge: EnvelopeBridge = {
  invoke: async (channel, request) => {
    const answer = await core().invoke(channel, request);
    const held = heldAnswers.get(channel);
    if (held) {
      heldAnswers.delete(channel);
      held.markAnswered();
      await held.released;
    }
    return answer;
  },
  subscribe: (channel, listener) => core().events.subscribe(channel, listener),
};
Object.assign(globalThis, { window: { solardesk: preloadBridge } });

export interface TestCore {
  core: AppCore;
  orgId: number;
  close(): Promise<void>;
}

export async function startTestCore(): Promise<TestCore> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'solardesk-stores-'));
  running = await startAppCore({
    dataDir,
    settings: fileSettingsStore(path.join(dataDir, 'desktop-settings.json'), defaultSettings(path.join(dataDir, 'folders'))),
    openFolder: async () => false,
  });
  const started = running;
  return {
    core: started,
    orgId: (await started.session()).orgId,
    async close() {
      await started.close();
      running = null;
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Waits (bounded) until `isDone` holds: stores load in the background of the calls that start them. */
export async function waitFor(what: string, isDone: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!isDone()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

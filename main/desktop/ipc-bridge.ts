// The main process's half of the IPC transport: the one place that touches
// ipcMain. Calls from a sender that is not our own window's main frame are
// refused before the core sees them; events go only to our own windows.
import type { WebContents } from 'electron';
import { type BridgeEnvelope, EVENT_CHANNELS, IPC_CHANNELS, type Unsubscribe } from '../../shared/bridge.ts';
import type { AppCore } from '../core/app-core.ts';
import { isTrustedSender, type SenderFrame } from './window-policy.ts';

/** The part of ipcMain the helper uses; Electron's ipcMain is one, the tests' in-memory pipe another. */
export interface IpcMainLike {
  handle(channel: string, listener: (event: { senderFrame: SenderFrame | null }, ...args: any[]) => Promise<unknown>): void; // eslint-disable-line @typescript-eslint/no-explicit-any -- Electron's own signature
  removeHandler(channel: string): void;
}

/** What the helper needs of a window: its main frame (for the sender check) and a way to send it events. */
export interface BridgeWindow {
  readonly mainFrame: SenderFrame;
  send(channel: string, payload: unknown): void;
  isDestroyed(): boolean;
}

export function windowOf(webContents: WebContents): BridgeWindow {
  return {
    get mainFrame() {
      return webContents.mainFrame;
    },
    send: (channel, payload) => webContents.send(channel, payload),
    isDestroyed: () => webContents.isDestroyed(),
  };
}

export interface IpcBridgeOptions {
  ipcMain: IpcMainLike;
  core: Pick<AppCore, 'invoke' | 'events'>;
  /** Our windows right now (there is one; a closed one drops out). */
  windows: () => readonly BridgeWindow[];
  onRefused?: (reason: string) => void;
}

export function registerIpcBridge(options: IpcBridgeOptions): Unsubscribe {
  const trustedFrames = () => options.windows().filter((window) => !window.isDestroyed()).map((window) => window.mainFrame);

  options.ipcMain.handle(IPC_CHANNELS.invoke, async (event, channel: unknown, request: unknown): Promise<BridgeEnvelope<unknown>> => {
    if (!isTrustedSender(event.senderFrame, trustedFrames())) {
      options.onRefused?.(`IPC from ${event.senderFrame?.url ?? 'an unknown frame'}`);
      return { ok: false, error: { code: 'failed', message: 'Refused: this page is not SolarDesk.' } };
    }
    return options.core.invoke(channel, request);
  });

  const unsubscribers = EVENT_CHANNELS.map((channel) =>
    options.core.events.subscribe(channel, (payload) => {
      for (const window of options.windows()) if (!window.isDestroyed() && isTrustedSender(window.mainFrame, [window.mainFrame])) window.send(IPC_CHANNELS.event(channel), payload);
    }),
  );

  return () => {
    options.ipcMain.removeHandler(IPC_CHANNELS.invoke);
    unsubscribers.forEach((unsubscribe) => unsubscribe());
  };
}

// The renderer's half of the IPC transport: the one place that touches
// ipcRenderer. It takes ipcRenderer as a parameter so plain-Node tests can run it
// against the real main-side helper with a fake pipe between them.
import type { IpcRenderer, IpcRendererEvent } from 'electron';
import { type EnvelopeBridge, type EventChannel, IPC_CHANNELS, isEventChannel, isInvokeChannel } from '../shared/bridge.ts';

export type IpcRendererLike = Pick<IpcRenderer, 'invoke' | 'on' | 'removeListener'>;

export function createEnvelopeBridge(ipc: IpcRendererLike): EnvelopeBridge {
  return {
    invoke(channel, request) {
      // Refused here too, so a page script cannot use the pipe for anything but the contract.
      if (!isInvokeChannel(channel)) return Promise.resolve({ ok: false, error: { code: 'unknown_channel', message: `There is no bridge channel "${String(channel)}".` } });
      return ipc.invoke(IPC_CHANNELS.invoke, channel, request);
    },
    subscribe(channel: EventChannel, listener) {
      if (!isEventChannel(channel)) throw new Error(`There is no bridge event "${String(channel)}".`);
      // The page never sees the IPC event object (it carries the sender).
      const forward = (_event: IpcRendererEvent, payload: unknown) => (listener as (value: unknown) => void)(payload);
      ipc.on(IPC_CHANNELS.event(channel), forward);
      return () => {
        ipc.removeListener(IPC_CHANNELS.event(channel), forward);
      };
    },
  };
}

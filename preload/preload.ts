// The preload: puts the bridge on window.solardesk, and nothing else. It runs
// sandboxed with context isolation, so the page sees only these two functions.
import { contextBridge, ipcRenderer } from 'electron';
import { createEnvelopeBridge } from './ipc-client.ts';

contextBridge.exposeInMainWorld('solardesk', createEnvelopeBridge(ipcRenderer));

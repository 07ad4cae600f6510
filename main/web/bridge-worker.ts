// The thread that serves `solardesk web`'s page (bridge-thread.ts says why): the
// bridge server of bridge-server.ts, whose core is a stand-in that passes each call
// to the main thread and each of the core's events on to the page.
import fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import type { BridgeEnvelope } from '../../shared/bridge.ts';
import { BridgeEventHub } from '../bridge-events.ts';
import type { MediaAnswer } from '../core/media.ts';
import type { BridgeThreadOptions, FromServerThread, ToServerThread } from './bridge-thread.ts';
import { type BridgeCore, type BridgeServer, startBridgeServer } from './bridge-server.ts';
import { openWithSystem } from './open-with-system.ts';

const options = workerData as BridgeThreadOptions;
const mainThread = parentPort!;
const post = (message: FromServerThread) => mainThread.postMessage(message);

/**
 * Writes a line to the process's output at once: this thread's console goes through
 * the main thread, which may be busy loading the core, and whoever started us waits
 * for the URL. A pipe that is full for a moment is tried again.
 */
function printNow(line: string): void {
  const bytes = Buffer.from(`${line}\n`);
  let written = 0;
  for (let attempt = 0; written < bytes.length; attempt++) {
    try {
      written += fs.writeSync(options.printTo ?? 1, bytes, written);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN' || attempt > 1000) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
    }
  }
}

type Waiting<T> = { resolve: (value: T) => void; reject: (error: Error) => void };
let lastId = 0;
const invokes = new Map<number, Waiting<BridgeEnvelope<unknown>>>();
const media = new Map<number, Waiting<MediaAnswer>>();

const events = new BridgeEventHub();
const standIn: BridgeCore = {
  events,
  invoke(channel, request) {
    const id = ++lastId;
    return new Promise((resolve, reject) => {
      invokes.set(id, { resolve, reject });
      post({ type: 'invoke', id, channel, request });
    });
  },
  media(urlPath, ifNoneMatch) {
    const id = ++lastId;
    return new Promise((resolve, reject) => {
      media.set(id, { resolve, reject });
      post({ type: 'media', id, urlPath, ifNoneMatch });
    });
  },
};

let coreStarted!: (core: BridgeCore) => void;
let coreFailed!: (error: Error) => void;
const core = new Promise<BridgeCore>((resolve, reject) => ((coreStarted = resolve), (coreFailed = reject)));
let server: BridgeServer | null = null;

mainThread.on('message', (message: ToServerThread) => {
  switch (message.type) {
    case 'core-ready':
      coreStarted(standIn);
      break;
    case 'core-failed':
      coreFailed(new Error(message.message));
      break;
    case 'event':
      events.emit(message.channel, message.payload);
      break;
    case 'invoked':
      invokes.get(message.id)?.resolve(message.envelope);
      invokes.delete(message.id);
      break;
    case 'media-answer':
      media.get(message.id)?.resolve(message.answer);
      media.delete(message.id);
      break;
    case 'media-failed':
      media.get(message.id)?.reject(new Error(message.message));
      media.delete(message.id);
      break;
    case 'close':
      void (server?.close() ?? Promise.resolve()).then(() => {
        post({ type: 'closed' });
        mainThread.close();
      });
      break;
  }
});

async function listen(): Promise<BridgeServer> {
  const bridge = { core, distDir: options.distDir };
  try {
    return await startBridgeServer(bridge, options.port);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE' && options.anyPortIfTaken) return startBridgeServer(bridge, 0);
    throw error;
  }
}

try {
  server = await listen();
  printNow(`SolarDesk is running at ${server.appUrl}`);
  post({ type: 'listening', appUrl: server.appUrl, baseUrl: server.baseUrl, secret: server.secret });
  if (options.open) post({ type: 'opened', isOpened: await openWithSystem(server.appUrl) });
} catch (error) {
  post({ type: 'listen-failed', code: (error as NodeJS.ErrnoException).code, message: (error as Error).message });
}

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

type Waiter = { resolve: (value: unknown) => void; reject: (error: Error) => void };
/** Calls and /media/ requests sent to the main thread, by id, until their answer comes back. */
const waiting = new Map<number, Waiter>();
let lastId = 0;

/** Sends the question `withId` makes, numbered, and waits for its answer. */
function ask<T>(withId: (id: number) => Extract<FromServerThread, { type: 'invoke' | 'media' }>): Promise<T> {
  const id = ++lastId;
  return new Promise<T>((resolve, reject) => {
    waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
    post(withId(id));
  });
}

/** The waiter for question `id`, taken off the list: each is answered once. */
function takeWaiter(id: number): Waiter | undefined {
  const waiter = waiting.get(id);
  waiting.delete(id);
  return waiter;
}

const events = new BridgeEventHub();
const standIn: BridgeCore = {
  events,
  invoke: (channel, request) => ask<BridgeEnvelope<unknown>>((id) => ({ type: 'invoke', id, channel, request })),
  media: (urlPath, ifNoneMatch) => ask<MediaAnswer>((id) => ({ type: 'media', id, urlPath, ifNoneMatch })),
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
      takeWaiter(message.id)?.resolve(message.envelope);
      break;
    case 'media-answer':
      takeWaiter(message.id)?.resolve(message.answer);
      break;
    case 'media-failed':
      takeWaiter(message.id)?.reject(new Error(message.message));
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

// `solardesk web` serves the page from a thread of its own (bridge-worker.ts): the
// renderer's files, the event stream and the bridge's HTTP side. Loading the core is
// about half a second of module evaluation the main thread cannot interrupt, and on
// one thread the page's first request waited behind it (docs/benchmarks.md, "The
// first screen"). The core stays on the main thread; each bridge call, /media/ answer
// and event crosses to the server thread as a message. The server thread prints the
// URL and opens the browser itself, so neither waits for the core's loading either.
import { type TransferListItem, Worker } from 'node:worker_threads';
import { EVENT_CHANNELS, type BridgeEnvelope, type BridgeEventChannels, type EventChannel } from '../../shared/bridge.ts';
import type { MediaAnswer } from '../core/media.ts';
import type { BridgeCore } from './bridge-server.ts';

export interface BridgeThreadOptions {
  distDir: string;
  port: number;
  /** When `port` is taken, listen on any free one instead (the default port is a convenience). */
  anyPortIfTaken: boolean;
  /** Open the printed URL in the system's browser. */
  open: boolean;
  /** Where the URL line is written: 1 (stdout), or another file descriptor. */
  printTo?: number;
}

/** Messages from the main thread to the server thread. */
export type ToServerThread =
  | { type: 'core-ready' }
  | { type: 'core-failed'; message: string }
  | { type: 'event'; channel: EventChannel; payload: BridgeEventChannels[EventChannel] }
  | { type: 'invoked'; id: number; envelope: BridgeEnvelope<unknown> }
  | { type: 'media-answer'; id: number; answer: MediaAnswer }
  | { type: 'media-failed'; id: number; message: string }
  | { type: 'close' };

/** Messages from the server thread to the main thread. */
export type FromServerThread =
  | { type: 'listening'; appUrl: string; baseUrl: string; secret: string }
  | { type: 'listen-failed'; code: string | undefined; message: string }
  | { type: 'opened'; isOpened: boolean }
  | { type: 'invoke'; id: number; channel: unknown; request: unknown }
  | { type: 'media'; id: number; urlPath: string; ifNoneMatch: string | undefined }
  | { type: 'closed' };

export interface ServerAddress {
  appUrl: string;
  baseUrl: string;
  secret: string;
}

export interface BridgeThread {
  /** Settles once the page is served and its URL printed; rejects (with the listen error's `code`) when the port could not be had. */
  readonly listening: Promise<ServerAddress>;
  /** Whether the browser opened (`open`); true when it was not asked for. */
  readonly opened: Promise<boolean>;
  /** Settles with the error if the server thread fails after it listened. */
  readonly failed: Promise<Error>;
  /** Answers the page's bridge calls with `core` once it has started; if it fails to, they are answered 503 with its message. */
  serve(core: Promise<BridgeCore>): void;
  /** Stops serving and ends the thread. */
  close(): Promise<void>;
}

export function startBridgeThread(options: BridgeThreadOptions): BridgeThread {
  const worker = new Worker(new URL('./bridge-worker-entry.js', import.meta.url), { workerData: options });
  const post = (message: ToServerThread, transfer: TransferListItem[] = []) => worker.postMessage(message, transfer);

  let listened!: (address: ServerAddress) => void;
  let notListening!: (error: Error) => void;
  const listening = new Promise<ServerAddress>((resolve, reject) => ((listened = resolve), (notListening = reject)));
  let opened!: (isOpened: boolean) => void;
  const openedPromise = new Promise<boolean>((resolve) => (opened = resolve));
  if (!options.open) opened(true);
  let failedWith!: (error: Error) => void;
  const failed = new Promise<Error>((resolve) => (failedWith = resolve));
  let closed: (() => void) | null = null;
  let core: Promise<BridgeCore> | null = null;
  const unsubscribers: (() => void)[] = [];
  let isClosed = false;

  worker.on('error', (error) => {
    notListening(error);
    failedWith(error);
  });
  let hasExited = false;
  worker.on('exit', () => {
    hasExited = true;
    notListening(new Error('The page’s server thread ended before it listened.'));
    closed?.();
  });
  worker.on('message', (message: FromServerThread) => {
    switch (message.type) {
      case 'listening':
        listened({ appUrl: message.appUrl, baseUrl: message.baseUrl, secret: message.secret });
        break;
      case 'listen-failed':
        notListening(Object.assign(new Error(message.message), { code: message.code }));
        break;
      case 'opened':
        opened(message.isOpened);
        break;
      case 'invoke':
        void answerInvoke(message.id, message.channel, message.request);
        break;
      case 'media':
        void answerMedia(message.id, message.urlPath, message.ifNoneMatch);
        break;
      case 'closed':
        closed?.();
        break;
    }
  });

  async function answerInvoke(id: number, channel: unknown, request: unknown): Promise<void> {
    // The server thread sends calls only once told the core is ready.
    const ready = await core!;
    post({ type: 'invoked', id, envelope: await ready.invoke(channel, request) });
  }

  async function answerMedia(id: number, urlPath: string, ifNoneMatch: string | undefined): Promise<void> {
    const ready = await core!;
    try {
      const answer = await ready.media!(urlPath, ifNoneMatch);
      // A stream is handed over whole: the server thread reads it, the main thread feeds it.
      post({ type: 'media-answer', id, answer }, answer.body instanceof ReadableStream ? [answer.body as unknown as TransferListItem] : []);
    } catch (error) {
      post({ type: 'media-failed', id, message: (error as Error).message });
    }
  }

  return {
    listening,
    opened: openedPromise,
    failed,
    serve(starting) {
      core = starting;
      starting.then(
        (ready) => {
          if (isClosed) return;
          // The present first, so the page's first event stream starts from it (latestOf).
          for (const channel of EVENT_CHANNELS) {
            const latest = ready.events.latestOf(channel);
            if (latest !== undefined) post({ type: 'event', channel, payload: latest });
            unsubscribers.push(ready.events.subscribe(channel, (payload) => post({ type: 'event', channel, payload })));
          }
          post({ type: 'core-ready' });
        },
        (error: Error) => post({ type: 'core-failed', message: error.message }),
      );
    },
    async close() {
      isClosed = true;
      for (const unsubscribe of unsubscribers.splice(0)) unsubscribe();
      if (hasExited) return;
      const ended = new Promise<void>((resolve) => (closed = resolve));
      post({ type: 'close' });
      await ended;
      await worker.terminate();
    },
  };
}

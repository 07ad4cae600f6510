// The bridge over HTTP (browser mode): POST /bridge/invoke for calls, one
// Server-Sent Events stream for subscriptions, and a per-launch secret in a header
// on both. Only fetch, streams and TextDecoder are used, so the same client runs in
// the renderer, in Node tests and in the benchmark (Node 20 has no EventSource,
// and EventSource cannot send the secret header anyway).
import {
  type Bridge,
  BridgeError,
  type BridgeEnvelope,
  type BridgeEventChannels,
  type EventChannel,
  type InvokeArgs,
  type InvokeChannel,
  type ResponseOf,
  type Unsubscribe,
  isEventChannel,
} from './bridge.ts';
import { base64ToBytes, bytesToBase64 } from './design-codec.ts';
import { createParser } from 'eventsource-parser';
import { type Backoff, backoffDelayMs } from './backoff.ts';

export const BRIDGE_HTTP = {
  invokePath: '/bridge/invoke',
  eventsPath: '/bridge/events',
  secretHeader: 'x-solardesk-secret',
  /** The fragment key the printed URL carries the secret in: never sent to a server, never logged. */
  secretFragmentKey: 'secret',
} as const;

// JSON has no bytes; uploads carry a Uint8Array. It travels as {"$bytes": base64}.
const BYTES_KEY = '$bytes';

export function encodeBridgeJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => (item instanceof Uint8Array ? { [BYTES_KEY]: bytesToBase64(item) } : item));
}

export function decodeBridgeJson(text: string): unknown {
  // A reviver makes JSON.parse about five times slower, and a page of 1,000 projects
  // is most of a megabyte: only text that carries bytes takes the slow way.
  if (!text.includes(`"${BYTES_KEY}"`)) return JSON.parse(text);
  return JSON.parse(text, (_key, item: unknown) => {
    if (typeof item === 'object' && item !== null && !Array.isArray(item)) {
      const keys = Object.keys(item);
      const encoded = (item as Record<string, unknown>)[BYTES_KEY];
      if (keys.length === 1 && typeof encoded === 'string') return base64ToBytes(encoded);
    }
    return item;
  });
}

/** One Server-Sent Events message: `event: <channel>` and one `data:` line of JSON. */
export function formatServerSentEvent(channel: string, payload: unknown): string {
  return `event: ${channel}\ndata: ${JSON.stringify(payload)}\n\n`;
}

/**
 * Reads a Server-Sent Events stream that arrives in arbitrary chunks (eventsource-parser,
 * which follows the WHATWG rules: comments, multi-line data, CR/LF), handing each
 * complete event to `onEvent`. One reader per connection: a new connection starts clean.
 */
export function createServerSentEventReader(onEvent: (event: string, data: string) => void): { feed(chunk: string): void } {
  const parser = createParser({ onEvent: (message) => onEvent(message.event ?? 'message', message.data) });
  return { feed: (chunk) => parser.feed(chunk) };
}

export interface HttpBridgeOptions {
  /** Where `solardesk web` answers; '' for the page's own origin. */
  baseUrl: string;
  secret: string;
  fetch?: typeof fetch;
  /**
   * Told when the event stream drops and comes back, so the UI can say so.
   * `mayHaveMissedEvents` is true when a change may have gone untold: on a
   * reconnection, or when a call was sent before the stream was first up.
   */
  onConnectionChange?: (isConnected: boolean, mayHaveMissedEvents: boolean) => void;
  /**
   * Opens the event stream at once and keeps it for the bridge's life, and holds each
   * call until the stream's first attempt has ended (up to `firstConnectWaitMs`). Every
   * read is then made after the page listens, so its first connection needs no second
   * reading of everything (the page's start read every list twice before).
   */
  listenFromStart?: boolean;
  /** How long a call waits for the stream's first attempt (listenFromStart); 3 s when not given. */
  firstConnectWaitMs?: number;
  /** First wait before reconnecting the event stream; doubles up to 10 s. */
  reconnectDelayMs?: number;
}

export interface HttpBridge extends Bridge {
  /** Stops the event stream and forgets every listener. */
  close(): void;
}

type Listener = (payload: never) => void;

export function createHttpBridge(options: HttpBridgeOptions): HttpBridge {
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const headers = { [BRIDGE_HTTP.secretHeader]: options.secret };
  const listeners = new Map<EventChannel, Set<Listener>>();
  let stream: AbortController | null = null;
  let isClosed = false;
  let hasConnected = false;
  let sentBeforeConnected = false;
  // Settles when the stream's first attempt has connected or failed (listenFromStart).
  let firstAttempt: Promise<void> | null = null;
  let endFirstAttempt = () => {};

  async function invoke<C extends InvokeChannel>(channel: C, ...args: InvokeArgs<C>): Promise<ResponseOf<C>> {
    if (firstAttempt) await firstAttempt;
    if (!hasConnected) sentBeforeConnected = true;
    const response = await doFetch(`${options.baseUrl}${BRIDGE_HTTP.invokePath}`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: encodeBridgeJson({ channel, request: args[0] }),
    });
    const text = await response.text();
    let envelope: BridgeEnvelope<ResponseOf<C>>;
    try {
      envelope = decodeBridgeJson(text) as BridgeEnvelope<ResponseOf<C>>;
    } catch {
      throw new BridgeError(`SolarDesk answered ${response.status} without a bridge envelope.`, { status: response.status });
    }
    if (!envelope.ok) throw BridgeError.fromPayload(envelope.error);
    return envelope.response;
  }

  function dispatch(event: string, data: string): void {
    if (!isEventChannel(event)) return;
    let payload: unknown;
    try {
      payload = JSON.parse(data);
    } catch {
      return;
    }
    for (const listener of listeners.get(event) ?? []) (listener as (value: unknown) => void)(payload);
  }

  async function readStream(controller: AbortController): Promise<void> {
    const reconnect: Backoff = { firstDelayMs: options.reconnectDelayMs ?? 1000, factor: 2, maxDelayMs: 10_000 };
    let retry = 0;
    while (!controller.signal.aborted) {
      try {
        const response = await doFetch(`${options.baseUrl}${BRIDGE_HTTP.eventsPath}`, { headers, signal: controller.signal });
        if (!response.ok || !response.body) throw new Error(`event stream answered ${response.status}`);
        // The server subscribed before it answered: a call sent from here on is read after it.
        const mayHaveMissedEvents = hasConnected || sentBeforeConnected;
        hasConnected = true;
        endFirstAttempt();
        options.onConnectionChange?.(true, mayHaveMissedEvents);
        retry = 0;
        const reader = response.body.getReader();
        const decoder = new TextDecoder();
        const events = createServerSentEventReader(dispatch);
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          events.feed(decoder.decode(value, { stream: true }));
        }
      } catch {
        // Dropped or refused: fall through to the wait and try again.
      }
      endFirstAttempt();
      if (controller.signal.aborted) return;
      options.onConnectionChange?.(false, true);
      retry += 1;
      await new Promise((resolve) => setTimeout(resolve, backoffDelayMs(reconnect, retry)));
    }
  }

  function subscribe<C extends EventChannel>(channel: C, listener: (payload: BridgeEventChannels[C]) => void): Unsubscribe {
    if (isClosed) return () => {};
    const set = listeners.get(channel) ?? new Set<Listener>();
    set.add(listener as Listener);
    listeners.set(channel, set);
    if (!stream) {
      stream = new AbortController();
      void readStream(stream);
    }
    return () => {
      set.delete(listener as Listener);
      const anyLeft = [...listeners.values()].some((remaining) => remaining.size > 0);
      if (!anyLeft && stream && !options.listenFromStart) {
        stream.abort();
        stream = null;
      }
    };
  }

  if (options.listenFromStart) {
    firstAttempt = new Promise<void>((resolve) => {
      const waited = setTimeout(() => endFirstAttempt(), options.firstConnectWaitMs ?? 3000);
      endFirstAttempt = () => {
        clearTimeout(waited);
        firstAttempt = null;
        resolve();
      };
    });
    stream = new AbortController();
    void readStream(stream);
  }

  return {
    invoke,
    subscribe,
    close() {
      isClosed = true;
      endFirstAttempt();
      listeners.clear();
      stream?.abort();
      stream = null;
    },
  };
}

// How the bridge's answers cross either transport (docs/bridge.md): errors travel as
// data, because Electron IPC keeps only the message, and every answer is an envelope.
// Part of shared/bridge.ts, which re-exports it; split out to keep each file short.
import type { Bridge, BridgeEventChannels, EventChannel, InvokeArgs, InvokeChannel, ResponseOf, Unsubscribe } from './bridge.ts';

export interface BridgeErrorPayload {
  message: string;
  /** The API status behind it, when there is one (e.g. 400 from an upload). */
  status?: number;
  /** The API's error body, for field errors. */
  details?: unknown;
  /**
   * invalid_request: the request broke the contract; sign_in_failed: the remote refused
   * the sign-in or could not be reached (the message says which; `status` is the
   * remote's answer when there was one); not_signed_in: the channel needs a sign-in;
   * not_available: this host cannot do it (the desktop's "Open" in browser mode);
   * failed: the handler could not do it.
   */
  code: 'invalid_request' | 'unknown_channel' | 'sign_in_failed' | 'not_signed_in' | 'not_available' | 'failed';
}

export class BridgeError extends Error {
  readonly status: number | undefined;
  readonly details: unknown;
  readonly code: BridgeErrorPayload['code'];

  constructor(message: string, options: { status?: number; details?: unknown; code?: BridgeErrorPayload['code'] } = {}) {
    super(message);
    this.name = 'BridgeError';
    this.status = options.status;
    this.details = options.details;
    this.code = options.code ?? 'failed';
  }

  toPayload(): BridgeErrorPayload {
    return { message: this.message, status: this.status, details: this.details, code: this.code };
  }

  static fromPayload(payload: BridgeErrorPayload): BridgeError {
    return new BridgeError(payload.message, payload);
  }
}

/** Every answer over either transport is one of these. */
export type BridgeEnvelope<T> = { ok: true; response: T } | { ok: false; error: BridgeErrorPayload };

/** Electron IPC channel names: one for every call, one per event channel. */
export const IPC_CHANNELS = {
  invoke: 'solardesk:invoke',
  event: (channel: EventChannel) => `solardesk:event:${channel}`,
} as const;

/**
 * What the preload puts on window.solardesk: calls answer with envelopes, because
 * an error thrown across contextBridge keeps only its message.
 */
export interface EnvelopeBridge {
  invoke(channel: InvokeChannel, request: unknown): Promise<BridgeEnvelope<unknown>>;
  subscribe<C extends EventChannel>(channel: C, listener: (payload: BridgeEventChannels[C]) => void): Unsubscribe;
}

/** The typed Bridge over an envelope-answering one: answers come back, errors are thrown as BridgeError. */
export function bridgeFromEnvelopes(raw: EnvelopeBridge): Bridge {
  return {
    async invoke<C extends InvokeChannel>(channel: C, ...args: InvokeArgs<C>): Promise<ResponseOf<C>> {
      const envelope = (await raw.invoke(channel, args[0])) as BridgeEnvelope<ResponseOf<C>>;
      if (!envelope.ok) throw BridgeError.fromPayload(envelope.error);
      return envelope.response;
    },
    subscribe: (channel, listener) => raw.subscribe(channel, listener),
  };
}

// The one place a bridge request is checked and handed to its handler, whichever
// transport brought it (Electron IPC or HTTP). A request that breaks the contract
// of shared/bridge.ts is refused here, before any handler sees it.
import {
  type BridgeEnvelope,
  BridgeError,
  type BridgeEventChannels,
  type BridgeHandlers,
  type EventChannel,
  type Unsubscribe,
  isInvokeChannel,
} from '../shared/bridge.ts';
import { bridgeRequestSchemas } from '../shared/bridge-schemas.ts';

export type ErrorLogger = (channel: string, error: unknown) => void;

/** Validates and runs one invoke; never throws, so transports only forward the envelope. */
export async function dispatchInvoke(
  handlers: BridgeHandlers,
  channel: unknown,
  rawRequest: unknown,
  logError: ErrorLogger = () => {},
): Promise<BridgeEnvelope<unknown>> {
  if (!isInvokeChannel(channel)) {
    return { ok: false, error: { code: 'unknown_channel', message: `There is no bridge channel "${String(channel)}".` } };
  }
  const parsed = bridgeRequestSchemas[channel].safeParse(rawRequest);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'request'}: ${issue.message}`);
    return { ok: false, error: { code: 'invalid_request', message: `Invalid ${channel} request. ${problems.join('; ')}` } };
  }
  try {
    const handler = handlers[channel] as (request: unknown) => Promise<unknown>;
    return { ok: true, response: await handler(parsed.data) };
  } catch (error) {
    if (error instanceof BridgeError) return { ok: false, error: error.toPayload() };
    logError(channel, error);
    // Internals (paths, stack traces) stay in the main process's log.
    return { ok: false, error: { code: 'failed', message: `SolarDesk could not complete ${channel}. The details are in its log.` } };
  }
}

type AnyListener = (payload: never) => void;

/** Fan-out of the event channels: the core emits, each transport subscribes. */
export class BridgeEventHub {
  private readonly listeners = new Map<EventChannel, Set<AnyListener>>();
  private readonly latest = new Map<EventChannel, unknown>();

  emit<C extends EventChannel>(channel: C, payload: BridgeEventChannels[C]): void {
    this.latest.set(channel, payload);
    for (const listener of [...(this.listeners.get(channel) ?? [])]) {
      try {
        (listener as (value: BridgeEventChannels[C]) => void)(payload);
      } catch {
        // One broken subscriber (a closed window) must not stop the others.
      }
    }
  }

  subscribe<C extends EventChannel>(channel: C, listener: (payload: BridgeEventChannels[C]) => void): Unsubscribe {
    const set = this.listeners.get(channel) ?? new Set<AnyListener>();
    set.add(listener as AnyListener);
    this.listeners.set(channel, set);
    return () => set.delete(listener as AnyListener);
  }

  /** The last payload of a channel, so a new subscriber (a reloaded page) starts from the present. */
  latestOf<C extends EventChannel>(channel: C): BridgeEventChannels[C] | undefined {
    return this.latest.get(channel) as BridgeEventChannels[C] | undefined;
  }

  get listenerCount(): number {
    let count = 0;
    for (const set of this.listeners.values()) count += set.size;
    return count;
  }
}

// Fan-out of the bridge's event channels, in a module of its own: the page's server
// thread (web/bridge-worker.ts) keeps one too, and needs nothing else of the dispatch.
import type { BridgeEventChannels, EventChannel, Unsubscribe } from '../shared/bridge.ts';

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

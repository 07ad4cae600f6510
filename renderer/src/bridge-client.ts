// The renderer's one way to the main-process core. Under Electron the preload has
// put the bridge on window.solardesk; in a browser the same contract runs over
// HTTP, with the per-launch secret the printed URL carried in its fragment.
import { type Bridge, type EnvelopeBridge, bridgeFromEnvelopes } from '../../shared/bridge.ts';
import { BRIDGE_HTTP, createHttpBridge } from '../../shared/bridge-http.ts';

declare global {
  interface Window {
    /** Set by preload/ under Electron; absent in browser mode. */
    solardesk?: EnvelopeBridge;
  }
}

const SECRET_STORAGE_KEY = 'solardesk.secret';

/** Reads the secret from the fragment once, keeps it for reloads of this tab, and clears it from the address bar. */
function takeSecret(): string | null {
  const fragment = new URLSearchParams(window.location.hash.slice(1));
  const fromUrl = fragment.get(BRIDGE_HTTP.secretFragmentKey);
  if (fromUrl) {
    window.sessionStorage.setItem(SECRET_STORAGE_KEY, fromUrl);
    window.history.replaceState(null, '', window.location.pathname + window.location.search);
  }
  return window.sessionStorage.getItem(SECRET_STORAGE_KEY);
}

type ConnectionListener = (isConnected: boolean, mayHaveMissedEvents: boolean) => void;
const connectionListeners = new Set<ConnectionListener>();

/**
 * Browser mode only: told when the event stream to `solardesk web` drops and returns;
 * `mayHaveMissedEvents` says whether what the views show may be out of date.
 */
export function onConnectionChange(listener: ConnectionListener): () => void {
  connectionListeners.add(listener);
  return () => connectionListeners.delete(listener);
}

/** The desktop app (Electron): "Open" and "Show in folder" exist there; browser mode offers Download instead. */
export const isDesktop = Boolean(window.solardesk);

/**
 * Fetches a /media/ path (shared/media-paths.ts) from the main process: under
 * Electron from app://solardesk/ itself, in a browser with the secret header that
 * the bridge's routes need. The browser's HTTP cache keeps what the route marks
 * immutable.
 */
export function fetchMedia(path: string, init: RequestInit = {}): Promise<Response> {
  if (window.solardesk) return fetch(path, init);
  const secret = window.sessionStorage.getItem(SECRET_STORAGE_KEY) ?? '';
  return fetch(path, { ...init, headers: { ...(init.headers as Record<string, string> | undefined), [BRIDGE_HTTP.secretHeader]: secret } });
}

function connect(): Bridge | null {
  if (window.solardesk) return bridgeFromEnvelopes(window.solardesk);
  const secret = takeSecret();
  if (!secret) return null;
  return createHttpBridge({
    baseUrl: '',
    secret,
    // The page always listens; its first reads wait for the stream, so they need no second reading.
    listenFromStart: true,
    onConnectionChange: (isConnected, mayHaveMissedEvents) => connectionListeners.forEach((listener) => listener(isConnected, mayHaveMissedEvents)),
  });
}

/** null: opened without the secret (the page was not opened from the printed URL). */
export const bridge: Bridge | null = connect();

export function requireBridge(): Bridge {
  if (!bridge) throw new Error('SolarDesk is not connected.');
  return bridge;
}

// The window's security rules, as plain data and pure functions so plain-Node
// tests check exactly what the Electron window gets (main/desktop/*.test.ts).
// Nothing here imports electron; electron-main.ts applies these.
import { CONTENT_SECURITY_POLICY } from '../renderer-files.ts';

/** The renderer is served on its own scheme, never file://, so it has a real origin the checks can name. */
export const APP_SCHEME = 'app';
export const APP_HOST = 'solardesk';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
export const APP_START_URL = `${APP_ORIGIN}/index.html`;

export { CONTENT_SECURITY_POLICY };

export interface WindowBounds {
  x?: number;
  y?: number;
  width: number;
  height: number;
}

/** The BrowserWindow options (the subset we set), with every hardening switch explicit. */
export function buildWindowOptions(preloadPath: string, bounds: WindowBounds, backgroundColor: string) {
  return {
    ...bounds,
    // The layout works down to an 800x600 page (e2e/layout.spec.ts). These are the window's outer size
    // (the saved bounds are too), so a frame of up to 16x40px (Windows) still leaves the page 800x600.
    minWidth: 816,
    minHeight: 640,
    show: false,
    title: 'SolarDesk',
    backgroundColor,
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      spellcheck: true,
      safeDialogs: true,
    },
  } as const;
}

export function isAppUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.protocol === `${APP_SCHEME}:` && parsed.host === APP_HOST;
  } catch {
    return false;
  }
}

/** Links the user follows leave the app for the browser only when they are http(s); everything else goes nowhere. */
export function isExternalLinkAllowed(url: string): boolean {
  try {
    const { protocol } = new URL(url);
    return protocol === 'https:' || protocol === 'http:';
  } catch {
    return false;
  }
}

export type NavigationDecision = { action: 'allow' } | { action: 'deny' } | { action: 'open-externally'; url: string };

/**
 * What to do when the page tries to go somewhere (will-navigate) or open a window
 * (setWindowOpenHandler): the app never navigates away from itself and never opens
 * a second window; http(s) links open in the user's browser.
 */
export function decideNavigation(url: string, kind: 'navigate' | 'new-window'): NavigationDecision {
  if (kind === 'navigate' && isAppUrl(url)) return { action: 'allow' };
  if (isExternalLinkAllowed(url)) return { action: 'open-externally', url };
  return { action: 'deny' };
}

/** The frame an IPC message came from, as Electron describes it (event.senderFrame). */
export interface SenderFrame {
  url: string;
}

/**
 * IPC is answered only for the main frame of one of our own windows showing our
 * own page: not a subframe, not another window, not a page that navigated away.
 */
export function isTrustedSender(frame: SenderFrame | null | undefined, trustedFrames: readonly SenderFrame[]): boolean {
  if (!frame) return false;
  return trustedFrames.includes(frame) && isAppUrl(frame.url);
}

/** Permissions the page may ask for: none (no camera, microphone, location, notifications from the page). */
export function isPermissionGranted(_permission: string): boolean {
  return false;
}

/** A native module compiled for another runtime fails to load with these; the desktop then asks start to fall back. */
export function isNativeModuleMismatch(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  return code === 'ERR_DLOPEN_FAILED' || /NODE_MODULE_VERSION|was compiled against a different Node\.js version/.test(message ?? '');
}

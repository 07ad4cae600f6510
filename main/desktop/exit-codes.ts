// How the desktop process tells `solardesk start` why it gave up, so start can
// fall back to browser mode with the reason. Plain numbers: no Electron import here.
export const DESKTOP_EXIT_CODES = {
  /** better-sqlite3 was compiled for Node's ABI, not Electron's (run `npm run rebuild:electron`). */
  nativeModuleForNode: 78,
  /** The Electron binary did not start at all. */
  couldNotLaunch: 79,
} as const;

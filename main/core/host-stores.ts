// Where the core keeps the user's settings. The desktop passes electron-store
// (main/desktop/desktop-settings.ts); browser mode and tests use a file in the
// data folder. (The remote token is the sync agent's: it keeps it in its replica folder.)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Settings, THEMES } from '../../shared/bridge.ts';
import { readDownloadHostList } from '../../shared/download-hosts.ts';
import { NO_TRANSFER_CAPS, type TransferCaps, transferCapsProblem } from '../../shared/transfer-caps.ts';
import { DEFAULT_NOTIFICATION_SWITCHES, NOTIFICATION_KINDS, type NotificationSwitches } from '../../shared/activity.ts';
import { makePrivateFolder, PRIVATE_FILE_MODE } from '../engine/store/private-files.ts';

export interface SettingsStore {
  read(): Settings;
  write(settings: Settings): void;
}

/** The settings before any are saved; a folder root passed here was chosen (a command-line option, a test) unless `isFolderRootChosen` says not. */
export function defaultSettings(folderRoot?: string, { isFolderRootChosen = folderRoot !== undefined } = {}): Settings {
  return {
    remoteUrl: null,
    username: null,
    orgId: null,
    folderRoot: folderRoot ?? path.join(os.homedir(), 'SolarDesk'),
    folderRootChosen: isFolderRootChosen,
    downloadHosts: [],
    localWebhooks: false,
    transferCaps: NO_TRANSFER_CAPS,
    theme: 'system',
    notifications: DEFAULT_NOTIFICATION_SWITCHES,
  };
}

/** Whatever was stored, with anything missing or malformed replaced by the default. */
export function normaliseSettings(stored: unknown, defaults: Settings): Settings {
  const value = typeof stored === 'object' && stored !== null ? (stored as Record<string, unknown>) : {};
  const text = (field: unknown) => (typeof field === 'string' && field !== '' ? field : null);
  return {
    remoteUrl: text(value.remoteUrl),
    username: text(value.username),
    orgId: typeof value.orgId === 'number' && Number.isSafeInteger(value.orgId) && value.orgId > 0 ? value.orgId : null,
    folderRoot: text(value.folderRoot) ?? defaults.folderRoot,
    // A folder root saved by an earlier version was in use: it counts as chosen.
    folderRootChosen: typeof value.folderRootChosen === 'boolean' ? value.folderRootChosen : text(value.folderRoot) !== null || defaults.folderRootChosen,
    downloadHosts: (Array.isArray(value.downloadHosts) && readDownloadHostList(value.downloadHosts.filter((host) => typeof host === 'string').join(',')).hosts) || defaults.downloadHosts,
    localWebhooks: typeof value.localWebhooks === 'boolean' ? value.localWebhooks : defaults.localWebhooks,
    transferCaps: readStoredTransferCaps(value.transferCaps) ?? defaults.transferCaps,
    theme: THEMES.find((theme) => theme === value.theme) ?? defaults.theme,
    notifications: readNotificationSwitches(value.notifications, defaults.notifications),
  };
}

/** Caps as saved, or null when missing or not caps the rules allow (a hand-edited file): then there are none. */
function readStoredTransferCaps(stored: unknown): TransferCaps | null {
  if (typeof stored !== 'object' || stored === null) return null;
  const value = stored as Record<string, unknown>;
  const kbps = (field: unknown) => (typeof field === 'number' ? field : null);
  const hours = value.hours as Record<string, unknown> | null | undefined;
  const caps: TransferCaps = {
    uploadKBps: kbps(value.uploadKBps),
    downloadKBps: kbps(value.downloadKBps),
    hours: hours && typeof hours.from === 'string' && typeof hours.to === 'string' ? { from: hours.from, to: hours.to } : null,
    metered: value.metered === true,
  };
  return transferCapsProblem(caps) === null ? caps : null;
}

/** Each switch as stored, or its default when missing or not a boolean (an earlier version stored none). */
function readNotificationSwitches(stored: unknown, defaults: NotificationSwitches): NotificationSwitches {
  const value = typeof stored === 'object' && stored !== null ? (stored as Record<string, unknown>) : {};
  return Object.fromEntries(NOTIFICATION_KINDS.map((kind) => [kind, typeof value[kind] === 'boolean' ? value[kind] : defaults[kind]])) as Record<(typeof NOTIFICATION_KINDS)[number], boolean>;
}

function readJsonFile(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    // A damaged file is set aside rather than silently overwritten.
    // The real time only makes the set-aside name unique and tells a person when; nothing compares it.
    fs.renameSync(file, `${file}.damaged-${Date.now()}`);
    return undefined;
  }
}

/** Writes via a temp file and rename, so a crash never leaves half a file; private, as everything in a data folder. */
function writeJsonFile(file: string, value: unknown): void {
  makePrivateFolder(path.dirname(file));
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, `${JSON.stringify(value, null, 2)}\n`, { mode: PRIVATE_FILE_MODE });
  fs.renameSync(temp, file);
}

export function fileSettingsStore(file: string, defaults: Settings): SettingsStore {
  return {
    read: () => normaliseSettings(readJsonFile(file), defaults),
    write: (settings) => writeJsonFile(file, settings),
  };
}

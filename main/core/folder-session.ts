// Which project-folders watcher runs, for whichever backend is active (issue 14):
// the embedded store's own (a FolderWatcher on the embedded engine, attaching as
// the local admin, its held deletes in that store) or the sync agent's (handed to
// the agent as its `folders`, main/core/agent-folders.ts). The watcher lives as
// long as its backend: the core restarts the backend on sign-in, sign-out and a
// new folder root, and closing the backend closes its watcher.
//
// Two workspaces never share project folders: the ids and titles of the local store
// and of a remote can coincide, and a local project's files must never go up to a
// remote project whose folder name happens to end in the same "(id)". Under the
// Settings folder root R, the embedded store keeps its folders in "R/On this
// computer/", a synced workspace in R itself (what signed-in users already had).
// Each watched root records its owner in <root>/.solardesk/owner.json; a root
// another store owns is not watched, and the status says why and what to do.
import fs from 'node:fs';
import path from 'node:path';
import type { SessionMode } from '../../shared/bridge.ts';
import type { FolderStatus } from '../../shared/schemas/folder.ts';
import type { AgentFolderWiring, AgentFolders } from '../sync/agent.ts';
import type { EngineContext } from '../engine/context.ts';
import { FolderWatcher } from '../watch/watcher.ts';
import type { FolderOutbox } from '../watch/folder-outbox.ts';
import type { InboxSink } from '../watch/inbox-intake.ts';
import { AGENT_FOLDER } from '../watch/project-folders.ts';
import { INBOX_FOLDER } from '../../shared/photos.ts';
import { folderOutboxOf, type ProjectFolderOptions, watchProjectFolders } from './agent-folders.ts';

/** The embedded store's folder under the Settings folder root. */
export const EMBEDDED_WORKSPACE_FOLDER = 'On this computer';
export const OWNER_FILE = 'owner.json';

/** Where a workspace keeps its project folders under the Settings folder root. */
export function workspaceFolderRoot(mode: SessionMode, folderRoot: string): string {
  return path.resolve(mode === 'embedded' ? path.join(folderRoot, EMBEDDED_WORKSPACE_FOLDER) : folderRoot);
}

/**
 * Whose project folders a root holds: the store's identity. Not the org: a store (or a
 * remote) numbers projects across all its orgs, so the folders of two of its orgs never
 * share a "(id)", and switching orgs keeps the same root (the other org's folders are
 * reported as not this org's projects, never attached).
 */
export interface FolderOwner {
  mode: SessionMode;
  /** The remote a synced workspace replicates; null for the embedded store. */
  remote_url: string | null;
  /** The embedded store's data folder: two embedded stores number their projects independently. */
  data_dir: string | null;
}

const sameOwner = (a: FolderOwner, b: FolderOwner) => a.mode === b.mode && a.remote_url === b.remote_url && a.data_dir === b.data_dir;

function describeOwner(owner: FolderOwner): string {
  return owner.mode === 'embedded'
    ? `the store on this computer in ${owner.data_dir ?? 'another data folder'}`
    : `the remote ${owner.remote_url}`;
}

/**
 * Makes the workspace's root when it can be made and claims it for `owner`, or says
 * why it is not used. A root whose parent is missing is a drive not connected: left
 * alone, for the watcher to report as missing (and to claim nothing meanwhile).
 */
export function claimFolderRoot(settingsRoot: string, root: string, owner: FolderOwner): string | null {
  return claimFolderRootOf(settingsRoot, root, owner).refusal;
}

export interface FolderRootClaim {
  /** Why the root is not watched (another store owns it), or null. */
  refusal: string | null;
  /** Claimed just now: the root had no owner file, so the store's records of folders describe another root. */
  isNew: boolean;
}

/** `claimFolderRoot`, also saying whether the root was claimed just now. */
export function claimFolderRootOf(settingsRoot: string, root: string, owner: FolderOwner): FolderRootClaim {
  if (!fs.existsSync(settingsRoot) && !fs.existsSync(path.dirname(settingsRoot))) return { refusal: null, isNew: false };
  // The Settings root may not exist yet (a first start): made, with the embedded store's folder in it.
  fs.mkdirSync(path.join(root, AGENT_FOLDER), { recursive: true });
  const file = path.join(root, AGENT_FOLDER, OWNER_FILE);
  let recorded: FolderOwner | null = null;
  try {
    recorded = JSON.parse(fs.readFileSync(file, 'utf8')) as FolderOwner;
  } catch {
    recorded = null; // none yet, or unreadable: claimed afresh
  }
  if (recorded && typeof recorded === 'object' && 'mode' in recorded) {
    const normalised: FolderOwner = { mode: recorded.mode, remote_url: recorded.remote_url ?? null, data_dir: recorded.data_dir ?? null };
    if (sameOwner(normalised, owner)) return { refusal: null, isNew: false };
    return { isNew: false, refusal: `This folder holds the project folders of ${describeOwner(normalised)}; they are not watched for ${describeOwner(owner)}, so nothing in them is attached here. Choose another folder root in Settings (or remove ${file} if that store is gone).` };
  }
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, `${JSON.stringify(owner, null, 2)}\n`);
  fs.renameSync(temp, file);
  return { refusal: null, isNew: true };
}

/**
 * Project folders that are not watched (their root belongs to another store): the
 * status says why, and nothing else happens.
 */
class RefusedFolders implements AgentFolders {
  constructor(
    private readonly root: string,
    private readonly reason: string,
  ) {}
  async start(): Promise<void> {}
  async close(): Promise<void> {}
  requestReconcile(): void {}
  reportUploadProgress(): void {}
  retryDownload(): boolean {
    return false;
  }
  async status(): Promise<FolderStatus> {
    return {
      enabled: true,
      root: this.root,
      state: 'stopped',
      detail: this.reason,
      quiet: true,
      confirm_deletes: false,
      stability_window_ms: 0,
      project_folders: 0,
      attached_files: 0,
      last_rescan_at: null,
      next_rescan_at: null,
      files: [],
      ignored: [],
      outside: [],
      refused: [{ path: '', reason: this.reason }],
      guards: [],
      recent: [],
      counts: {},
    };
  }
}

/**
 * The held deletes of the embedded store. Its tables are the replica's (the migrations
 * are shared), so holds live in `sync_outbox` as there, through sync's outbox module;
 * but nothing is ever pushed: a confirmed delete deletes the file through the engine at
 * once, and no outbox row is left (the embedded engine captures no changes for sync).
 */
export function embeddedFolderOutboxOf(engine: EngineContext): FolderOutbox {
  // Nothing goes anywhere: there are no uploads to list.
  return { ...folderOutboxOf(engine), listFileCreates: async () => [] };
}

/** The inbox (main/core/photo-inbox.ts) is not a project's folder: the watcher hands its files to the inbox (main/watch/inbox-intake.ts). */
const INBOX_REASON = `the inbox: photos dropped here are attached to the project whose site they were taken at, the rest wait on the Sync screen (Unsorted photos)`;

/** What tells a synced root's watcher about the embedded store's folder inside it. */
const EMBEDDED_FOLDER_REASON = `the project folders of the store on this computer (used while not signed in): never attached to the remote's projects`;

export interface EmbeddedFoldersOptions {
  engine: EngineContext;
  orgId: number;
  userId: number;
  dataDir: string;
  /** The Settings folder root; the watcher watches its "On this computer" folder. */
  folderRoot: string;
  /** A deletion is now held: the embedded sync state counts them. */
  onDeleteHeld: () => void;
  watcher?: ProjectFolderOptions;
  log?: (line: string) => void;
}

/** Starts the embedded store's project folders: a watcher on its engine, or, on a root another store owns, only a status that says so. */
export async function startEmbeddedFolders(options: EmbeddedFoldersOptions): Promise<AgentFolders> {
  const root = workspaceFolderRoot('embedded', options.folderRoot);
  const { refusal, isNew } = claimFolderRootOf(options.folderRoot, root, { mode: 'embedded', remote_url: null, data_dir: path.resolve(options.dataDir) });
  const folders: AgentFolders = refusal
    ? new RefusedFolders(root, refusal)
    : new FolderWatcher({
        clock: options.engine.clock,
        ...options.watcher,
        root,
        engine: options.engine,
        orgId: options.orgId,
        userId: options.userId,
        log: options.log,
        onDeleteHeld: options.onDeleteHeld,
        outbox: embeddedFolderOutboxOf(options.engine),
        inbox: { folder: INBOX_FOLDER, reason: INBOX_REASON },
        rootIsNew: isNew,
      });
  await folders.start();
  return folders;
}

/**
 * The sync agent's `folders`: its watcher on the Settings folder root itself, which it
 * claims for the remote's org; the embedded store's folder inside is never a project's.
 */
export function syncedFolders(folderRoot: string, remoteUrl: string, options: ProjectFolderOptions = {}): (wiring: AgentFolderWiring) => AgentFolders {
  const root = workspaceFolderRoot('synced', folderRoot);
  const foreignFolders = new Map([[EMBEDDED_WORKSPACE_FOLDER, EMBEDDED_FOLDER_REASON]]);
  return (wiring) => {
    const { refusal, isNew } = claimFolderRootOf(folderRoot, root, { mode: 'synced', remote_url: remoteUrl.replace(/\/+$/, ''), data_dir: null });
    return refusal ? new RefusedFolders(root, refusal) : watchProjectFolders(root, { ...options, foreignFolders, inbox: { folder: INBOX_FOLDER, reason: INBOX_REASON }, rootIsNew: isNew })(wiring);
  };
}

/** The watcher's inbox intake, as the photo inbox is connected to it. */
export type InboxIntakeConnection = NonNullable<ReturnType<FolderWatcher['connectInbox']>>;

/**
 * Connects `sink` to the inbox intake of the folders a backend watches; null when they
 * are not watched here (a folder root another workspace owns: its Unsorted is not ours to sort).
 */
export function connectInboxOf(folders: AgentFolders | null, sink: InboxSink): InboxIntakeConnection | null {
  return folders instanceof FolderWatcher ? folders.connectInbox(sink) : null;
}

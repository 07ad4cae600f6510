// The synced backend: the sync agent of main/sync/ (issue 5) behind the
// LocalBackend seam. It keeps a replica of one remote org in <data>/replica and
// serves it on the local API. The sync engine says when its status may have
// changed and the replica's engine announces every record a write or a pull
// changed; the core turns them into the bridge's `sync.state` and `records.changed`.
// Nothing is polled.
import type { TransferCaps } from '../../shared/transfer-caps.ts';
import fs from 'node:fs';
import path from 'node:path';
import { type Agent, type AgentOptions, AgentSetupError, LOCAL_TOKEN_FILE, REMOTE_TOKEN_FILE, type SecretStore, fileSecretStore, startAgent } from '../sync/agent.ts';
import { issueToken } from '../engine/auth/accounts.ts';
import type { SyncState, Unsubscribe } from '../../shared/bridge.ts';
import { syncStateOfStatus } from '../../shared/sync-api.ts';
import { countOf } from '../../shared/words.ts';
import type { LocalBackend, LocalIdentity } from './local-backend.ts';
import { type ProjectFolderOptions, projectFolderRecords } from './agent-folders.ts';
import { syncedFolders } from './folder-session.ts';
import { countHeldDeletes } from '../sync/outbox.ts';
import type { ContentsPolicyOptions } from '../sync/contents-policy.ts';
import type { DownloadReporter } from '../sync/remote-contents.ts';

export const REPLICA_FOLDER = 'replica';
const AGENT_CONFIG_FILE = 'agent.json';

export interface AgentStartOptions {
  dataDir: string;
  remoteUrl: string;
  username: string | null;
  /** Given at sign-in; later starts use the sign-in the agent saved. */
  password?: string;
  orgId: number | null;
  /** The project folders' root (issue 6): the agent keeps one folder per project under it. */
  folderRoot?: string | null;
  /** Windows and rules of the project folders (tests shorten the stability window). */
  projectFolders?: ProjectFolderOptions;
  /** What runs the agent, for the message a second process on the replica folder prints. */
  lockHolder?: string;
  /** Hosts besides the remote that file links may point to, read at each download (Settings > Download hosts). */
  downloadHosts?: () => readonly string[];
  /** The speed caps and metered switch, read at each piece of a transfer (Settings > Transfers). */
  transferCaps?: () => TransferCaps;
  /** An upload's progress, for the activity log (main/core/activity-recorder.ts). */
  onUploadProgress?: (fileId: number, progress: { sent: number; total: number } | null) => void;
  /** A queued change waits for the org's allowance, for the activity log. */
  onAllowanceWait?: AgentOptions['onAllowanceWait'];
  /** A file's contents coming down, for the activity log. */
  onDownload?: DownloadReporter;
}

export interface SyncAgentSettings {
  /** How often the agent syncs when nothing else wakes it (default 30 s). */
  pollIntervalSeconds?: number;
  /** Where the remote token lives for a replica folder (default: a 0600 file in it; the desktop: safeStorage). */
  remoteTokenStore?: (replicaFolder: string) => SecretStore;
  /** Files on demand: whose file contents are kept here (default: roles, pins, opened in the last 14 days). */
  contents?: ContentsPolicyOptions;
}

/** What the core needs from the agent: start it, and know or forget its saved sign-in. */
export interface SyncAgentHost {
  isSignedIn(dataDir: string): boolean;
  start(options: AgentStartOptions): Promise<LocalBackend>;
  /** Forgets the remote token; the replica and anything still unsynced stay on disk. */
  forgetSignIn(dataDir: string): void;
}

export class AgentStartError extends Error {}

const replicaDir = (dataDir: string) => path.join(dataDir, REPLICA_FOLDER);

async function identityOf(agent: Agent): Promise<LocalIdentity> {
  const { db } = agent.engine.context;
  const user = await db.selectFrom('users').selectAll().where('id', '=', agent.context.localUserId).executeTakeFirstOrThrow();
  const org = await db.selectFrom('orgs').select(['id', 'name']).where('id', '=', agent.orgId).executeTakeFirstOrThrow();
  // The user row holds only the email (made at sign-in); the name comes with the user's role in the org, once pulled from the remote.
  const roles = await db.selectFrom('roles').select(['is_admin', 'first_name', 'family_name']).where('org_id', '=', agent.orgId).where('user_id', '=', user.id).execute();
  const role = roles.find((candidate) => `${candidate.first_name}${candidate.family_name}`.trim() !== '');
  const displayName = [`${user.first_name} ${user.family_name}`, `${role?.first_name ?? ''} ${role?.family_name ?? ''}`].map((name) => name.trim()).find(Boolean) ?? user.email;
  return { user: { id: user.id, email: user.email, displayName }, orgId: org.id, orgName: org.name, isAdmin: roles.some((candidate) => candidate.is_admin === 1), orgs: [{ id: org.id, name: org.name }] };
}

async function readState(agent: Agent): Promise<SyncState> {
  const status = await agent.sync.status();
  const heldDeletes = await countHeldDeletes(agent.engine.context.db);
  const facts = syncStateOfStatus(status, heldDeletes);
  const waitingForUser = status.conflicts + heldDeletes;
  const fallbackDetail =
    waitingForUser > 0
      ? `${countOf(waitingForUser, 'change waits', 'changes wait')} for you on the Sync screen.`
      : facts.pending > 0
        ? `${countOf(facts.pending, 'change')} waiting to reach the remote.`
        : 'Every change made here while signed in is on the remote.';
  return {
    ...facts,
    // The agent is idle while conflicts and held deletes wait; for the user that needs attention, not "synced".
    state: facts.state === 'synced' && waitingForUser > 0 ? 'needs_attention' : facts.state,
    detail: facts.detail || fallbackDetail,
  };
}

/**
 * Reads the agent's state each time the sync engine says it may have changed, one
 * read at a time (notifications during a read make one more read after it), and
 * tells `onChange` when it differs from the last one told.
 */
function followSyncState(agent: Agent, initial: SyncState, onChange: (state: SyncState) => void | Promise<void>): { stop(): Promise<void> } {
  let last = initial;
  let reading: Promise<void> | null = null;
  let isStale = false;
  let isStopped = false;
  const read = (): void => {
    if (isStopped) return;
    if (reading) {
      isStale = true;
      return;
    }
    reading = (async () => {
      do {
        isStale = false;
        const state = await readState(agent);
        if (!isStopped && JSON.stringify(state) !== JSON.stringify(last)) {
          last = state;
          await onChange(state);
        }
      } while (isStale && !isStopped);
    })()
      .catch(() => {}) // closing: the store went away under the read
      .finally(() => {
        reading = null;
      });
  };
  const unwatch = agent.sync.watchStatus(read);
  // A change between the first read and the subscription must not go unseen.
  read();
  return {
    async stop() {
      isStopped = true;
      unwatch();
      await reading;
    },
  };
}

export function createSyncAgentHost(settings: SyncAgentSettings = {}): SyncAgentHost {
  const tokenStoreFor = (dataDir: string) =>
    settings.remoteTokenStore?.(replicaDir(dataDir)) ?? fileSecretStore(path.join(replicaDir(dataDir), REMOTE_TOKEN_FILE));
  return {
    isSignedIn: (dataDir) => fs.existsSync(path.join(replicaDir(dataDir), AGENT_CONFIG_FILE)) && tokenStoreFor(dataDir).read() !== null,

    forgetSignIn(dataDir) {
      tokenStoreFor(dataDir).clear();
      fs.rmSync(path.join(replicaDir(dataDir), LOCAL_TOKEN_FILE), { force: true });
    },

    async start(options) {
      let agent: Agent;
      try {
        agent = await startAgent({
          dataDir: replicaDir(options.dataDir),
          remote: options.password ? options.remoteUrl : undefined,
          username: options.password ? (options.username ?? undefined) : undefined,
          password: options.password,
          orgId: options.orgId ?? undefined,
          pollIntervalSeconds: settings.pollIntervalSeconds,
          remoteTokenStore: tokenStoreFor(options.dataDir),
          folders: options.folderRoot ? syncedFolders(options.folderRoot, options.remoteUrl, options.projectFolders) : undefined,
          // Folders made under an earlier folder root keep following their records' ids.
          folderRecords: projectFolderRecords,
          lockHolder: options.lockHolder,
          contents: settings.contents,
          downloadHosts: options.downloadHosts,
          transferCaps: options.transferCaps,
          whereDownloadHostsAreNamed: 'Settings > Download hosts',
          onUploadProgress: options.onUploadProgress,
          onAllowanceWait: options.onAllowanceWait,
          onDownload: options.onDownload,
        });
      } catch (error) {
        if (error instanceof AgentSetupError) throw new AgentStartError(error.message);
        throw error;
      }
      let identity = await identityOf(agent);
      let token = agent.localToken;
      const stateListeners = new Set<(state: SyncState) => void>();
      let lastState = await readState(agent);
      const following = followSyncState(agent, lastState, async (state) => {
        // A pull may have brought the user's name (their role): read it before telling, so the session the listeners ask for has it.
        identity = await identityOf(agent).catch(() => identity);
        lastState = state;
        stateListeners.forEach((listener) => listener(state));
      });
      return {
        mode: 'synced',
        db: agent.engine.context.db,
        clock: agent.engine.context.clock,
        fileRoot: agent.engine.context.store.fileRoot,
        api: () => ({ baseUrl: agent.localApiUrl, token }),
        async renewToken() {
          token = await issueToken(agent.engine.context.db, agent.engine.context.clock, identity.user.id);
        },
        identity: () => identity,
        watchSyncStatus(listener): Unsubscribe {
          listener(lastState);
          const entry = (state: SyncState) => listener(state);
          stateListeners.add(entry);
          return () => stateListeners.delete(entry);
        },
        watchRecordChanges: (listener) => agent.engine.context.changes.subscribe(listener),
        folders: () => agent.folders,
        async close() {
          await following.stop();
          await agent.close();
        },
      };
    },
  };
}

// The sync routes the agent serves on the local API (issue 5), as the renderer and
// the desktop read them. With no remote configured they do not exist: a 404 from
// them means "local only", which is a state, not an error. Their paths are built by
// `syncPaths` in shared/api-paths.ts, with every other API path; their answers'
// schemas are in shared/schemas/sync.ts.

/**
 * `local_only`: no remote (or no agent); the others are the agent's, with its
 * `idle` read as synced and `error` as needing attention.
 */
export type SyncStateName = 'local_only' | 'synced' | 'syncing' | 'offline' | 'paused' | 'needs_attention' | 'needs_sign_in';

export type { PendingChangeJson, SyncBudgetJson, SyncConflictJson, SyncStatusJson } from './schemas/sync.ts';
import type { SyncStatusJson } from './schemas/sync.ts';
import type { SyncState } from './bridge.ts';

/**
 * `local_value`, `remote_value`: the two sides the user was shown. A choice made on a
 * local value edited since is refused (409); so is keeping the local value, or a typed
 * one, over a remote value newer than the one shown.
 */
export type ConflictChoice = ({ choice: 'local' } | { choice: 'remote' } | { choice: 'value'; value: unknown }) & { local_value?: unknown; remote_value?: unknown };

const AGENT_STATES: Record<string, SyncStateName> = {
  idle: 'synced',
  syncing: 'syncing',
  offline: 'offline',
  paused: 'paused',
  needs_sign_in: 'needs_sign_in',
  error: 'needs_attention',
};

/** The agent's state word as one of ours; anything unknown needs attention. */
export function readSyncStateName(agentState: string): SyncStateName {
  return AGENT_STATES[agentState] ?? 'needs_attention';
}

/**
 * The agent's status (`sync/status/`) as the bridge's SyncState: the one mapping for
 * the state the core pushes and the Sync screen's first read before any push.
 */
export function syncStateOfStatus(status: SyncStatusJson, heldDeletes: number): SyncState {
  return {
    state: readSyncStateName(status.state),
    // The status counts every queued change; a held delete goes nowhere until the user decides, and is counted apart.
    pending: Math.max(0, status.pending - heldDeletes),
    conflicts: status.conflicts,
    heldDeletes,
    lastSyncedAt: status.last_synced_at,
    nextAttemptAt: status.next_attempt_at,
    remoteReachable: status.remote_reachable,
    detail: status.detail ?? '',
  };
}

/** The tray's four faces (issue 7): local-only counts as synced, paused as needing attention. */
export type TrayFace = 'synced' | 'syncing' | 'offline' | 'needs_attention';

export function trayFaceOf(state: SyncStateName): TrayFace {
  switch (state) {
    case 'local_only':
    case 'synced':
      return 'synced';
    case 'syncing':
      return 'syncing';
    case 'offline':
      return 'offline';
    case 'paused':
    case 'needs_attention':
    case 'needs_sign_in':
      return 'needs_attention';
  }
}

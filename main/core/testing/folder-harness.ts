// A real server, the fault proxy and a real agent with --folder (main/sync/testing/
// sync-harness.ts), with the short timings the project-folder tests use, and waits
// for "nothing left to do" in the watcher and in sync alike.
import { createHash } from 'node:crypto';
import { startSyncHarness, type SyncHarness } from '../../sync/testing/sync-harness.ts';
import { UNTHROTTLED_RATES } from '../../engine/testing/test-server.ts';
import type { ThrottleRates } from '../../../shared/throttle-rates.ts';
import type { FolderStatus, FolderWatcher } from '../../watch/watcher.ts';
import { settleFolders } from '../../watch/testing/folder-testing.ts';
import { projectFolderRecords, watchProjectFolders } from '../agent-folders.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import type { ContentsPolicyOptions } from '../../sync/contents-policy.ts';
import type { TransferCaps } from '../../../shared/transfer-caps.ts';

/** The stability window of these tests: short, so they are quick. */
export const TEST_WINDOW_MS = 300;

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- API JSON
export const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

export interface FolderHarnessOptions {
  confirmDeletes?: boolean;
  /** The stability window; TEST_WINDOW_MS unless a test needs time to act inside it. */
  stabilityWindowMs?: number;
  /** Receives the agent's log lines (also printed when FOLDER_TEST_LOG is set). */
  log?: (line: string) => void;
  /** `off`: the agent treats the remote as one without the contents route, as the hosted service is. */
  remoteContentsReplace?: 'detect' | 'off';
  /**
   * Files on demand (issue 15). Default here: every project's files are kept, so the
   * tests of arrivals, moves and edits see every file arrive; the policy itself is
   * tested with the agent's default in tests/folder-on-demand.test.ts.
   */
  contents?: ContentsPolicyOptions;
  /** The speed caps and metered switch, asked at each piece (none by default). */
  transferCaps?: () => TransferCaps;
}

/** A sync harness whose agent has the real folder watcher (tests read its counts). */
export type FolderHarness = SyncHarness<FolderWatcher>;

export async function startWithFolder(root: string, options: FolderHarnessOptions = {}): Promise<FolderHarness> {
  const printing = process.env.FOLDER_TEST_LOG;
  const log = (line: string) => {
    options.log?.(line);
    if (printing) console.log(`${new Date().toISOString()} ${line}`);
  };
  const h = await startSyncHarness({
    // The server in these tests is unthrottled; so is the agent's pacing, or the polling below would spend its budget.
    remoteRates: UNTHROTTLED_RATES as ThrottleRates,
    agent: {
      folders: watchProjectFolders(root, {
        stabilityWindowMs: options.stabilityWindowMs ?? TEST_WINDOW_MS,
        pairWindowMs: 1200,
        reconcileIntervalMs: 500,
        burstThreshold: 100,
        confirmDeletes: options.confirmDeletes ?? false,
      }),
      folderRecords: projectFolderRecords,
      contents: options.contents ?? { everything: true },
      chunkedUploadAboveBytes: 1024 * 1024,
      uploadPartBytes: 512 * 1024,
      ...(options.transferCaps ? { transferCaps: options.transferCaps } : {}),
      ...(options.remoteContentsReplace ? { remoteContentsReplace: options.remoteContentsReplace } : {}),
      ...(printing || options.log ? { log } : {}),
    },
  });
  await settleFolders(h);
  return h;
}

export const folderStatus = async (h: SyncHarness): Promise<FolderStatus> => (await h.local('GET', '/api/orgs/1/sync/folder/')).json as FolderStatus;

export const remoteFilesWithHash = async (h: SyncHarness, hash: string): Promise<Json[]> =>
  ((await h.remote('GET', `${apiPaths.privateFiles(1)}?search=${hash}&limit=100`)).json as Json[]).filter((file) => file.file_hash === hash);
export const localFilesWithHash = async (h: SyncHarness, hash: string) =>
  h.agent.engine.context.db.selectFrom('private_files').selectAll().where('file_hash', '=', hash).execute();

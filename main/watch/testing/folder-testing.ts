// Helpers for tests and the benchmark of project folders: bounded waits on the real
// filesystem, and files written the way programs write them (slowly, in chunks).
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { STATE_HANG_GUARD_MS } from '../../testing/hang-guards.ts';

type Truthy<T> = Exclude<T, false | null | undefined | 0 | ''>;

/**
 * Polls `check` until it returns something truthy; fails with what was last seen once
 * the wait is hung. `timeoutMs` is what a call expects at most on a quiet machine, but
 * the wait gives up no sooner than STATE_HANG_GUARD_MS: a slow, loaded machine must not
 * fail a test that would pass given time (issue 33).
 */
export async function waitFor<T>(label: string, check: () => Promise<T> | T, timeoutMs = 20_000, intervalMs = 50): Promise<Truthy<T>> {
  timeoutMs = Math.max(timeoutMs, STATE_HANG_GUARD_MS);
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value as Truthy<T>;
      last = value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${label} (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Appends `chunks` pieces of `chunkBytes` each, `intervalMs` apart, as a slow copy or a program saving does. */
export async function writeSlowly(file: string, chunks: number, chunkBytes: number, intervalMs: number, fill = 0x61): Promise<Buffer> {
  const handle = await fsp.open(file, 'w');
  const written: Buffer[] = [];
  try {
    for (let index = 0; index < chunks; index++) {
      const chunk = Buffer.alloc(chunkBytes, fill + (index % 20));
      await handle.write(chunk);
      written.push(chunk);
      if (index < chunks - 1) await sleep(intervalMs);
    }
  } finally {
    await handle.close();
  }
  return Buffer.concat(written);
}

/** The folder under `root` whose name ends with "(<projectId>)". */
export function folderOfProject(root: string, projectId: number): string {
  const name = fs.readdirSync(root).find((entry) => entry.endsWith(` (${projectId})`));
  if (!name) throw new Error(`no folder for project ${projectId} in ${root}`);
  return path.join(root, name);
}

/** An agent with project folders and a way to wait for its sync (a SyncHarness, or another agent of one). */
export interface FolderSide {
  agent: { folders: { isQuiet(): boolean } | null };
  synced(): Promise<void>;
}

/** The watcher has nothing queued and sync has nothing moving, a few rounds over (each can start the other). */
export async function settleFolders(side: FolderSide): Promise<void> {
  for (let round = 0; round < 3; round++) {
    await waitFor('the folders to be quiet', () => side.agent.folders!.isQuiet(), 30_000);
    await side.synced();
    await sleep(100);
  }
  await waitFor('the folders to be quiet', () => side.agent.folders!.isQuiet(), 30_000);
}

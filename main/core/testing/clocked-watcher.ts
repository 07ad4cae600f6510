// A real folder watcher on a test server's store (the embedded store's way: its
// outbox confirms nothing), on a ManualClock, so a test moves the watcher's time
// itself: files wait out their stability window until the test advances the clock.
import fs from 'node:fs';
import { ManualClock } from '../../engine/clock.ts';
import type { TestServer } from '../../engine/testing/test-server.ts';
import { DEMO_ORGS, DEMO_USERS } from '../../engine/seed/demo-seed.ts';
import { FolderWatcher } from '../../watch/watcher.ts';
import { waitFor } from '../../watch/testing/folder-testing.ts';
import { folderOutboxOf } from '../agent-folders.ts';

export interface ClockedWatcher {
  watcher: FolderWatcher;
  clock: ManualClock;
  /** Sunrise Solar's first project, and its folder's name under the root. */
  projectId: number;
  folder: string;
}

/** Starts the watcher on `root` as Sunrise Solar's admin and waits for the first project's folder. Close `watcher` when done. */
export async function startClockedWatcher(server: TestServer, root: string, stabilityWindowMs: number): Promise<ClockedWatcher> {
  const { db } = server.engine.context;
  const admin = await db.selectFrom('users').select('id').where('email', '=', DEMO_USERS.sunriseAdmin).executeTakeFirstOrThrow();
  const clock = new ManualClock();
  const watcher = new FolderWatcher({ root, engine: server.engine.context, outbox: folderOutboxOf(server.engine.context), orgId: DEMO_ORGS.sunrise, userId: admin.id, clock, stabilityWindowMs });
  await watcher.start();
  const project = await db.selectFrom('projects').select('id').where('org_id', '=', DEMO_ORGS.sunrise).orderBy('id').executeTakeFirstOrThrow();
  const folder = await waitFor('the project folder', () => fs.readdirSync(root).find((name) => name.endsWith(` (${project.id})`)), 30_000);
  return { watcher, clock, projectId: project.id, folder };
}

// New contents for a private file (replaceFileContents, docs/files.md "New
// contents and versions") must cost the same whatever the size of its project:
//   files.replace_in_big_project  median time of one replace of a file in a project with
//                                 1,000 other files, vs the same in a project with none
// In-process on a real engine and SQLite file, with a change feed listener so every
// write takes its snapshots as in the app; only the project's size differs.
import { performance } from 'node:perf_hooks';
import type { Benchmark, BenchResult } from './bench-types.ts';
import { startTestServer } from '../main/engine/testing/test-server.ts';
import type { EngineContext } from '../main/engine/context.ts';
import { receiveBuffer } from '../main/engine/files/blob-store.ts';
import { insertFileRow, replaceFileContents, storeNewFile } from '../main/engine/files/file-service.ts';
import { byUser } from '../main/engine/changes/change-feed.ts';

const OTHER_FILES = 1000;
const REPLACES = 60;
const ADMIN = 1;

async function newFile(context: EngineContext, projectId: number, name: string): Promise<number> {
  const received = await receiveBuffer(context.store.fileRoot, Buffer.from(`${name} first contents`), 'bench');
  return storeNewFile(context, received, { orgId: 1, userId: ADMIN, projectId, title: name, fileName: `${name}.txt`, mimeType: 'text/plain' });
}

/** `count` more files on the project, sharing one blob, in one transaction (only their number matters here). */
async function fillProject(context: EngineContext, projectId: number, count: number): Promise<void> {
  const received = await receiveBuffer(context.store.fileRoot, Buffer.from('filler'), 'bench');
  const first = await storeNewFile(context, received, { orgId: 1, userId: ADMIN, projectId, title: 'filler 0', fileName: 'filler-0.txt', mimeType: 'text/plain' });
  const row = await context.db.selectFrom('private_files').selectAll().where('id', '=', first).executeTakeFirstOrThrow();
  const shared = { tempPath: '', sha256: row.file_hash!, size: row.filesize!, head: Buffer.from('filler') };
  await context.db.transaction().execute(async (trx) => {
    for (let index = 1; index < count; index++) {
      await insertFileRow(trx, context, shared, { orgId: 1, userId: ADMIN, projectId, title: `filler ${index}`, fileName: `filler-${index}.txt`, mimeType: 'text/plain' });
    }
  });
}

/** The median of REPLACES replaces of one file, each with new bytes. */
async function medianReplaceMs(context: EngineContext, fileId: number, label: string): Promise<number> {
  const times: number[] = [];
  for (let round = 0; round < REPLACES; round++) {
    const received = await receiveBuffer(context.store.fileRoot, Buffer.from(`${label} contents ${round}`), 'bench');
    const started = performance.now();
    await replaceFileContents(context, { orgId: 1, fileId, received, by: byUser(ADMIN) });
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

const replaceInBigProject: Benchmark = {
  name: 'files.replace_in_big_project',
  description: `median replaceFileContents of a file in a project with ${OTHER_FILES} other files, vs in a project with none`,
  async run(): Promise<BenchResult[]> {
    const server = await startTestServer();
    const { context } = server.engine;
    const stop = context.changes.subscribe(() => {});
    try {
      await fillProject(context, 2, OTHER_FILES);
      const inBig = await newFile(context, 2, 'big-project');
      const inEmpty = await newFile(context, 3, 'empty-project');
      // Alternated, so whatever else the machine does falls on both alike.
      const baselines: number[] = [];
      const values: number[] = [];
      for (let pass = 0; pass < 3; pass++) {
        baselines.push(await medianReplaceMs(context, inEmpty, `empty ${pass}`));
        values.push(await medianReplaceMs(context, inBig, `big ${pass}`));
      }
      const baseline = Math.min(...baselines);
      const value = Math.min(...values);
      return [
        {
          name: 'files.replace_in_big_project',
          value,
          baseline,
          ratio: value / baseline,
          unit: 'ms (median)',
          notes: `one replace (a version kept, the feed announced) of a file among ${OTHER_FILES} others in its project vs alone in one; best of 3 medians of ${REPLACES}; 1 = independent of the project's size`,
        },
      ];
    } finally {
      stop();
      await server.close();
    }
  },
};

export const benchmarks: Benchmark[] = [replaceInBigProject];

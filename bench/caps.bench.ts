// sync.caps: the speed cap in the real world (issue 32). A real agent and server on
// 127.0.0.1, a 100 KB/s download cap, and about 60 s of background downloads (files of
// a kept project, fetched one after another as prefetch does). Reported: the average
// rate over the run against the cap (target: within 10 %), and how long a file a
// person opens meanwhile waits before its first byte arrives (target: within 2 s),
// against the time one cap piece takes. Timing is what is measured here, so this is a
// benchmark and not a test (docs/testing.md: no timing asserts in tests).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Benchmark, BenchResult } from './bench-types.ts';
import { startSyncHarness } from '../main/sync/testing/sync-harness.ts';
import { createFile } from '../main/engine/testing/file-testing.ts';
import { DEMO_USERS } from '../main/engine/seed/demo-seed.ts';
import { apiPaths } from '../shared/api-paths.ts';
import { NO_TRANSFER_CAPS, type TransferCaps } from '../shared/transfer-caps.ts';
import { downloadPartsDir } from '../main/sync/download-parts.ts';

const CAP_KBPS = 100;
const SECONDS = 60;
const FILE_BYTES = 500_000;
/** Enough files for the run at the cap, and one for the person. */
const BACKGROUND_FILES = Math.ceil((CAP_KBPS * 1000 * SECONDS) / FILE_BYTES);
/** When the person opens their file, into the run. */
const OPEN_AFTER_MS = 20_000;

export const benchmarks: Benchmark[] = [
  {
    name: 'sync.caps',
    description: `${SECONDS} s of background downloads under a ${CAP_KBPS} KB/s cap, and a file a person opens meanwhile`,
    async run(): Promise<BenchResult[]> {
      const caps: TransferCaps = { ...NO_TRANSFER_CAPS };
      const h = await startSyncHarness({ agent: { transferCaps: () => caps } });
      try {
        const token = await h.server.tokenFor(DEMO_USERS.sunriseAdmin);
        const made: { id: number; size: number }[] = [];
        for (let index = 0; index <= BACKGROUND_FILES; index++) {
          const file = await createFile(h.server, token, crypto.randomBytes(FILE_BYTES), `bench-${index}.bin`, { title: `Cap bench ${index}`, project: `${h.server.baseUrl}${apiPaths.project(1, 30)}` });
          made.push({ id: file.id as number, size: FILE_BYTES });
        }
        await h.synced(120_000);
        const rowOf = (id: number) => h.agent.engine.context.db.selectFrom('private_files').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
        const [opened, ...background] = made;
        Object.assign(caps, { downloadKBps: CAP_KBPS });

        const started = performance.now();
        let bytes = 0;
        let openWaitMs = Number.NaN;
        const person = (async () => {
          await new Promise((resolve) => setTimeout(resolve, OPEN_AFTER_MS));
          const row = await rowOf(opened!.id);
          const part = path.join(downloadPartsDir(h.dataDir), `${row.id}-${row.file_hash}.part`);
          const asked = performance.now();
          const fetching = h.agent.engine.context.fetchMissingBlob!(row, { requestClass: 'user' });
          // Its first byte is in its part file; polled finely, as this is the one thing timed here.
          while (!((fs.statSync(part, { throwIfNoEntry: false })?.size ?? 0) > 0)) await new Promise((resolve) => setTimeout(resolve, 5));
          openWaitMs = performance.now() - asked;
          await fetching;
          bytes += opened!.size;
        })();
        for (const file of background) {
          if (performance.now() - started > SECONDS * 1000) break;
          await h.agent.engine.context.fetchMissingBlob!(await rowOf(file.id), { requestClass: 'background' });
          bytes += file.size;
        }
        await person;
        const seconds = (performance.now() - started) / 1000;
        const rateKBps = bytes / 1000 / seconds;
        return [
          {
            name: 'sync.caps.average',
            value: rateKBps,
            baseline: CAP_KBPS,
            ratio: rateKBps / CAP_KBPS,
            unit: 'KB/s',
            notes: `${(bytes / 1e6).toFixed(1)} MB in ${seconds.toFixed(1)} s of downloads under a ${CAP_KBPS} KB/s cap; target ratio 0.9-1.1`,
          },
          {
            name: 'sync.caps.open_wait',
            value: openWaitMs / 1000,
            baseline: 2,
            ratio: openWaitMs / 2000,
            unit: 's',
            notes: 'from a person opening a file, with background downloads using the cap, to its first byte; target under 2 s (ratio under 1)',
          },
        ];
      } finally {
        await h.close();
      }
    },
  },
];

// app.design-too-large-gap (issue 36; moved here from e2e/design.spec.ts, where its
// 200 ms bound failed on a loaded machine: issue 33): a design of a few hundred KB
// that inflates past MAX_DESIGN_JSON_BYTES, opened in the Design tab of `solardesk
// web` in Debian's Chromium. The renderer decodes designs in a Web Worker, so the
// page's main thread should never be busy long while it opens: the longest the page
// could not answer (a 10 ms timer's longest gap) from the tab's click until it says
// the design is too large, against the longest the same idle page waits in the same
// run. Target: within 200 ms beyond the idle page's.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Browser } from '@playwright/test';
import { createEngine } from '../main/engine/engine.ts';
import { seedDemo } from '../main/engine/seed/demo-seed.ts';
import { oneMemberDesignBomb } from '../main/engine/testing/design-bomb.ts';
import { ensureRendererBuilt } from '../main/renderer-files.ts';
import { STOP_WITH_PARENT, stopChild, waitForOutput } from '../main/testing/child-process.ts';
import { DESIGN_TOO_LARGE_MESSAGE } from '../shared/design-codec.ts';
import { launchBenchChromium, readAnswerGap, startAnswerProbe } from './page-frames.ts';
import type { Benchmark, BenchResult } from './bench-types.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** How long the idle page is watched for its own longest gap. */
const IDLE_MS = 2000;
const ROUNDS = 3;
const ANSWER_WITHIN_MS = 200;

/** The demo store with one designed project's design replaced by one that inflates past the limit; its identifier. */
async function storeWithTooLargeDesign(dataDir: string): Promise<string> {
  const engine = await createEngine({ dataDir, deliverWebhooks: false });
  try {
    await seedDemo(engine.context);
    const { db } = engine.context;
    const project = await db.selectFrom('projects').select(['id', 'identifier']).where('org_id', '=', 1).where('design', 'is not', null).orderBy('id').executeTakeFirstOrThrow();
    await db.updateTable('projects').set({ design: await oneMemberDesignBomb(300) }).where('id', '=', project.id).execute();
    return project.identifier;
  } finally {
    await engine.close();
  }
}

/** One round: the project opened, the idle page watched, then the Design tab opened; both longest gaps. */
async function measureRound(browser: Browser, url: string, identifier: string): Promise<{ idleMs: number; openingMs: number }> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  try {
    await page.goto(url);
    await page.getByRole('searchbox', { name: 'Search projects' }).fill(identifier);
    await page.getByTestId('project-row').filter({ has: page.locator(`[title*="${identifier}"]`) }).click();
    await page.getByTestId('project-panel').getByText(identifier).first().waitFor();
    await startAnswerProbe(page);
    await page.waitForTimeout(IDLE_MS);
    const idle = await readAnswerGap(page);
    await page.getByRole('tab', { name: 'Design' }).click();
    await page.getByTestId('project-panel').getByRole('alert').filter({ hasText: DESIGN_TOO_LARGE_MESSAGE }).waitFor({ timeout: 120_000 });
    const opening = await readAnswerGap(page);
    if (opening.ticks === 0) throw new Error('the page never answered while the design opened');
    return { idleMs: idle.longestGapMs, openingMs: opening.longestGapMs };
  } finally {
    await page.close();
  }
}

export const benchmarks: Benchmark[] = [
  {
    name: 'app.design-too-large-gap',
    description: "the longest the page could not answer while the Design tab opens a design too large to open, vs the same idle page's longest wait",
    async run(): Promise<BenchResult[]> {
      const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'solardesk-bench-design-page-'));
      let browser: Browser | undefined;
      const dataDir = path.join(workDir, 'data');
      const identifier = await storeWithTooLargeDesign(dataDir);
      await ensureRendererBuilt();
      const child = spawn(process.execPath, [path.join(repoRoot, 'main/solardesk.js'), 'web', '--port', '0', '--data', dataDir, STOP_WITH_PARENT], { cwd: repoRoot });
      try {
        const url = await waitForOutput(child, /SolarDesk is running at (\S+)/);
        browser = await launchBenchChromium();
        await measureRound(browser, url, identifier); // warm-up: the browser's first page, the worker's first start
        const rounds = [];
        for (let round = 0; round < ROUNDS; round++) rounds.push(await measureRound(browser, url, identifier));
        // The worst round of each: the target is about the longest wait a person meets.
        const opening = Math.max(...rounds.map((round) => round.openingMs));
        const idle = Math.max(...rounds.map((round) => round.idleMs));
        return [
          {
            name: 'app.design-too-large-gap',
            value: opening,
            baseline: idle,
            ratio: opening / idle,
            unit: 'ms',
            notes:
              `longest gap of a 10 ms timer from the Design tab's click to "too large", worst of ${ROUNDS} rounds (${rounds.map((round) => round.openingMs.toFixed(0)).join(', ')} ms), ` +
              `vs the idle page's over ${IDLE_MS / 1000} s (${rounds.map((round) => round.idleMs.toFixed(0)).join(', ')} ms); ` +
              `target within ${ANSWER_WITHIN_MS} ms beyond the idle page's: ${opening <= idle + ANSWER_WITHIN_MS ? 'met' : '**missed**'}; lower is better`,
          },
        ];
      } finally {
        await browser?.close();
        await stopChild(child);
        fs.rmSync(workDir, { recursive: true, force: true });
      }
    },
  },
];

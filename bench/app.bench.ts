// The desktop app's project list with 10,000 projects, in Debian's Chromium:
// how long until the first rows show, and how smooth scrolling is. Each is put
// against a baseline measured in the same run and the same browser: a static
// HTML page listing the same 10,000 rows (no app, no API, no virtualisation),
// served by a bare Node HTTP server.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from '@playwright/test';
import { launchBenchChromium, percentile, scrollFrameTimes } from './page-frames.ts';
import { createEngine } from '../main/engine/engine.ts';
import { DEMO_PROJECT_COUNTS, DEMO_SEED, insertGeneratedProjects, seedDemo } from '../main/engine/seed/demo-seed.ts';
import { generateProject } from '../main/engine/seed/generator.ts';
import { ensureRendererBuilt } from '../main/renderer-files.ts';
import { STOP_WITH_PARENT, stopChild, waitForOutput } from '../main/testing/child-process.ts';
import type { Benchmark, BenchResult } from './bench-types.ts';

const PROJECT_COUNT = 10_000;
const SCROLL_FRAMES = 240;
const SCROLL_STEP_PX = 90;
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

interface Row {
  title: string;
  locality: string;
  state: string;
  identifier: string;
}

/** A data folder whose Sunrise Solar holds 10,000 projects: the demo 48 plus generated ones. */
async function seedTenThousand(dataDir: string): Promise<Row[]> {
  const engine = await createEngine({ dataDir, deliverWebhooks: false });
  try {
    await seedDemo(engine.context);
    const extra = Array.from({ length: PROJECT_COUNT - DEMO_PROJECT_COUNTS.sunrise }, (_, index) =>
      generateProject(DEMO_SEED + 100, index, { withDesign: false }),
    );
    await insertGeneratedProjects(engine.context, 1, extra);
    return engine.context.db.selectFrom('projects').select(['title', 'locality', 'state', 'identifier']).where('org_id', '=', 1).orderBy('modified_date', 'desc').execute();
  } finally {
    await engine.close();
  }
}

const escapeHtml = (text: string) => text.replace(/[&<>"]/g, (character) => `&#${character.charCodeAt(0)};`);

/** The baseline page: every row in the DOM at once, in a scrolling box the size of the app's list. */
function staticListHtml(rows: readonly Row[]): string {
  const items = rows
    .map((row) => `<div class="row"><b>${escapeHtml(row.title)}</b><span>${escapeHtml(`${row.locality}, ${row.state} · ${row.identifier}`)}</span></div>`)
    .join('');
  return `<!doctype html><meta charset="utf-8"><style>body{margin:0;font:14px system-ui}#list{height:780px;width:430px;overflow:auto}.row{height:67px;border-bottom:1px solid #ddd;padding:10px 14px;box-sizing:border-box;display:flex;flex-direction:column}</style><div id="list" data-testid="project-list">${items}</div>`;
}

/** A static server in its own process, so "start" costs the same kind of thing on both sides. */
function staticServerScript(htmlFile: string): string {
  return `const http=require('http');const fs=require('fs');const html=fs.readFileSync(${JSON.stringify(htmlFile)});
http.createServer((q,r)=>{r.writeHead(200,{'content-type':'text/html; charset=utf-8'});r.end(html)}).listen(0,'127.0.0.1',function(){console.log('serving at http://127.0.0.1:'+this.address().port+'/')});`;
}

const mean = (values: number[]) => values.reduce((total, value) => total + value, 0) / values.length;

interface Measured {
  startToFirstRowMs: number;
  navigationToFirstRowMs: number;
  frameTimes: number[];
}

async function measureSolarDesk(browser: Browser, dataDir: string): Promise<Measured & { allRowsMs: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, [path.join(repoRoot, 'main/solardesk.js'), 'web', '--port', '0', '--data', dataDir, STOP_WITH_PARENT], { cwd: repoRoot });
  try {
    const url = await waitForOutput(child, /SolarDesk is running at (\S+)/);
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const navigated = performance.now();
    await page.goto(url);
    await page.locator('[data-testid="project-row"]').first().waitFor();
    const firstRow = performance.now();
    await page.getByTestId('project-count').filter({ hasText: '10,000 projects' }).waitFor({ timeout: 120_000 });
    const allRows = performance.now();
    await page.getByTestId('project-list').hover();
    const frameTimes = await scrollFrameTimes(page, '[data-testid="project-list"]', SCROLL_FRAMES, SCROLL_STEP_PX);
    await page.close();
    return { startToFirstRowMs: firstRow - started, navigationToFirstRowMs: firstRow - navigated, allRowsMs: allRows - navigated, frameTimes };
  } finally {
    await stopChild(child);
  }
}

async function measureStaticList(browser: Browser, htmlFile: string): Promise<Measured> {
  const started = performance.now();
  const child = spawn(process.execPath, ['-e', staticServerScript(htmlFile)]);
  try {
    const url = await waitForOutput(child, /serving at (\S+)/);
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const navigated = performance.now();
    await page.goto(url);
    await page.locator('.row').last().waitFor({ state: 'attached' });
    await page.locator('.row').first().waitFor();
    const firstRow = performance.now();
    await page.locator('#list').hover();
    const frameTimes = await scrollFrameTimes(page, '[data-testid="project-list"]', SCROLL_FRAMES, SCROLL_STEP_PX);
    await page.close();
    return { startToFirstRowMs: firstRow - started, navigationToFirstRowMs: firstRow - navigated, frameTimes };
  } finally {
    await stopChild(child);
  }
}

export const benchmarks: Benchmark[] = [
  {
    name: 'app.project-list-10k',
    description: `the renderer's project list with ${PROJECT_COUNT.toLocaleString('en')} projects in browser mode, against a static HTML list of the same rows in the same Chromium`,
    async run(): Promise<BenchResult[]> {
      const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'solardesk-bench-app-'));
      let browser: Browser | undefined;
      try {
        const rows = await seedTenThousand(path.join(workDir, 'data'));
        const htmlFile = path.join(workDir, 'static-list.html');
        fs.writeFileSync(htmlFile, staticListHtml(rows));
        await ensureRendererBuilt();
        browser = await launchBenchChromium();
        // A warm-up of each, so neither side pays for the browser's first page.
        await measureStaticList(browser, htmlFile);
        const app = await measureSolarDesk(browser, path.join(workDir, 'data'));
        const baseline = await measureStaticList(browser, htmlFile);
        const note = 'lower is better';
        return [
          {
            name: 'app.start-to-first-list',
            value: app.startToFirstRowMs,
            baseline: baseline.startToFirstRowMs,
            ratio: app.startToFirstRowMs / baseline.startToFirstRowMs,
            unit: 'ms',
            notes: `process start to the first row on screen (SolarDesk: solardesk web + engine + page + first API page) vs a static server and page; ${note}`,
          },
          {
            name: 'app.navigation-to-first-list',
            value: app.navigationToFirstRowMs,
            baseline: baseline.navigationToFirstRowMs,
            ratio: app.navigationToFirstRowMs / baseline.navigationToFirstRowMs,
            unit: 'ms',
            notes: `page load to the first row on screen, app running; all ${PROJECT_COUNT.toLocaleString('en')} rows loaded after ${Math.round(app.allRowsMs)} ms; ${note}`,
          },
          {
            name: 'app.scroll-frame-p95',
            value: percentile(app.frameTimes, 0.95),
            baseline: percentile(baseline.frameTimes, 0.95),
            ratio: percentile(app.frameTimes, 0.95) / percentile(baseline.frameTimes, 0.95),
            unit: 'ms/frame',
            notes: `95th percentile of ${SCROLL_FRAMES} frames scrolling ${SCROLL_STEP_PX} px per frame (virtualised list vs every row in the DOM); ${note}`,
          },
          {
            name: 'app.scroll-frame-mean',
            value: mean(app.frameTimes),
            baseline: mean(baseline.frameTimes),
            ratio: mean(app.frameTimes) / mean(baseline.frameTimes),
            unit: 'ms/frame',
            notes: `mean frame time of the same scroll; longest frame ${Math.round(Math.max(...app.frameTimes))} ms (app) vs ${Math.round(Math.max(...baseline.frameTimes))} ms (static); ${note}`,
          },
        ];
      } finally {
        await browser?.close();
        fs.rmSync(workDir, { recursive: true, force: true });
      }
    },
  },
];

// Helpers of the e2e suite: SolarDesk in browser mode as a child process on a temp
// data folder, the bridge over HTTP (the same client the page uses) for checking
// what reached the local API, and screenshots of each view in both themes.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ConsoleMessage, expect, type Page } from '@playwright/test';
import { createHttpBridge, type HttpBridge } from '../../shared/bridge-http.ts';
import type { ApiResponse, HttpMethod } from '../../shared/bridge.ts';
import { STOP_WITH_PARENT, stopChild, waitForOutput } from '../../main/testing/child-process.ts';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const solardeskBin = path.join(repoRoot, 'main/solardesk.js');
const screenshotDir = path.join(repoRoot, 'test-results/screenshots');

export interface RunningApp {
  /** The printed URL, secret included. */
  url: string;
  baseUrl: string;
  secret: string;
  dataDir: string;
  folderRoot: string;
  /** Where the embedded store keeps its project folders: "On this computer" under the folder root. */
  projectFoldersRoot: string;
  bridge: HttpBridge;
  /** A call to the local API as the app's user, through the bridge. */
  api<T = unknown>(method: HttpMethod, apiPath: string, body?: unknown, query?: Record<string, string | number>): Promise<ApiResponse<T>>;
  stop(): Promise<void>;
}

export function makeTempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Starts `solardesk web` and waits for "SolarDesk is running at <URL>". */
export async function startSolarDesk(options: { extraArgs?: string[]; dataDir?: string } = {}): Promise<RunningApp> {
  const dataDir = options.dataDir ?? makeTempDir('solardesk-e2e-');
  const folderRoot = path.join(dataDir, 'folders');
  const child: ChildProcess = spawn(
    process.execPath,
    [solardeskBin, 'web', '--port', '0', '--data', dataDir, '--folder-root', folderRoot, STOP_WITH_PARENT, ...(options.extraArgs ?? [])],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const url = await waitForOutput(child, /SolarDesk is running at (\S+)/);
  const parsed = new URL(url);
  const secret = new URLSearchParams(parsed.hash.slice(1)).get('secret')!;
  const baseUrl = parsed.origin;
  const bridge = createHttpBridge({ baseUrl, secret });
  return {
    url,
    baseUrl,
    secret,
    dataDir,
    folderRoot,
    projectFoldersRoot: path.join(folderRoot, 'On this computer'),
    bridge,
    api: async <T>(method: HttpMethod, apiPath: string, body?: unknown, query?: Record<string, string | number>) =>
      (await bridge.invoke('api.request', { method, path: apiPath, body, query })) as ApiResponse<T>,
    async stop() {
      bridge.close();
      await stopChild(child);
      if (!options.dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Opens the app as a user would: the printed URL. */
export async function openApp(page: Page, app: RunningApp): Promise<void> {
  // A page opened before (on an app since stopped, when a test restarts SolarDesk) is
  // closed first, as Electron's window closes with its app: otherwise its failed
  // reconnections could land among this document's problems, depending on timing.
  const earlier = (page as Page & { solardeskListeners?: () => void }).solardeskListeners;
  if (earlier) {
    earlier();
    await page.goto('about:blank');
  }
  const problems: string[] = [];
  const onPageError = (error: Error) => problems.push(error.message);
  const onConsole = (message: ConsoleMessage) => {
    if (message.type() === 'error') problems.push(message.text());
  };
  page.on('pageerror', onPageError);
  page.on('console', onConsole);
  (page as Page & { solardeskListeners?: () => void }).solardeskListeners = () => {
    page.off('pageerror', onPageError);
    page.off('console', onConsole);
  };
  await page.goto(app.url);
  await expect(page.getByRole('navigation', { name: 'SolarDesk' })).toBeVisible();
  // A CSP violation or an uncaught error fails the test that caused it.
  (page as Page & { solardeskProblems?: string[] }).solardeskProblems = problems;
}

export function pageProblems(page: Page): string[] {
  return (page as Page & { solardeskProblems?: string[] }).solardeskProblems ?? [];
}

/** The two window sizes every screen is looked at in (the guide's 800x600 and 1920x1080). */
export const SCREEN_SIZES = [
  { width: 800, height: 600 },
  { width: 1920, height: 1080 },
] as const;

/** Saves the view in the light and the dark theme, under test-results/screenshots/. */
export async function screenshotBothThemes(page: Page, name: string): Promise<void> {
  fs.mkdirSync(screenshotDir, { recursive: true });
  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme });
    await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
    await page.waitForTimeout(400); // canvases redraw in the new colours
    await page.screenshot({ path: path.join(screenshotDir, `${name}-${theme}.png`) });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

/** Searches for one project (by its identifier) and opens it, once the list shows only that one. */
export async function openProjectByIdentifier(page: Page, identifier: string): Promise<void> {
  await page.getByRole('searchbox', { name: 'Search projects' }).fill(identifier);
  // The row that names it, not the first row: right after another search the list and its
  // count may still be the previous one's ("1 project" too) for a moment. The row's
  // title carries the whole identifier (a generated one is shortened in its text).
  const row = page.getByTestId('project-row').filter({ has: page.locator(`[title*="${identifier}"]`) });
  await expect(row).toHaveCount(1);
  await expect(page.getByTestId('project-count')).toHaveText('1 project');
  await row.click();
  await expect(page.getByTestId('project-panel')).toContainText(identifier);
}

/**
 * Drops a file on the project panel the way the desktop does: dragenter, dragover
 * and drop events carrying a real DataTransfer with a File in it.
 */
export async function dropFileOnWindow(page: Page, fileName: string, text: string): Promise<void> {
  await page.evaluate(
    ({ name, content }) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([content], name, { type: 'text/plain' }));
      const target = document.querySelector('[data-testid="project-panel"]')!;
      for (const type of ['dragenter', 'dragover', 'drop']) {
        target.dispatchEvent(new DragEvent(type, { dataTransfer: transfer, bubbles: true, cancelable: true }));
      }
    },
    { name: fileName, content: text },
  );
}

/**
 * Nothing reaches past the window, or past the `pane` it is in, sideways: the page
 * and the pane do not scroll sideways, and no element of `part` (a selector in the
 * pane) spans beyond the pane's edges.
 */
export async function expectNoSidewaysOverflow(page: Page, { pane, part }: { pane: string; part: string }): Promise<void> {
  const problems = await page.evaluate(
    ([paneSelector, partSelector]) => {
      const found: string[] = [];
      if (document.documentElement.scrollWidth > document.documentElement.clientWidth + 1) found.push(`the page scrolls sideways (${document.documentElement.scrollWidth}px)`);
      const paneElement = document.querySelector(paneSelector)!;
      if (paneElement.scrollWidth > paneElement.clientWidth + 1) found.push(`${paneSelector} scrolls sideways (${paneElement.scrollWidth}px in ${paneElement.clientWidth}px)`);
      const paneBox = paneElement.getBoundingClientRect();
      for (const element of document.querySelectorAll(`${partSelector} *`)) {
        const box = element.getBoundingClientRect();
        if (box.width > 0 && (box.left < paneBox.left - 1 || box.right > paneBox.right + 1)) found.push(`<${element.tagName.toLowerCase()} class="${element.className}"> spans ${Math.round(box.left)}-${Math.round(box.right)}px`);
      }
      return found;
    },
    [pane, part] as const,
  );
  expect(problems).toEqual([]);
}

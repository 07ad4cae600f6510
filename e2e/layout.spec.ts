// Every view at every window size, light and dark: a screenshot of each, and a
// check that fails when something leaves the window, is clipped, scrolls
// sideways, when two panes overlap, or when text is cut (an ellipsis, a select
// too narrow for its choice) without a tooltip holding it whole. One page, resized
// between sizes; the theme follows the system (emulateMedia). The remote is a real
// `solardesk server` behind the fault proxy (the one faked part: the network, cut to
// make changes wait and to make a conflict).
import fs from 'node:fs';
import path from 'node:path';
import { expect, type Page, test } from '@playwright/test';
import { startWebhookReceiver, type WebhookReceiver } from '../main/engine/testing/webhook-receiver.ts';
import { apiPaths } from '../shared/api-paths.ts';
import { startRemoteServer, type RemoteServer } from './support/remote-server.ts';
import { openApp, pageProblems, repoRoot, type RunningApp, startSolarDesk } from './support/solardesk.ts';

const SIZES = [
  { width: 800, height: 600 },
  { width: 1024, height: 768 },
  { width: 1280, height: 800 },
  { width: 1920, height: 1080 },
  { width: 2560, height: 1440 },
] as const;
const THEMES = ['light', 'dark'] as const;
const screenshotDir = path.join(repoRoot, 'test-results/screenshots/layout');

// Long enough to be cut in the list at every size: the row must carry it whole in a tooltip.
const LONG_TITLE = 'Battery retrofit and north-east array extension for the Glenelg North community hall and kindergarten';
const LONG_ENDPOINT = '/hooks/a-rather-long-endpoint-path-for-the-crm-integration/project-changes';

let app: RunningApp;
let remote: RemoteServer;
let receiver: WebhookReceiver;
test.describe.configure({ mode: 'serial' });
test.beforeAll(async () => {
  fs.rmSync(screenshotDir, { recursive: true, force: true });
  fs.mkdirSync(screenshotDir, { recursive: true });
  [remote, receiver] = await Promise.all([startRemoteServer(), startWebhookReceiver()]);
  app = await startSolarDesk({ extraArgs: ['--sync-interval', '2', '--allow-private-webhook-endpoints'] });
});
test.afterAll(async () => {
  await app?.stop();
  await remote?.stop();
  await receiver?.close();
});

/**
 * What is wrong with the layout right now, in words (empty: nothing). Runs in the page:
 * - the document scrolls sideways;
 * - an element leaves the window, or the box of the nearest ancestor that clips it,
 *   without a scroll container in between that is meant to scroll that way;
 * - a container meant to scroll up and down scrolls sideways;
 * - two panes (sidebar, list, detail, page) overlap, or one is squeezed (a detail pane below 400 px);
 * - text is cut (an ellipsis, or a select narrower than its choice) with no title on it or around it.
 */
function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const viewport = { width: window.innerWidth, height: window.innerHeight };
    const describe = (element: Element): string => {
      const testId = element.getAttribute('data-testid');
      const label = element.getAttribute('aria-label');
      const classes = typeof element.className === 'string' && element.className ? `.${element.className.trim().split(/\s+/).join('.')}` : '';
      const text = (element.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 40);
      return `<${element.tagName.toLowerCase()}${classes}${testId ? ` data-testid=${testId}` : ''}${label ? ` aria-label="${label}"` : ''}> "${text}"`;
    };
    const isHiddenOnPurpose = (element: Element): boolean => {
      for (let node: Element | null = element; node; node = node.parentElement) {
        const style = getComputedStyle(node);
        if (style.display === 'none' || style.visibility === 'hidden' || style.clipPath.startsWith('inset(50%')) return true;
        // Visually hidden text (screen readers only): a 1 px clipped box.
        if (style.position === 'absolute' && node.getBoundingClientRect().width <= 1 && style.overflow === 'hidden') return true;
      }
      return false;
    };
    const scrollsX = (style: CSSStyleDeclaration) => style.overflowX === 'auto' || style.overflowX === 'scroll';
    const scrollsY = (style: CSSStyleDeclaration) => style.overflowY === 'auto' || style.overflowY === 'scroll';

    if (document.documentElement.scrollWidth > document.documentElement.clientWidth + 1) {
      problems.push(`the page scrolls sideways: ${document.documentElement.scrollWidth}px in a ${document.documentElement.clientWidth}px window`);
    }

    const elements = [...document.querySelectorAll('#root *')].filter((element) => {
      const box = element.getBoundingClientRect();
      return box.width > 0 && box.height > 0 && !isHiddenOnPurpose(element);
    });

    for (const element of elements) {
      const box = element.getBoundingClientRect();
      // Find what bounds it: the nearest ancestor that scrolls or clips, per axis, else the window.
      let isBoundX = false;
      let isBoundY = false;
      for (let node = element.parentElement; node && node !== document.documentElement && !(isBoundX && isBoundY); node = node.parentElement) {
        const style = getComputedStyle(node);
        const nodeBox = node.getBoundingClientRect();
        if (!isBoundX && style.overflowX !== 'visible') {
          isBoundX = true;
          // A sideways scroller holds what is wider than it; a clipping box must hold what is in it.
          if (!scrollsX(style) && (box.left < nodeBox.left - 1 || box.right > nodeBox.right + 1)) {
            problems.push(`clipped sideways by ${describe(node)}: ${describe(element)} spans ${Math.round(box.left)}–${Math.round(box.right)}px in ${Math.round(nodeBox.left)}–${Math.round(nodeBox.right)}px`);
          }
        }
        if (!isBoundY && style.overflowY !== 'visible') {
          isBoundY = true;
          if (!scrollsY(style) && (box.top < nodeBox.top - 1 || box.bottom > nodeBox.bottom + 1)) {
            problems.push(`clipped at the bottom by ${describe(node)}: ${describe(element)} spans ${Math.round(box.top)}–${Math.round(box.bottom)}px in ${Math.round(nodeBox.top)}–${Math.round(nodeBox.bottom)}px`);
          }
        }
      }
      if (!isBoundX && (box.left < -1 || box.right > viewport.width + 1)) problems.push(`leaves the window sideways: ${describe(element)} spans ${Math.round(box.left)}–${Math.round(box.right)}px`);
      if (!isBoundY && (box.top < -1 || box.bottom > viewport.height + 1)) problems.push(`leaves the window at the bottom: ${describe(element)}`);

      const style = getComputedStyle(element);
      // A pane that scrolls up and down must not also scroll sideways (tabs slid out of sight); a real sideways scroller says so.
      if (scrollsX(style) && scrollsY(style) && !element.hasAttribute('data-scrolls-sideways') && element.scrollWidth > element.clientWidth + 1) {
        problems.push(`scrolls sideways: ${describe(element)} holds ${element.scrollWidth}px in ${element.clientWidth}px`);
      }
      const isTitled = element.closest('[title]') !== null;
      if (style.textOverflow === 'ellipsis' && element.scrollWidth > element.clientWidth + 1 && !isTitled) {
        problems.push(`text cut with no tooltip: ${describe(element)}`);
      }
      if (element instanceof HTMLSelectElement && element.selectedOptions[0]) {
        const canvas = document.createElement('canvas').getContext('2d')!;
        canvas.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
        const needed = canvas.measureText(element.selectedOptions[0].text).width + parseFloat(style.paddingLeft) + parseFloat(style.paddingRight) + 20; // the arrow
        if (needed > element.clientWidth + 1 && !isTitled) problems.push(`select too narrow for its choice (${Math.round(needed)}px in ${element.clientWidth}px): ${describe(element)}`);
      }
    }

    const panes = [...document.querySelectorAll('.sidebar, .list-pane, .detail-pane, .page')].filter((pane) => !isHiddenOnPurpose(pane));
    for (const pane of panes) {
      const width = pane.getBoundingClientRect().width;
      // An open project or webhook needs room for its title and tabs (one word per line is not readable); a pane holding only its hint (nothing open) does not.
      const holdsOnlyAHint = pane.classList.contains('detail-pane') && pane.children.length === 1 && pane.firstElementChild!.classList.contains('state-empty');
      const least = pane.classList.contains('detail-pane') && !holdsOnlyAHint ? 400 : pane.classList.contains('sidebar') ? 48 : 240;
      if (width > 0 && width < least) problems.push(`a pane squeezed to ${Math.round(width)}px (at least ${least}px): ${describe(pane)}`);
    }
    for (let first = 0; first < panes.length; first++) {
      for (let second = first + 1; second < panes.length; second++) {
        const a = panes[first]!;
        const b = panes[second]!;
        if (a.contains(b) || b.contains(a)) continue;
        const boxA = a.getBoundingClientRect();
        const boxB = b.getBoundingClientRect();
        const overlapX = Math.min(boxA.right, boxB.right) - Math.max(boxA.left, boxB.left);
        const overlapY = Math.min(boxA.bottom, boxB.bottom) - Math.max(boxA.top, boxB.top);
        if (overlapX > 1 && overlapY > 1) problems.push(`panes overlap: ${describe(a)} and ${describe(b)}`);
      }
    }
    return [...new Set(problems)];
  });
}

/**
 * Text cut beside free space (issue 28, items 15 and 16): an ellipsis, an input whose value
 * (or hint) is wider than its box, or a select narrower than its choice, where the window
 * has an empty stretch on the text's own line, as tall as the text, wider than the text's
 * box. A tooltip does not excuse it: the room to show the text is there. "Empty" is what a
 * person sees as empty: a point whose topmost element holds no text of its own and is no
 * control, image or canvas (a pane's or a row's background), in the text's own pane or in a
 * pane that shows nothing but its hint (no project open: that room could be the list's; an
 * open project's short tab is not). The stretch must be empty from
 * the top of the text's box to its bottom (five heights are looked at), so the gap between
 * two cards or two rows of fields, lower than a line of text, is not room. Text cut
 * over more lines (a title clamped to two) is not this rule's: it is not cut sideways. Runs
 * in the page.
 */
function textCutBesideFreeSpace(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const describe = (element: Element): string => {
      const testId = element.getAttribute('data-testid');
      const label = element.getAttribute('aria-label');
      const classes = typeof element.className === 'string' && element.className ? `.${element.className.trim().split(/\s+/).join('.')}` : '';
      const text = (element instanceof HTMLInputElement ? element.value || element.placeholder : element instanceof HTMLSelectElement ? (element.selectedOptions[0]?.text ?? '') : (element.textContent ?? '')).trim().replace(/\s+/g, ' ').slice(0, 40);
      return `<${element.tagName.toLowerCase()}${classes}${testId ? ` data-testid=${testId}` : ''}${label ? ` aria-label="${label}"` : ''}> "${text}"`;
    };
    const canvas = document.createElement('canvas').getContext('2d')!;
    const textWidth = (text: string, style: CSSStyleDeclaration) => {
      canvas.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
      return canvas.measureText(text).width;
    };
    const isCut = (element: Element, style: CSSStyleDeclaration): boolean => {
      if (element instanceof HTMLSelectElement) {
        const choice = element.selectedOptions[0];
        return choice !== undefined && textWidth(choice.text, style) + parseFloat(style.paddingLeft) + parseFloat(style.paddingRight) + 20 > element.clientWidth + 1;
      }
      if (element instanceof HTMLInputElement) {
        if (!['text', 'search', 'email', 'url', 'tel', ''].includes(element.type)) return false;
        const shown = element.value || element.placeholder;
        return shown !== '' && textWidth(shown, style) > element.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) + 1;
      }
      return style.textOverflow === 'ellipsis' && element.scrollWidth > element.clientWidth + 1;
    };
    const isVisible = (element: Element): boolean => {
      for (let node: Element | null = element; node; node = node.parentElement) {
        const style = getComputedStyle(node);
        if (style.display === 'none' || style.visibility === 'hidden' || style.clipPath.startsWith('inset(50%')) return false;
      }
      return true;
    };
    const isContent = (element: Element): boolean =>
      element.matches('input, select, textarea, button, img, svg, svg *, canvas, video, hr') ||
      [...element.childNodes].some((child) => child.nodeType === Node.TEXT_NODE && (child.textContent ?? '').trim() !== '');
    const PANES = '.sidebar, .list-pane, .detail-pane, .page, [role="dialog"]';
    const holdsOnlyAHint = (pane: Element | null) => pane !== null && pane.children.length === 1 && pane.firstElementChild!.classList.contains('state-empty');
    const isEmptyAt = (x: number, y: number, textPane: Element | null): boolean => {
      const hit = document.elementFromPoint(x, y);
      if (hit === null || isContent(hit) || hit.closest('#root') === null) return false;
      const pane = hit.closest(PANES);
      return pane === textPane || holdsOnlyAHint(pane);
    };
    /** The widest stretch of the window, in px, that is empty (for text in `textPane`) at every one of the heights `ys`; it stops looking once one is wider than `enough`. */
    const longestFreeRun = (ys: number[], textPane: Element | null, enough: number): number => {
      let longest = 0;
      let run = 0;
      const step = 4;
      for (let x = 0; x < window.innerWidth && longest <= enough; x += step) {
        if (ys.every((y) => isEmptyAt(x, y, textPane))) run += step;
        else run = 0;
        longest = Math.max(longest, run);
      }
      return longest;
    };
    const inWindow = (y: number) => Math.min(window.innerHeight - 1, Math.max(0, y));
    for (const element of document.querySelectorAll('#root *')) {
      const box = element.getBoundingClientRect();
      if (box.width === 0 || box.height === 0 || box.bottom < 0 || box.top > window.innerHeight) continue;
      const style = getComputedStyle(element);
      if (!isCut(element, style) || !isVisible(element)) continue;
      const free = longestFreeRun(
        [0, 0.25, 0.5, 0.75, 1].map((share) => inWindow(box.top + 0.5 + (box.height - 1) * share)),
        element.closest(PANES),
        box.width,
      );
      if (free > box.width) problems.push(`text cut beside at least ${free}px of free space (its box is ${Math.round(box.width)}px): ${describe(element)}`);
    }
    return problems;
  });
}

/** File rows whose whole box is in sight: inside the window and inside every box that clips or scrolls around them. */
function fileRowsInSight(page: Page): Promise<number> {
  return page.evaluate(() => {
    return [...document.querySelectorAll('[data-testid="file-row"]')].filter((row) => {
      const box = row.getBoundingClientRect();
      if (box.height === 0 || box.top < 0 || box.bottom > window.innerHeight + 1) return false;
      for (let node = row.parentElement; node && node !== document.documentElement; node = node.parentElement) {
        if (getComputedStyle(node).overflowY === 'visible') continue;
        const nodeBox = node.getBoundingClientRect();
        if (box.top < nodeBox.top - 1 || box.bottom > nodeBox.bottom + 1) return false;
      }
      return true;
    }).length;
  });
}

/**
 * Text shown to people that holds a snake_case field name (issue 28): rendered text,
 * and the aria-label, title and placeholder a screen reader or a tooltip reads. What a
 * person typed (inputs) and what is shown as code on purpose (<code>, <kbd>) are theirs.
 */
function snakeCaseWords(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const snake = /\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g;
    const isShown = (element: Element): boolean => {
      const box = element.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) return false;
      for (let node: Element | null = element; node; node = node.parentElement) {
        const style = getComputedStyle(node);
        if (style.display === 'none' || style.visibility === 'hidden') return false;
      }
      return true;
    };
    const isOwnText = (element: Element) => element.closest('input, textarea, select option, code, kbd, [contenteditable]') !== null;
    const found: string[] = [];
    const walker = document.createTreeWalker(document.getElementById('root')!, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent || isOwnText(parent) || !isShown(parent)) continue;
      for (const word of node.textContent?.match(snake) ?? []) found.push(`"${word}" in the text "${(node.textContent ?? '').trim().slice(0, 60)}"`);
    }
    for (const element of document.querySelectorAll('#root [aria-label], #root [title], #root [placeholder]')) {
      if (!isShown(element) || element.closest('code, kbd') !== null) continue;
      for (const attribute of ['aria-label', 'title', 'placeholder']) {
        for (const word of element.getAttribute(attribute)?.match(snake) ?? []) found.push(`"${word}" in ${attribute} "${element.getAttribute(attribute)!.slice(0, 60)}"`);
      }
    }
    return [...new Set(found)];
  });
}

/** Two frames, so a resize or a theme change has been laid out and painted. */
async function settle(page: Page): Promise<void> {
  await page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))));
}

const found: string[] = [];

/** Opens one project by its identifier, once the list shows that one (not the count of an earlier search). */
async function openProject(page: Page, identifier: string): Promise<void> {
  await page.getByRole('searchbox', { name: 'Search projects' }).fill(identifier);
  await expect(page.getByTestId('project-row')).toHaveCount(1);
  await expect(page.getByTestId('project-row')).toContainText(identifier);
  await page.getByTestId('project-row').click();
  await expect(page.getByTestId('project-panel')).toContainText(identifier);
}

/** The current view at each size in both themes: saved as a screenshot, its layout checked. */
async function checkView(page: Page, name: string, ready?: () => Promise<void>): Promise<void> {
  for (const size of SIZES) {
    await page.setViewportSize(size);
    for (const theme of THEMES) {
      await page.emulateMedia({ colorScheme: theme });
      await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
      await ready?.();
      await settle(page);
      await page.screenshot({ path: path.join(screenshotDir, `${name}-${size.width}x${size.height}-${theme}.png`) });
      // The layout is the same in both themes: checked once per size.
      if (theme === 'light') {
        for (const problem of await layoutProblems(page)) found.push(`${name} at ${size.width}x${size.height}: ${problem}`);
        for (const word of await snakeCaseWords(page)) found.push(`${name} at ${size.width}x${size.height}: a field name shown to people, ${word}`);
        // Cut text beside empty space: checked at the smallest and the widest common window (issue 28, items 15 and 16).
        if ((size.width === 800 && size.height === 600) || (size.width === 1920 && size.height === 1080)) {
          for (const problem of await textCutBesideFreeSpace(page)) found.push(`${name} at ${size.width}x${size.height}: ${problem}`);
        }
        if (name === 'project-files' && size.width === 800 && size.height === 600) {
          const rows = await fileRowsInSight(page);
          if (rows < 5) found.push(`${name} at 800x600: ${rows} file rows in sight under the Files tab's header, toolbar and filters (at least 5)`);
        }
        fs.writeFileSync(path.join(screenshotDir, 'problems.txt'), found.join('\n'));
      }
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

test('in a narrow window the sidebar is icons, each named for screen readers, with a tooltip, and works from the keyboard', async ({ page }) => {
  await page.setViewportSize({ width: 800, height: 600 });
  await openApp(page, app);
  const sidebar = page.getByRole('navigation', { name: 'SolarDesk' });
  const webhooks = sidebar.getByRole('button', { name: 'Webhooks', exact: true });
  await expect(webhooks).toBeVisible();
  await expect(webhooks).toHaveAttribute('title', 'Webhooks');
  expect((await sidebar.boundingBox())!.width).toBeLessThanOrEqual(64);
  // The label is in the page (read, and found by name), just not shown.
  await expect(webhooks.locator('.nav-label')).toHaveCSS('clip-path', 'inset(50%)');
  await sidebar.getByRole('button', { name: 'Projects', exact: true }).focus();
  await page.keyboard.press('Tab');
  await expect(sidebar.getByRole('button', { name: 'Contacts', exact: true })).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(sidebar.getByRole('button', { name: 'Schedule', exact: true })).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(webhooks).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('main', { name: 'webhooks' })).toBeVisible();
  // Who is working, in full on hover: the org, the user's name and email.
  await expect(page.getByTestId('sidebar-user')).toHaveAttribute('title', 'Sunrise Solar · Alex Morgan (admin@sunrise.example)');
  // Browser mode has no folder dialog: no Browse button, the field says what to type.
  await sidebar.getByRole('button', { name: 'Settings', exact: true }).click();
  await expect(page.getByLabel('Folder root')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Browse…' })).toHaveCount(0);
  await expect(page.getByText('Type the folder’s full path')).toBeVisible();

  await page.setViewportSize({ width: 1280, height: 800 });
  await expect(webhooks.locator('.nav-label')).toBeVisible();
  expect((await sidebar.boundingBox())!.width).toBe(210);
  expect(pageProblems(page)).toEqual([]);
});

test('every view fits every window size, light and dark, with nothing cut, clipped or overlapping', async ({ page }) => {
  // Every view at five sizes in two themes, each looked at for cut text beside free space too.
  test.setTimeout(900_000);
  // A project with a title too long for any list, a file with a long name, a webhook with a long endpoint and a delivery.
  expect((await app.api('PATCH', apiPaths.project(1, 5), { title: LONG_TITLE })).status).toBe(200);
  const upload = await app.bridge.invoke('files.upload', {
    uploadId: 'layout',
    projectId: 5,
    fileName: 'switchboard-photo-from-the-site-inspection-on-the-fourteenth-of-march.txt',
    bytes: new TextEncoder().encode('Main switch on the left.'),
  });
  expect(upload.status).toBe(201);
  // Five files in all, so the Files tab at 800x600 can be held to showing five rows.
  for (const visit of ['first', 'second', 'third', 'fourth']) {
    const more = await app.bridge.invoke('files.upload', { uploadId: `layout-${visit}`, projectId: 5, fileName: `${visit}-visit-notes.txt`, bytes: new TextEncoder().encode(`Notes from the ${visit} visit.`) });
    expect(more.status).toBe(201);
  }
  const webhook = await app.api<{ id: number }>('POST', apiPaths.webhooks(1), {
    endpoint: `${receiver.url}${LONG_ENDPOINT}`,
    enabled: true,
    debug: false,
    trigger_fields: ['project.site_notes'],
    payload_fields: ['project.id', 'project.site_notes'],
  });
  expect(webhook.status, JSON.stringify(webhook.body)).toBe(201);
  expect((await app.api('PATCH', apiPaths.project(1, 5), { site_notes: 'Ladder access on the east side.' })).status).toBe(200);
  await receiver.waitForCalls(1, 30_000);

  await openApp(page, app);
  await expect(page.getByTestId('project-count')).toHaveText('48 projects');
  await checkView(page, 'projects-list');

  await openProject(page, 'SD-2026-0005');
  await page.getByRole('searchbox', { name: 'Search projects' }).fill('');
  await expect(page.getByTestId('project-count')).toHaveText('48 projects');
  const panel = page.getByTestId('project-panel');
  await expect(panel.getByRole('heading', { level: 1 })).toHaveText(LONG_TITLE);
  await checkView(page, 'project-details');
  for (const tab of ['Contacts', 'Notes', 'Files', 'Design'] as const) {
    await panel.getByRole('tab', { name: tab }).click();
    if (tab === 'Files') await expect(page.getByTestId('file-row')).toHaveCount(5);
    if (tab === 'Design') await expect(panel.locator('.roof-scene canvas, .plan-notice, .roof-scene-failed').first()).toBeVisible({ timeout: 30_000 });
    await checkView(page, `project-${tab.toLowerCase()}`, tab === 'Design' ? () => page.waitForTimeout(300) : undefined); // the canvas redraws at its new size
  }
  await panel.getByRole('tab', { name: 'Details' }).click();

  await page.getByRole('button', { name: 'Contacts', exact: true }).click();
  await expect(page.getByTestId('contacts-row').first()).toBeVisible();
  await checkView(page, 'contacts');

  // Nothing booked yet: the Schedule says how to book (entries are checked once signed in, below).
  await page.getByRole('button', { name: 'Schedule', exact: true }).click();
  await expect(page.getByTestId('schedule-empty')).toBeVisible();
  await checkView(page, 'schedule-empty');

  await page.getByRole('button', { name: 'Webhooks', exact: true }).click();
  await expect(page.getByTestId('webhook-item')).toHaveCount(1);
  await checkView(page, 'webhooks-list');
  await page.getByTestId('webhook-item').getByRole('button').first().click();
  await expect(page.getByTestId('delivery-row').first()).toContainText('Delivered');
  await checkView(page, 'webhook-editor-and-log');
  await page.getByRole('button', { name: 'New webhook' }).click();
  await expect(page.getByTestId('webhook-editor')).toBeVisible();
  await checkView(page, 'webhook-new');

  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await expect(page.getByTestId('settings-view')).toBeVisible();
  await checkView(page, 'settings');

  await page.getByRole('button', { name: 'Sync', exact: true }).click();
  await expect(page.getByTestId('local-only')).toBeVisible();
  await checkView(page, 'sync-sign-in');

  // Signed in: the status, a change waiting for the network, and a conflict.
  await page.getByLabel('Remote URL').fill(remote.url);
  await page.getByLabel('Username').fill('admin@sunrise.example');
  await page.getByLabel('Password').fill('solardesk-demo');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('sync-pill')).toHaveText(/Synced/, { timeout: 60_000 });
  // What was done before signing in (the long title, the five files, the webhook) is offered in a dialog:
  // it must fit every window, its list scrolling inside and its buttons in sight; deciding later closes it.
  const localWork = page.getByTestId('local-work-dialog');
  await expect(localWork.getByTestId('local-work-item')).toHaveCount(7, { timeout: 60_000 });
  await checkView(page, 'local-work-dialog');
  await localWork.getByRole('button', { name: 'Decide later' }).click();
  await expect(localWork).toHaveCount(0);
  await page.getByRole('button', { name: 'Projects', exact: true }).click();
  await expect(page.getByTestId('project-count')).toHaveText('48 projects', { timeout: 60_000 });
  remote.proxy.setOffline(true);
  await openProject(page, 'SD-2026-0020');
  await panel.getByLabel('Notes', { exact: true }).fill('Notes written on this laptop.');
  await expect(page.getByTestId('save-indicator')).toHaveText('All changes saved');
  expect((await remote.api('PATCH', apiPaths.project(1, 20), { notes: 'Notes written in the office.' })).status).toBe(200);
  remote.proxy.setOffline(false);
  await page.getByRole('button', { name: 'Sync', exact: true }).click();
  await expect(page.getByTestId('conflict').first()).toBeVisible({ timeout: 60_000 });
  remote.proxy.setOffline(true);
  await page.getByRole('button', { name: 'Projects', exact: true }).click();
  await openProject(page, 'SD-2026-0025');
  await panel.getByLabel('Title', { exact: true }).fill('Edited in the van, while the network was down on the highway');
  await expect(page.getByTestId('save-indicator')).toHaveText('All changes saved');
  await page.getByRole('button', { name: 'Sync', exact: true }).click();
  await expect(page.getByTestId('pending-changes')).toContainText('Title');
  await checkView(page, 'sync-pending-and-conflict');

  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  // Signed in, the user is named as on the remote, not by the email they signed in with.
  await expect(page.getByText('Working on Sunrise Solar as Alex Morgan (admin@sunrise.example).')).toBeVisible();
  await expect(page.getByTestId('sidebar-user')).toContainText('Alex Morgan');
  await checkView(page, 'settings-signed-in');
  await page.getByRole('button', { name: 'Projects', exact: true }).click();
  await checkView(page, 'projects-signed-in');

  // The Schedule with a visit to the project with the long title, tomorrow, with three people: the agenda and the week.
  const roles = (await app.api<{ url: string }[]>('GET', apiPaths.roles(1), undefined, { limit: 3 })).body;
  const tomorrow = new Date();
  tomorrow.setDate(tomorrow.getDate() + 1);
  tomorrow.setHours(9, 0, 0, 0);
  const visit = await app.api('POST', apiPaths.events(1), {
    project: apiPaths.project(1, 5),
    title: `Installation: ${LONG_TITLE}`,
    event_type_id: 40,
    start: tomorrow.toISOString(),
    end: new Date(tomorrow.getTime() + 8 * 3600_000).toISOString(),
    team_members: roles.map((role) => role.url),
  });
  expect(visit.status, JSON.stringify(visit.body)).toBe(201);
  await page.getByRole('button', { name: 'Schedule', exact: true }).click();
  await expect(page.getByTestId('schedule-entry')).toHaveCount(1);
  await checkView(page, 'schedule-agenda');
  await page.getByRole('button', { name: 'Week', exact: true }).click();
  if (tomorrow.getDay() === 1) await page.getByRole('button', { name: 'Next week' }).click();
  await expect(page.getByTestId('schedule-entry')).toHaveCount(1);
  await checkView(page, 'schedule-week');
  remote.proxy.setOffline(false);

  expect(found, found.join('\n')).toEqual([]);
  expect(pageProblems(page)).toEqual([]);
});

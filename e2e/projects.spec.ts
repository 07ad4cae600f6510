// Browse, search, filter and move through the demo projects with the keyboard.
import { expect, test } from '@playwright/test';
import { openApp, pageProblems, type RunningApp, screenshotBothThemes, startSolarDesk } from './support/solardesk.ts';
import { STATE_HANG_GUARD_MS } from '../main/testing/hang-guards.ts';

let app: RunningApp;
test.beforeAll(async () => {
  app = await startSolarDesk();
});
test.afterAll(async () => app.stop());

test('the demo projects are listed, searched by title, contact and identifier, and filtered by stage', async ({ page }) => {
  await openApp(page, app);
  await expect(page.getByTestId('project-count')).toHaveText('48 projects');
  const rows = page.getByTestId('project-row');
  await expect(rows.first()).toBeVisible();
  await screenshotBothThemes(page, 'projects-list');

  const search = page.getByRole('searchbox', { name: 'Search projects' });
  // A contact's family name: every row left has a contact of that name.
  await search.fill('Taylor');
  await expect.poll(async () => (await page.getByTestId('project-count').textContent())?.trim()).not.toBe('48 projects');
  const count = await rows.count();
  expect(count).toBeGreaterThan(0);
  for (let index = 0; index < count; index++) await expect(rows.nth(index)).toContainText('Taylor');

  await search.fill('SD-2026-0025');
  await expect(page.getByTestId('project-count')).toHaveText('1 project');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText('137 Park Street');

  await search.fill('no such project anywhere');
  await expect(page.getByText('No project matches “no such project anywhere”')).toBeVisible();
  await search.fill('');
  await expect(page.getByTestId('project-count')).toHaveText('48 projects');

  // Stage filter: only rows at "Proposal sent" remain, and the engine agrees on how many.
  await page.getByRole('combobox', { name: 'Filter by stage' }).selectOption({ label: 'Proposal sent' });
  const atStage = await app.api<unknown[]>('GET', '/api/orgs/1/projects/', undefined, { active_stage_id: 3, limit: 1000 });
  await expect(page.getByTestId('project-count')).toHaveText(`${atStage.body.length} projects`);
  for (let index = 0; index < Math.min(await rows.count(), 8); index++) await expect(rows.nth(index)).toContainText('Proposal sent');
  await page.getByRole('combobox', { name: 'Filter by stage' }).selectOption({ label: 'All stages' });

  await page.getByRole('combobox', { name: 'Sort projects' }).selectOption({ label: 'Title A–Z' });
  await expect(page.getByTestId('project-count')).toHaveText('48 projects');
  // The count reads 48 before and after the sort, so it cannot say the new order is on screen: retry until it is.
  await expect(async () => {
    const titles = await rows.locator('.row-title').allTextContents();
    expect(titles.slice(0, 6)).toEqual([...titles.slice(0, 6)].sort((a, b) => a.localeCompare(b, 'en', { sensitivity: 'base' })));
  }).toPass({ timeout: STATE_HANG_GUARD_MS });
  expect(pageProblems(page)).toEqual([]);
});

test('the keyboard moves through the list and opens a project', async ({ page }) => {
  await openApp(page, app);
  await expect(page.getByTestId('project-row').first()).toBeVisible();
  await page.keyboard.press('/');
  await expect(page.getByRole('searchbox', { name: 'Search projects' })).toBeFocused();
  await page.keyboard.press('ArrowDown'); // from the search box into the list, on its first row (issue 28, item 13)
  await expect(page.getByTestId('project-list')).toBeFocused();
  const highlighted = page.locator('[data-testid="project-row"][aria-selected="true"]');
  await expect(highlighted).toHaveCount(1);
  expect(await highlighted.locator('.row-title').textContent()).toBe(await page.getByTestId('project-row').nth(0).locator('.row-title').textContent());
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await expect(highlighted).toHaveCount(1);
  const title = (await highlighted.locator('.row-title').textContent())!;
  expect(await page.getByTestId('project-row').nth(2).locator('.row-title').textContent()).toBe(title);
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('project-panel').getByRole('heading', { level: 1 })).toHaveText(title);
  await page.keyboard.press('End');
  await expect(page.locator('[data-testid="project-row"][aria-selected="true"]')).toBeVisible();
  expect(pageProblems(page)).toEqual([]);
});

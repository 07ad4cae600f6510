// Keyboard paths and pointer gestures a new installer tried (issue 28, items 12 to 14):
// "/", a few letters, ↓ and Enter open a project; Tab reaches every Files-tab action;
// a double-click opens the file clicked (the selection bar the first click brings
// must not move the rows under the pointer); Escape closes the delete question.
// Real solardesk web, its engine on the demo data, real Chromium.
import { expect, test, type Page } from '@playwright/test';
import { apiPaths } from '../shared/api-paths.ts';
import { openApp, openProjectByIdentifier, pageProblems, type RunningApp, startSolarDesk } from './support/solardesk.ts';

let app: RunningApp;
test.beforeAll(async () => {
  app = await startSolarDesk();
});
test.afterAll(async () => app.stop());

async function demoProject(id: number): Promise<{ id: number; identifier: string; title: string }> {
  const answer = await app.api<{ id: number; identifier: string; title: string }>('GET', apiPaths.project(1, id));
  expect(answer.status).toBe(200);
  return answer.body;
}

/** Presses Tab until `target` has the focus (at most `limit` presses); fails if it never does. */
async function tabTo(page: Page, target: ReturnType<Page['getByRole']>, limit = 40): Promise<void> {
  for (let presses = 0; presses < limit; presses++) {
    if (await target.evaluate((element) => element === document.activeElement)) return;
    await page.keyboard.press('Tab');
  }
  await expect(target).toBeFocused();
}

test('"/", a word, ↓ and Enter open the project found', async ({ page }) => {
  await openApp(page, app);
  const project = await demoProject(3);
  await page.keyboard.press('/');
  await expect(page.getByRole('searchbox', { name: 'Search projects' })).toBeFocused();
  await page.keyboard.type(project.identifier);
  await expect(page.getByTestId('project-count')).toHaveText('1 project');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('project-panel')).toContainText(project.identifier);
  expect(pageProblems(page)).toEqual([]);
});

test('a double-click opens the file clicked, and Tab reaches the Files tab actions', async ({ page }) => {
  await openApp(page, app);
  const project = await demoProject(1);
  await openProjectByIdentifier(page, project.identifier);
  await page.getByRole('tab', { name: 'Files' }).click();
  const titles = page.locator('.file-title');
  await expect(titles).not.toHaveCount(0);
  const names = await titles.allTextContents();
  expect(names.length).toBeGreaterThanOrEqual(3);
  const viewer = page.getByTestId('file-viewer');
  // Every row, first and last included: the viewer names the file that was double-clicked.
  for (const [index, name] of names.entries()) {
    await titles.nth(index).dblclick();
    await expect(viewer).toBeVisible();
    await expect(viewer).toHaveAttribute('aria-label', `Viewing ${name}`);
    await page.keyboard.press('Escape');
    await expect(viewer).toBeHidden();
  }
  // The selection bar is there now (the last row is selected), and the rows did not move for it.
  await expect(page.getByTestId('file-selection-bar')).toBeVisible();

  // Choose files… and Open project folder are reached with Tab from the tab strip.
  await page.getByRole('tab', { name: 'Files' }).focus();
  await tabTo(page, page.getByRole('button', { name: 'Choose files…' }));
  await tabTo(page, page.getByRole('button', { name: 'Open project folder' }));
  // Enter on Choose files… opens the system's file picker.
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Choose files…' }).focus();
  await page.keyboard.press('Enter');
  expect((await chooser).isMultiple()).toBe(true);

  // Escape closes the delete question and deletes nothing.
  await page.getByTestId('file-selection-bar').getByRole('button', { name: 'Delete' }).click();
  const question = page.getByTestId('delete-files-dialog');
  await expect(question).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(question).toBeHidden();
  await expect(titles).toHaveCount(names.length);
  expect(pageProblems(page)).toEqual([]);
});

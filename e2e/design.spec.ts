// The design tab: a 3D view that is really drawn (checked by its pixels), the
// system specs, and the cash-flow chart; and the plan notice for API Access orgs.
import { expect, test, type Page } from '@playwright/test';
import { openApp, openProjectByIdentifier, pageProblems, type RunningApp, screenshotBothThemes, startSolarDesk } from './support/solardesk.ts';

let app: RunningApp;
test.beforeAll(async () => {
  app = await startSolarDesk();
});
test.afterAll(async () => app.stop());

/** How many distinct colours the WebGL canvas holds (sampled on a grid), read back through a 2D canvas. */
async function distinctCanvasColours(page: Page): Promise<number> {
  return page.getByTestId('roof-canvas').evaluate((canvas: HTMLCanvasElement) => {
    const copy = document.createElement('canvas');
    copy.width = canvas.width;
    copy.height = canvas.height;
    const context = copy.getContext('2d')!;
    context.drawImage(canvas, 0, 0);
    const { data } = context.getImageData(0, 0, copy.width, copy.height);
    const colours = new Set<string>();
    for (let y = 0; y < copy.height; y += 7) {
      for (let x = 0; x < copy.width; x += 7) {
        const offset = (y * copy.width + x) * 4;
        colours.add(`${data[offset]},${data[offset + 1]},${data[offset + 2]}`);
      }
    }
    return colours.size;
  });
}

test('a design shows a drawn 3D roof, the systems and the cash flows', async ({ page }) => {
  await openApp(page, app);
  await openProjectByIdentifier(page, 'SD-2026-0025');
  await page.getByRole('tab', { name: 'Design' }).click();
  const design = page.getByTestId('design-tab');
  await expect(design).toBeVisible();
  await expect(page.getByTestId('roof-canvas')).toBeVisible();

  // Sky, ground, roof, walls and panels: a drawn scene has many colours; a blank or failed canvas has one.
  await expect.poll(() => distinctCanvasColours(page)).toBeGreaterThan(20);
  await expect(design.getByRole('heading', { name: 'Modules' })).toBeVisible();
  await expect(design.getByRole('heading', { name: 'Inverters' })).toBeVisible();
  await expect(design.getByRole('heading', { name: 'Pricing' })).toBeVisible();
  await expect(page.getByTestId('cashflow-chart').locator('canvas')).toBeVisible();
  await expect(page.getByTestId('payback-year')).toHaveText(/Year \d+|Not within 25 years/);

  // Orbiting redraws the scene (the canvas renders on demand).
  const before = await page.getByTestId('roof-canvas').screenshot();
  const box = (await page.getByTestId('roof-canvas').boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2 + 120, box.y + box.height / 2, { steps: 8 });
  await page.mouse.up();
  expect((await page.getByTestId('roof-canvas').screenshot()).equals(before)).toBe(false);

  // The other system draws its own panels.
  const systems = design.getByRole('tablist', { name: 'Systems' }).getByRole('tab');
  if ((await systems.count()) > 1) {
    await systems.nth(1).click();
    await expect(systems.nth(1)).toHaveAttribute('aria-selected', 'true');
    await expect.poll(() => distinctCanvasColours(page)).toBeGreaterThan(20);
  }
  await screenshotBothThemes(page, 'project-design');
  await page.getByTestId('cashflow-chart').scrollIntoViewIfNeeded();
  await screenshotBothThemes(page, 'project-design-cashflow');
  expect(pageProblems(page)).toEqual([]);
});

test('an org on the API Access plan is told why there is no design', async ({ page }) => {
  await openApp(page, app);
  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByRole('combobox', { name: 'Organisation' }).selectOption({ label: 'Basic Solar' });
  await expect(page.getByRole('navigation', { name: 'SolarDesk' })).toContainText('Basic Solar');
  await page.getByRole('button', { name: 'Projects' }).click();
  await expect(page.getByTestId('project-count')).toHaveText('8 projects');
  await page.getByTestId('project-row').first().click();
  await page.getByRole('tab', { name: 'Design' }).click();
  await expect(page.getByTestId('plan-notice')).toContainText('Design data needs the Raw Data API Access plan');
  await expect(page.getByTestId('plan-notice')).toContainText('API Access');
  await screenshotBothThemes(page, 'design-plan-notice');
  // Back to Sunrise Solar for the other tests of this file.
  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByRole('combobox', { name: 'Organisation' }).selectOption({ label: 'Sunrise Solar' });
  await expect(page.getByRole('navigation', { name: 'SolarDesk' })).toContainText('Sunrise Solar');
  expect(pageProblems(page)).toEqual([]);
});

// The project's stage picker offers every workflow's stages, grouped by workflow:
// choosing a stage of another workflow moves the project to that workflow
// (workflow.workflow_id and active_stage_id, service.md 3), and archived stages
// and workflows are not offered (docs/http-api.md "Workflows").
import { expect, test } from '@playwright/test';
import { apiPaths } from '../shared/api-paths.ts';
import { openApp, openProjectByIdentifier, pageProblems, type RunningApp, SCREEN_SIZES, screenshotBothThemes, startSolarDesk } from './support/solardesk.ts';

let app: RunningApp;
test.beforeAll(async () => {
  app = await startSolarDesk();
});
test.afterAll(async () => app.stop());

interface Stage {
  id: number;
  title: string;
  milestone: number;
  order: number;
  is_archived: boolean;
  actions: Array<{ id: number; title: string }>;
}
interface Workflow {
  id: number;
  title: string;
  workflow_stages: Stage[];
}
interface Project {
  stage: number;
  workflow: { workflow_id: number; active_stage_id: number };
}

test('a stage of another workflow is chosen from the picker and saved', async ({ page }) => {
  // Made through the local API before the app opens (the org's workflows load with it).
  const commercial = (await app.api<Workflow>('POST', apiPaths.workflows(1), { title: 'Commercial', description: 'Larger roofs' })).body;
  const stages = commercial.workflow_stages.map((stage) => ({ id: stage.id, title: stage.title, milestone: stage.milestone, is_archived: stage.title === 'On hold' }));
  expect((await app.api('PUT', apiPaths.workflow(1, commercial.id), { title: 'Commercial', workflow_stages: stages })).status).toBe(200);
  const retired = (await app.api<Workflow>('POST', apiPaths.workflows(1), { title: 'Retired workflow' })).body;
  const retiredStages = retired.workflow_stages.map((stage) => ({ id: stage.id, title: stage.title, milestone: stage.milestone }));
  expect((await app.api('PUT', apiPaths.workflow(1, retired.id), { title: 'Retired workflow', is_archived: true, workflow_stages: retiredStages })).status).toBe(200);

  await openApp(page, app);
  await openProjectByIdentifier(page, 'SD-2026-0012');
  const panel = page.getByTestId('project-panel');
  const picker = panel.getByRole('combobox', { name: 'Stage' });
  await expect(picker.locator('optgroup')).toHaveCount(2);
  await expect(picker.locator('optgroup').nth(0)).toHaveAttribute('label', 'Residential solar');
  await expect(picker.locator('optgroup').nth(1)).toHaveAttribute('label', 'Commercial');
  await expect(picker.locator('optgroup[label="Commercial"] option')).toHaveText(['1. Lead', '2. Qualified', '3. Proposal sent', '4. Pricing locked', '5. Sold', '6. Installed', '7. Complete']);

  const sold = commercial.workflow_stages.find((stage) => stage.title === 'Sold')!;
  await picker.selectOption({ label: '5. Sold' });
  await expect.poll(async () => (await app.api<Project>('GET', apiPaths.project(1, 12))).body.workflow).toEqual(expect.objectContaining({ workflow_id: commercial.id, active_stage_id: sold.id }));
  expect((await app.api<Project>('GET', apiPaths.project(1, 12))).body.stage).toBe(2);
  await expect(page.getByTestId('save-indicator')).toHaveText('All changes saved');
  await expect(picker).toHaveValue(String(sold.id));
  await expect(panel.locator('.stage-picker')).toContainText('Stage · Commercial');
  // The list row's badge names the new stage.
  await expect(page.getByTestId('project-row').first()).toContainText('Sold');

  for (const size of SCREEN_SIZES) {
    await page.setViewportSize(size);
    await screenshotBothThemes(page, `workflow-stage-picker-${size.width}x${size.height}`);
  }
  // The list's stage filter groups the same way.
  const filter = page.getByRole('combobox', { name: 'Filter by stage' });
  await expect(filter.locator('optgroup[label="Commercial"] option')).toHaveCount(7);
  await expect(filter.locator('optgroup[label="Retired workflow"]')).toHaveCount(0);

  // A workflow made elsewhere while the window is open (as sync brings one): a project
  // moved to one of its stages makes the window read the workflows again.
  const service = (await app.api<Workflow>('POST', apiPaths.workflows(1), { title: 'Service calls' })).body;
  const qualified = service.workflow_stages.find((stage) => stage.title === 'Qualified')!;
  const moved = await app.api('PATCH', apiPaths.project(1, 12), { workflow: { workflow_id: service.id, active_stage_id: qualified.id } });
  expect(moved.status).toBe(200);
  await expect(page.getByTestId('project-row').first()).toContainText('Qualified');
  await expect(picker.locator('optgroup[label="Service calls"]')).toHaveCount(1);
  await expect(picker).toHaveValue(String(qualified.id));
  expect(pageProblems(page)).toEqual([]);
});

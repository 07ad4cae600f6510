// The schedule as an installer uses it (issue 27): a site visit booked from a project
// in two clicks (Book visit, Book) for tomorrow at 09:00 with two people shows on the
// agenda (tomorrow is always under "This week", whatever day today is) and in the week
// calendar, is marked done, downloads as .ics, and stands in the project's history (the Notes tab).
// On the embedded store with no remote; and signed in to a real `solardesk server`,
// booked and completed with the network cut (the van), it reaches the server with
// every field once the network is back, and a second computer signed in to the same
// server shows it. Only the network between the agents and the server is faked (the
// fault proxy); Chromium, the agents and the server are real.
import fs from 'node:fs';
import { expect, type Page, test } from '@playwright/test';
import { STATE_HANG_GUARD_MS } from '../main/testing/hang-guards.ts';
import { apiPaths, parseOrgReference } from '../shared/api-paths.ts';
import type { EventJson } from '../shared/schemas/event.ts';
import type { RoleJson } from '../shared/schemas/role.ts';
import { expectNoSidewaysOverflow, openApp, openProjectByIdentifier, pageProblems, type RunningApp, SCREEN_SIZES, screenshotBothThemes, startSolarDesk } from './support/solardesk.ts';
import { startRemoteServer, submitSignIn, type RemoteServer } from './support/remote-server.ts';

interface Project {
  id: number;
  url: string;
  title: string;
  identifier: string;
  address: string;
  assigned_role: string | null;
  contacts_data: { id: number; url: string; phone: string; display: string }[];
}

interface Booking {
  project: Project;
  title: string;
  /** The two people who go: the project's assigned person, then another. */
  team: RoleJson[];
}

test.describe.configure({ mode: 'serial' });

/** This machine's local day after today, as the form's date box holds it (Chromium runs in the same time zone). */
function tomorrowKey(): string {
  const tomorrow = new Date();
  tomorrow.setDate(tomorrow.getDate() + 1);
  return `${tomorrow.getFullYear()}-${String(tomorrow.getMonth() + 1).padStart(2, '0')}-${String(tomorrow.getDate()).padStart(2, '0')}`;
}

/** The instant of a local day and time, as the API answers it. */
function localInstant(day: string, time: string): string {
  return new Date(`${day}T${time}:00`).toISOString();
}

const roleIdOf = (url: unknown) => parseOrgReference(String(url), 'roles')?.id;
const contactIdOf = (url: unknown) => parseOrgReference(String(url), 'contacts')?.id;

/** A GET of an instance's API (the local engine through the bridge, or the server). */
type Api = <T>(path: string, query?: Record<string, string | number>) => Promise<{ status: number; body: T }>;

/** Projects with an assigned person and a contact with a phone, as a booked project usually is; `index` picks one. */
async function bookableProject(api: Api, index: number): Promise<Project> {
  const rows = (await api<Project[]>(apiPaths.projects(1), { limit: 100, ordering: 'id' })).body;
  const candidates: Project[] = [];
  for (const row of rows) {
    const project = (await api<Project>(apiPaths.project(1, row.id))).body;
    if (project.assigned_role && project.contacts_data[0]?.phone) candidates.push(project);
    if (candidates.length > index) break;
  }
  expect(candidates.length, 'the demo data has projects with an assigned person and a contact with a phone').toBeGreaterThan(index);
  return candidates[index]!;
}

async function teamFor(api: Api, project: Project): Promise<RoleJson[]> {
  const roles = (await api<RoleJson[]>(apiPaths.roles(1), { limit: 1000 })).body;
  const assigned = roles.find((role) => role.id === roleIdOf(project.assigned_role))!;
  const other = roles.find((role) => role.id !== assigned.id && !role.is_hidden && role.display !== assigned.display)!;
  return [assigned, other];
}

async function showSchedule(page: Page): Promise<void> {
  await page.getByRole('navigation', { name: 'SolarDesk' }).getByRole('button', { name: 'Schedule', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Schedule', level: 2 })).toBeVisible();
}

/**
 * Books the site visit from the project: "Book visit", the form already filled
 * (tomorrow, 09:00 to 10:00, the project's contact, its assigned person), the second
 * person ticked, "Book". `screenshots`: the form's name in test-results, if wanted.
 */
async function bookSiteVisit(page: Page, booking: Booking, screenshots?: string): Promise<void> {
  await openProjectByIdentifier(page, booking.project.identifier);
  await page.getByTestId('project-panel').getByRole('button', { name: 'Book visit' }).click();
  const form = page.getByTestId('book-visit');
  await expect(form.getByRole('radio', { name: 'Site visit' })).toHaveAttribute('aria-checked', 'true');
  await expect(form.getByLabel('Day', { exact: true })).toHaveValue(tomorrowKey());
  await expect(form.getByLabel('From', { exact: true })).toHaveValue('09:00');
  await expect(form.getByLabel('To', { exact: true })).toHaveValue('10:00');
  // By id: this computer names the contact by its own URL.
  expect(contactIdOf(await form.getByLabel('Contact', { exact: true }).inputValue())).toBe(booking.project.contacts_data[0]!.id);
  const teamBox = (role: RoleJson) => form.locator('label.check-row', { hasText: role.display }).getByRole('checkbox');
  await expect(teamBox(booking.team[0]!)).toBeChecked();
  await expect(teamBox(booking.team[1]!)).not.toBeChecked();
  await teamBox(booking.team[1]!).check();
  await form.getByLabel('Title', { exact: true }).fill(booking.title);
  if (screenshots) await screenshotBothThemes(page, screenshots);
  await form.getByRole('button', { name: 'Book', exact: true }).click();
  await expect(form).toHaveCount(0);
}

/** The entry's card in the agenda, under "This week" (tomorrow is always there). */
function agendaEntry(page: Page, title: string) {
  return page.getByTestId('agenda-week').getByTestId('schedule-entry').filter({ hasText: title });
}

/** Shows the week calendar at tomorrow's week (the next one when today is a Sunday) and answers tomorrow's column. */
async function tomorrowInWeek(page: Page) {
  await page.getByRole('group', { name: 'Show the schedule as' }).getByRole('button', { name: 'Week' }).click();
  // Tomorrow is a Monday: its week is the next one.
  if (new Date(`${tomorrowKey()}T12:00`).getDay() === 1) await page.getByRole('button', { name: 'Next week' }).click();
  return page.locator(`[data-testid="week-day"][data-day="${tomorrowKey()}"]`);
}

/** Every field the booking wrote, as an instance (the local engine or the server) answers it. */
function expectEveryField(event: EventJson, booking: Booking, { isComplete }: { isComplete: boolean }): void {
  const day = tomorrowKey();
  expect(event.title).toBe(booking.title);
  expect(event.event_type_id).toBe(42);
  expect(event.start).toBe(localInstant(day, '09:00'));
  expect(event.end).toBe(localInstant(day, '10:00'));
  expect(event.duration).toBe('01:00:00');
  expect(event.is_complete).toBe(isComplete);
  if (isComplete) expect(Date.parse(event.completion_date ?? '')).not.toBeNaN();
  else expect(event.completion_date).toBeNull();
  expect(contactIdOf(event.contact)).toBe(booking.project.contacts_data[0]!.id);
  expect(event.team_members.map(roleIdOf)).toEqual(booking.team.map((role) => role.id));
  expect(event.is_archived).toBe(false);
  expect(event.location_override).toBeNull();
  expect(event.task_status).toBeNull();
  expect(event.repeat).toBeNull();
}

async function eventsOf(api: Api, projectId: number, title: string): Promise<EventJson[]> {
  const events = (await api<EventJson[]>(apiPaths.events(1), { project: projectId, limit: 1000 })).body;
  return events.filter((event) => event.title === title);
}

test.describe('on this computer only (the embedded store, no remote)', () => {
  let app: RunningApp;
  test.beforeAll(async () => {
    app = await startSolarDesk();
  });
  test.afterAll(async () => {
    await app.stop();
  });
  const api: Api = (path, query) => app.api('GET', path, undefined, query);

  test('a site visit booked from a project for tomorrow at 09:00 with two people is on the agenda and the week, is marked done, downloads as .ics and is in the project activity', async ({ page }) => {
    await page.setViewportSize(SCREEN_SIZES[0]);
    await openApp(page, app);
    const project = await bookableProject(api, 0);
    const booking: Booking = { project, title: 'Site visit: measure the roof', team: await teamFor(api, project) };

    // Before anything is booked, the screen says how to book.
    await showSchedule(page);
    await expect(page.getByTestId('schedule-empty')).toContainText('choose Book visit');
    await screenshotBothThemes(page, 'schedule-empty-800x600');

    // A time that cannot be is shown at its box (shared/field-rules.ts) and never sent.
    await page.getByRole('navigation', { name: 'SolarDesk' }).getByRole('button', { name: 'Projects', exact: true }).click();
    await openProjectByIdentifier(page, project.identifier);
    await page.getByTestId('project-panel').getByRole('button', { name: 'Book visit' }).click();
    const form = page.getByTestId('book-visit');
    await form.getByLabel('To', { exact: true }).fill('08:00');
    await expect(form.locator('.field.has-error')).toContainText('The end cannot be before the start');
    await expect(form.getByRole('button', { name: 'Book', exact: true })).toBeDisabled();
    await screenshotBothThemes(page, 'schedule-book-refused-800x600');
    await form.getByRole('button', { name: 'Cancel' }).click();
    expect(await eventsOf(api, project.id, booking.title)).toEqual([]);

    await bookSiteVisit(page, booking, 'schedule-book-800x600');
    const [created] = await eventsOf(api, project.id, booking.title);
    expect(created).toBeDefined();
    expectEveryField(created!, booking, { isComplete: false });

    // Tomorrow, on the agenda: kind, time, project, address, phone (a tel: link), who goes.
    await showSchedule(page);
    const entry = agendaEntry(page, booking.title);
    await expect(entry).toHaveCount(1);
    await expect(entry).toContainText('9:00');
    await expect(entry).toContainText('On-site sales visit');
    await expect(entry.getByRole('button', { name: project.title })).toBeVisible();
    if (project.address) await expect(entry).toContainText(project.address);
    const phone = project.contacts_data[0]!.phone;
    await expect(entry.getByRole('link', { name: phone })).toHaveAttribute('href', `tel:${phone.replace(/[^\d+]/g, '')}`);
    for (const role of booking.team) await expect(entry.getByTestId('schedule-entry-team')).toContainText(role.display);
    for (const size of SCREEN_SIZES) {
      await page.setViewportSize(size);
      await expectNoSidewaysOverflow(page, { pane: 'main', part: '.schedule-view' });
      await screenshotBothThemes(page, `schedule-agenda-${size.width}x${size.height}`);
    }

    // In the week calendar, in tomorrow's column.
    const day = await tomorrowInWeek(page);
    await expect(day.getByTestId('schedule-entry').filter({ hasText: booking.title })).toBeVisible();
    for (const size of SCREEN_SIZES) {
      await page.setViewportSize(size);
      await expectNoSidewaysOverflow(page, { pane: 'main', part: '.schedule-view' });
      await screenshotBothThemes(page, `schedule-week-${size.width}x${size.height}`);
    }

    // Done: the switch completes it, and the engine stamps when.
    await day.getByRole('switch', { name: `Done: ${booking.title}` }).check();
    await expect(day.getByTestId('schedule-entry').filter({ hasText: booking.title })).toContainText(/Done \w/);
    await expect.poll(async () => (await eventsOf(api, project.id, booking.title))[0]?.is_complete).toBe(true);
    expectEveryField((await eventsOf(api, project.id, booking.title))[0]!, booking, { isComplete: true });

    // Download .ics: the engine's file, named for the visit.
    const download = page.waitForEvent('download');
    await day.getByTestId('schedule-entry').filter({ hasText: booking.title }).getByRole('button', { name: 'Download .ics' }).click();
    const saved = await download;
    expect(saved.suggestedFilename()).toMatch(/\.ics$/);
    const text = fs.readFileSync((await saved.path())!, 'utf8');
    expect(text).toContain('BEGIN:VEVENT');
    expect(text).toContain('Site visit');

    // The project's history (Notes tab): the visit with its time, kind, people and done, among the notes.
    await page.setViewportSize(SCREEN_SIZES[0]);
    await day.getByRole('button', { name: project.title }).first().click();
    const panel = page.getByTestId('project-panel');
    await expect(panel.getByRole('tab', { name: 'Notes' })).toHaveAttribute('aria-selected', 'true');
    const activity = panel.getByTestId('activity-entry').filter({ hasText: booking.title });
    await expect(activity).toContainText('On-site sales visit');
    await expect(activity).toContainText('9:00');
    for (const role of booking.team) await expect(activity).toContainText(role.display);
    await expect(activity).toContainText(/Done \w/);
    await activity.scrollIntoViewIfNeeded();
    await screenshotBothThemes(page, 'schedule-project-activity-800x600');
    expect(pageProblems(page)).toEqual([]);
  });
});

test.describe('signed in to a server', () => {
  let remote: RemoteServer;
  let laptop: RunningApp;
  let office: RunningApp;
  test.beforeAll(async () => {
    // Three programs start one after the other (a changed renderer is built by the first only): the hang guard (playwright.config.ts) allows for it.
    remote = await startRemoteServer();
    // A short sync interval, so a test waits seconds, not the default half minute, for the agent to notice the network.
    laptop = await startSolarDesk({ extraArgs: ['--sync-interval', '2'] });
    office = await startSolarDesk({ extraArgs: ['--sync-interval', '2'] });
  });
  test.afterAll(async () => {
    await Promise.all([laptop?.stop(), office?.stop()]);
    await remote?.stop();
  });
  const serverApi: Api = (path, query) => remote.api('GET', query ? `${path}?${new URLSearchParams(Object.entries(query).map(([key, value]) => [key, String(value)]))}` : path);

  async function signIn(page: Page, app: RunningApp): Promise<void> {
    await openApp(page, app);
    await page.getByRole('button', { name: 'Sync', exact: true }).click();
    await submitSignIn(page, remote);
    await expect(page.getByTestId('sync-pill')).toHaveText(/Synced/, { timeout: STATE_HANG_GUARD_MS });
    await page.getByRole('button', { name: 'Projects', exact: true }).click();
    await expect(page.getByTestId('project-count')).toHaveText('48 projects', { timeout: STATE_HANG_GUARD_MS });
  }

  test('a visit booked and done with no network reaches the server with every field, and a second computer shows it', async ({ page, browser }) => {
    await page.setViewportSize(SCREEN_SIZES[1]);
    await signIn(page, laptop);
    const project = await bookableProject(serverApi, 1);
    const booking: Booking = { project, title: 'Site visit booked in the van', team: await teamFor(serverApi, project) };

    // In the van: no network. The booking and its Done are made on this computer.
    remote.proxy.setOffline(true);
    await bookSiteVisit(page, booking);
    await showSchedule(page);
    const entry = agendaEntry(page, booking.title);
    await entry.getByRole('switch', { name: `Done: ${booking.title}` }).check();
    await expect(entry).toContainText(/Done \w/);
    await expect(page.getByTestId('sync-pill')).toHaveText(/Offline/, { timeout: STATE_HANG_GUARD_MS });
    expect(await eventsOf(serverApi, project.id, booking.title)).toEqual([]);

    // Back in signal: it arrives once, with every field.
    remote.proxy.setOffline(false);
    await expect.poll(async () => (await eventsOf(serverApi, project.id, booking.title)).map((event) => event.is_complete), { timeout: STATE_HANG_GUARD_MS }).toEqual([true]);
    expectEveryField((await eventsOf(serverApi, project.id, booking.title))[0]!, booking, { isComplete: true });
    await expect(page.getByTestId('sync-pill')).toHaveText('Synced', { timeout: STATE_HANG_GUARD_MS });

    // The office computer, signed in to the same server, has it on its schedule too.
    const officePage = await browser.newPage({ viewport: SCREEN_SIZES[0] });
    await signIn(officePage, office);
    await showSchedule(officePage);
    const seen = agendaEntry(officePage, booking.title);
    await expect(seen).toHaveCount(1, { timeout: STATE_HANG_GUARD_MS });
    await expect(seen).toContainText(/Done \w/);
    for (const role of booking.team) await expect(seen.getByTestId('schedule-entry-team')).toContainText(role.display);
    await expect(seen.getByRole('link', { name: project.contacts_data[0]!.phone })).toBeVisible();
    await screenshotBothThemes(officePage, 'schedule-second-computer-800x600');
    expect(pageProblems(officePage)).toEqual([]);
    await officePage.close();
    expect(pageProblems(page)).toEqual([]);
  });
});

// The Activity screen's store against the real core (renderer/tests/core-bridge.ts):
// an entry recorded while the list is loading is on screen once the list lands, and
// what changed while no events were heard (the page's event stream down) is on screen
// once it connects again (view-refresh.ts). Entries come from the real folder watcher
// (a file dropped into a project's folder on the embedded store); only when the list's
// answer reaches the store, and when the stream is "down", are controlled.
import './core-bridge.ts';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { holdNextAnswer, startTestCore, waitFor, type TestCore } from './core-bridge.ts';
import { useActivityStore } from '../src/stores/activity-store.ts';
import { useProjectsStore } from '../src/stores/projects-store.ts';
import { refreshEveryView } from '../src/stores/view-refresh.ts';
import { apiPaths } from '../../shared/api-paths.ts';
import type { ActivityEntry } from '../../shared/activity.ts';
import type { SessionInfo } from '../../shared/bridge.ts';

const EVERYTHING = { search: '', kinds: [], projectId: null };

describe('the activity store', () => {
  let app: TestCore;
  let projectFolder: string;
  let stopFollowing: () => void;
  before(async () => {
    app = await startTestCore();
    stopFollowing = useActivityStore.getState().follow();
    const session = await app.core.invoke('session.get', undefined);
    assert.ok(session.ok);
    const root = (session.response as SessionInfo).projectFoldersRoot;
    const folderName = () => (fs.existsSync(root) ? fs.readdirSync(root).find((name) => / \(\d+\)$/.test(name)) : undefined);
    await waitFor('the watcher to make the project folders', () => folderName() !== undefined, 120_000);
    projectFolder = path.join(root, folderName()!);
  });
  after(async () => {
    stopFollowing();
    await app.close();
  });

  const store = () => useActivityStore.getState();

  test('an entry recorded while the list is loading is shown when the list lands (a CI run of issue 33 lost one)', async () => {
    // The list is read, and its answer held before the store hears it.
    const held = holdNextAnswer('activity.list');
    const loading = store().load(app.orgId, EVERYTHING);
    await held.answered;
    // Meanwhile a file is dropped into the project's folder: its entry is recorded and told.
    const heard: ActivityEntry[] = [];
    const stopHearing = app.core.events.subscribe('activity.changed', (entry) => heard.push(entry));
    fs.writeFileSync(path.join(projectFolder, 'meter-photo.txt'), 'meter 0042, read on the roof\n');
    await waitFor('the attach to be recorded and told', () => heard.some((entry) => entry.kind === 'attached' && entry.subject === 'meter-photo.txt'), 120_000);
    stopHearing();
    held.release();
    await loading;
    assert.equal(store().loadState, 'ready');
    const attached = store().entries.find((entry) => entry.kind === 'attached' && entry.subject === 'meter-photo.txt');
    assert.ok(attached, `the list shows the attach told while it loaded: ${JSON.stringify(store().entries.map((entry) => [entry.kind, entry.subject]))}`);
    // In its place: newest first.
    assert.equal(store().entries[0]!.id, attached.id);
    // A load after it agrees.
    await store().load(app.orgId, EVERYTHING);
    assert.ok(store().entries.some((entry) => entry.id === attached.id));
  });

  test('after the event stream was down, connecting again shows what changed meanwhile: the activity entry and the new project', async () => {
    await store().load(app.orgId, EVERYTHING);
    useProjectsStore.getState().start(app.orgId);
    await waitFor('the project list', () => useProjectsStore.getState().status === 'ready');
    // The stream goes down: the stores hear nothing.
    stopFollowing();
    const heard: ActivityEntry[] = [];
    const stopHearing = app.core.events.subscribe('activity.changed', (entry) => heard.push(entry));
    fs.writeFileSync(path.join(projectFolder, 'inverter-serial.txt'), 'SB5.0-1AV-41, serial 3004112233\n');
    await waitFor('the attach to be recorded', () => heard.some((entry) => entry.kind === 'attached' && entry.subject === 'inverter-serial.txt'), 120_000);
    stopHearing();
    const created = await app.core.invoke('api.request', { method: 'POST', path: apiPaths.projects(app.orgId), body: { title: 'Okafor barn roof' } });
    assert.ok(created.ok);
    const projectId = (created.response as { status: number; body: { id: number } }).body.id;
    assert.equal(store().entries.some((entry) => entry.subject === 'inverter-serial.txt'), false, 'unheard, not yet shown');
    assert.equal(useProjectsStore.getState().rows.some((row) => row.id === projectId), false, 'unheard, not yet listed');
    // The stream connects again.
    stopFollowing = useActivityStore.getState().follow();
    refreshEveryView();
    await waitFor('the entry on screen', () => store().entries.some((entry) => entry.kind === 'attached' && entry.subject === 'inverter-serial.txt'));
    await waitFor('the new project listed', () => useProjectsStore.getState().rows.some((row) => row.id === projectId));
  });
});

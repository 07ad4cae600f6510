// Field photos find their project (issue 17), through the main-process core as the
// app runs it on the embedded store: real JPEGs (sharp draws them, piexifjs writes
// GPS and time), the real watcher and inbox on real folders, the real engine over
// HTTP. Nothing is faked. The inbox: a photo within 150 m of exactly one site is
// attached and leaves Unsorted; two sites in range, none, no GPS, or not a photo: it
// waits with its candidates; a choice attaches it; Undo puts it back and deletes the
// private file. The distance check: a photo taken far from its project's site is
// flagged with the one project it matches.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { BridgeEnvelope } from '../../../shared/bridge.ts';
import type { PrivateFileJson } from '../../../shared/schemas/private-file.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { haversineMeters } from '../../../shared/geo.ts';
import { INBOX_FOLDER, type InboxState, type ProjectPhotoPlace } from '../../../shared/photos.ts';
import { type AppCore, startAppCore } from '../app-core.ts';
import { defaultSettings, fileSettingsStore } from '../host-stores.ts';
import { workspaceFolderRoot } from '../folder-session.ts';
import { makeTempDir } from '../../engine/testing/test-server.ts';
import { waitFor } from '../../watch/testing/folder-testing.ts';
import { makeJpeg, northOf } from '../testing/photo-files.ts';

const ORG = 1;

const ok = <T>(envelope: BridgeEnvelope<unknown>): T => {
  if (!envelope.ok) assert.fail(`expected ok, got ${JSON.stringify(envelope.error)}`);
  return envelope.response as T;
};

async function api<T>(core: AppCore, method: 'GET' | 'POST' | 'PATCH', apiPath: string, body?: unknown, query?: Record<string, string | number>) {
  return ok<{ status: number; body: T }>(await core.invoke('api.request', { method, path: apiPath, body, query }));
}

interface Site {
  id: number;
  title: string;
  lat: number;
  lon: number;
}

describe('field photos on the embedded store', () => {
  const dataDir = makeTempDir('solardesk-photos-');
  const folderRoot = path.join(dataDir, 'folders');
  let core: AppCore;
  let inbox: string;
  let sites: Site[];
  let home: Site;
  let twinA: Site;
  let twinB: Site;
  const changes: InboxState[] = [];

  const filesOf = async (projectId: number) => (await api<PrivateFileJson[]>(core, 'GET', apiPaths.privateFiles(ORG), undefined, { project: projectId, limit: 1000 })).body;
  /** Written beside the inbox, then moved in: how a copy from a camera card lands, complete. */
  const dropIntoInbox = (name: string, bytes: Uint8Array) => {
    const temp = path.join(dataDir, name);
    fs.writeFileSync(temp, bytes);
    fs.renameSync(temp, path.join(inbox, name));
  };

  before(async () => {
    core = await startAppCore({
      dataDir,
      settings: fileSettingsStore(path.join(dataDir, 'settings.json'), defaultSettings(folderRoot)),
      openFolder: async () => false,
      projectFolders: { stabilityWindowMs: 300, pairWindowMs: 1200, reconcileIntervalMs: 500 },
    });
    core.events.subscribe('inbox.changed', (state) => changes.push(state));
    inbox = path.join(workspaceFolderRoot('embedded', folderRoot), INBOX_FOLDER);
    sites = (await api<Site[]>(core, 'GET', apiPaths.projects(ORG), undefined, { limit: 1000, fieldset: 'studio' })).body.filter((site) => typeof site.lat === 'number' && typeof site.lon === 'number');
    assert.ok(sites.length > 3, 'the demo projects have site positions');
    // A site alone: no other within 400 m (the demo's streets are close together).
    home = sites.find((site) => sites.every((other) => other.id === site.id || haversineMeters(other, site) > 400))!;
    assert.ok(home, 'a demo site with no neighbour within 400 m');
    // Two new projects 100 m apart, far from every demo site: a photo between them is within 150 m of both.
    const far = { lat: home.lat + 2, lon: home.lon + 2 };
    assert.ok(sites.every((site) => haversineMeters(site, far) > 20_000));
    const make = async (title: string, position: { lat: number; lon: number }) => {
      const made = await api<Site>(core, 'POST', apiPaths.projects(ORG), { title, address: `1 ${title}`, lat: position.lat, lon: position.lon });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      return { ...made.body, lat: position.lat, lon: position.lon };
    };
    twinA = await make('Twin house east', far);
    twinB = await make('Twin house west', northOf(far, 100));
  });
  after(async () => {
    await core?.close();
    if (!process.env.KEEP) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('the inbox is made at the folder root, and the watcher does not take it for a project folder', async () => {
    await waitFor('the Unsorted folder', () => fs.existsSync(inbox));
    const state = ok<InboxState>(await core.invoke('inbox.list', undefined));
    assert.equal(state.folder, inbox);
    assert.deepEqual(state.waiting, []);
    assert.equal(state.problem, null);
  });

  test('a camera dump: the photos taken at one site are attached to it; the rest wait with their candidates', async () => {
    const before = (await filesOf(home.id)).length;
    dropIntoInbox('IMG_0001.jpg', await makeJpeg({ ...northOf(home, 20), takenAt: '2026-05-02T10:11:12', seed: 11 }));
    dropIntoInbox('IMG_0002.jpg', await makeJpeg({ ...northOf(home, -40), takenAt: '2026-05-02T10:12:00', seed: 12 }));
    dropIntoInbox('IMG_0003.jpg', await makeJpeg({ ...northOf(twinA, 50), seed: 13 })); // 50 m from one twin, 50 m from the other
    dropIntoInbox('IMG_0004.jpg', await makeJpeg({ ...northOf(twinA, -5000), seed: 14 })); // 5 km from the nearest site
    dropIntoInbox('IMG_0005.jpg', await makeJpeg({ seed: 15 })); // no GPS
    dropIntoInbox('meter-reading.txt', new TextEncoder().encode('meter 0042'));

    const state = await waitFor('the two photos attached', async () => {
      const listed = ok<InboxState>(await core.invoke('inbox.list', undefined));
      // Each waiting file looked at (not "Just arrived": a loaded machine reads them a pass later).
      const lookedAt = listed.waiting.every((item) => !item.why.startsWith('Just arrived'));
      return listed.log.filter((entry) => entry.projectId === home.id).length === 2 && listed.waiting.length === 4 && lookedAt ? listed : null;
    });
    // Attached to its project through the API, and gone from the inbox.
    const files = await filesOf(home.id);
    assert.equal(files.length, before + 2);
    assert.ok(files.some((file) => file.title === 'IMG_0001.jpg'));
    assert.equal(fs.existsSync(path.join(inbox, 'IMG_0001.jpg')), false);
    // Said, not guessed silently. A loaded machine may take the two photos in one pass or in
    // two (each pass attaches what is stable by then), so the test reads every batch the views
    // were told of: together they attached exactly these two photos to this site.
    const batches = new Map(changes.flatMap((change) => (change.lastBatch ? [[change.lastBatch.at + change.lastBatch.text, change.lastBatch.text]] : [])));
    const told = [...batches.values()].filter((text) => text.endsWith(` to ${home.title}.`));
    for (const text of told) assert.match(text, /^Attached (1 photo|2 photos) from Unsorted: (1|2) to /);
    const toldCount = told.reduce((sum, text) => sum + Number(/^Attached (\d+)/.exec(text)![1]), 0);
    assert.equal(toldCount, 2, `inbox.changed told the views of both photos: ${JSON.stringify(told)}`);
    assert.equal(state.lastBatch?.text, told.at(-1), 'the last batch is the one the views were told of last');
    // What waits, with why and its candidates.
    const byName = new Map(state.waiting.map((item) => [item.name, item]));
    const twins = byName.get('IMG_0003.jpg')!;
    assert.match(twins.why, /within 150 m of 2 sites/);
    assert.deepEqual(twins.candidates.slice(0, 2).map((candidate) => candidate.projectId).sort(), [twinA.id, twinB.id].sort());
    assert.ok(twins.candidates.every((candidate, i) => i === 0 || candidate.distanceM >= twins.candidates[i - 1]!.distanceM), 'nearest first');
    const lonely = byName.get('IMG_0004.jpg')!;
    assert.match(lonely.why, /No site within 150 m; the nearest is Twin house (east|west), 5\.\d km away/);
    assert.equal(lonely.candidates[0]!.projectId, twinA.id);
    assert.match(byName.get('IMG_0005.jpg')!.why, /no GPS position/);
    assert.deepEqual(byName.get('IMG_0005.jpg')!.candidates, []);
    assert.match(byName.get('meter-reading.txt')!.why, /Not a photo/);
    // They are still in the folder.
    assert.ok(fs.existsSync(path.join(inbox, 'IMG_0003.jpg')) && fs.existsSync(path.join(inbox, 'meter-reading.txt')));
  });

  test('choosing a candidate attaches the waiting photo; Undo puts it back in the inbox and deletes the private file', async () => {
    const chosen = ok<InboxState>(await core.invoke('inbox.attach', { name: 'IMG_0003.jpg', projectId: twinB.id }));
    const entry = chosen.log[0]!;
    assert.equal(entry.name, 'IMG_0003.jpg');
    assert.equal(entry.how, 'chosen');
    assert.equal(entry.projectId, twinB.id);
    assert.ok(Math.abs(entry.distanceM! - 50) < 2, `${entry.distanceM}`);
    assert.ok(!chosen.waiting.some((item) => item.name === 'IMG_0003.jpg'));
    assert.equal(fs.existsSync(path.join(inbox, 'IMG_0003.jpg')), false);
    const attached = (await filesOf(twinB.id)).find((file) => file.id === entry.fileId);
    assert.ok(attached, 'attached to the chosen project');

    const undone = ok<InboxState>(await core.invoke('inbox.undo', { entryId: entry.id }));
    assert.ok(undone.log.find((candidate) => candidate.id === entry.id)!.undoneAt);
    assert.ok(fs.existsSync(path.join(inbox, 'IMG_0003.jpg')), 'back in the inbox');
    assert.equal((await filesOf(twinB.id)).some((file) => file.id === entry.fileId), false, 'the private file is deleted');
    assert.equal((await api(core, 'GET', apiPaths.privateFile(ORG, entry.fileId))).status, 404);
    // It waits for a choice: the passes that follow do not match it again by themselves.
    const waiting = undone.waiting.find((item) => item.name === 'IMG_0003.jpg');
    assert.ok(waiting);
  });

  test('Undo of an automatic attachment: back in the inbox, waiting, not attached again', async () => {
    const state = ok<InboxState>(await core.invoke('inbox.list', undefined));
    const auto = state.log.find((entry) => entry.name === 'IMG_0001.jpg' && entry.how === 'matched')!;
    const undone = ok<InboxState>(await core.invoke('inbox.undo', { entryId: auto.id }));
    assert.match(undone.waiting.find((item) => item.name === 'IMG_0001.jpg')!.why, /Put back here by Undo/);
    // Once it has settled (looked at again after the stability window), passes still leave it waiting.
    const later = await waitFor('IMG_0001.jpg looked at again', async () => {
      const listed = ok<InboxState>(await core.invoke('inbox.list', undefined));
      return listed.waiting.find((item) => item.name === 'IMG_0001.jpg' && item.why.startsWith('Put back')) ? listed : null;
    });
    for (let i = 0; i < 3; i++) await core.invoke('inbox.list', undefined);
    assert.ok(later.waiting.some((item) => item.name === 'IMG_0001.jpg'));
    assert.ok(ok<InboxState>(await core.invoke('inbox.list', undefined)).waiting.some((item) => item.name === 'IMG_0001.jpg'));
    assert.equal((await filesOf(home.id)).some((file) => file.id === auto.fileId), false);
  });

  test('the distance check: a photo far from its project site is flagged with the one project it was taken at', async () => {
    const other = sites.find((site) => site.id !== home.id && haversineMeters(site, home) > 1500 && sites.every((s) => s.id === site.id || haversineMeters(s, site) > 300))!;
    assert.ok(other, 'a demo site 1.5 km or more from the first, alone within 300 m');
    const uploaded = (bytes: Uint8Array, fileName: string) => core.invoke('files.upload', { uploadId: `up-${fileName.replace(/\W/g, '')}`, projectId: home.id, fileName, bytes });
    const far = ok<{ body: PrivateFileJson }>(await uploaded(await makeJpeg({ ...northOf(other, 30), takenAt: '2026-06-01T08:00:00', seed: 21 }), 'wrong-site.jpg')).body;
    const near = ok<{ body: PrivateFileJson }>(await uploaded(await makeJpeg({ ...northOf(home, 10), seed: 22 }), 'right-site.jpg')).body;
    const nowhere = ok<{ body: PrivateFileJson }>(await uploaded(await makeJpeg({ ...northOf(twinA, 50), seed: 23 }), 'between-twins.jpg')).body;

    const places = ok<ProjectPhotoPlace[]>(await core.invoke('photos.check', { projectId: home.id }));
    const of = (id: number) => places.find((place) => place.fileId === id)!;
    assert.equal(of(far.id).isFar, true);
    assert.ok(Math.abs(of(far.id).distanceM! - haversineMeters(home, northOf(other, 30))) < 1);
    assert.equal(of(far.id).match?.projectId, other.id);
    assert.equal(of(far.id).takenAt, '2026-06-01T08:00:00');
    assert.equal(of(near.id).isFar, false);
    assert.equal(of(near.id).match, null);
    // Two sites in range: flagged, but no one-click move (nothing is guessed).
    assert.equal(of(nowhere.id).isFar, true);
    assert.equal(of(nowhere.id).match, null);

    // The move is a PATCH of the file's project through the local API; undo is the PATCH back.
    assert.equal((await api(core, 'PATCH', apiPaths.privateFile(ORG, far.id), { project: other.id })).status, 200);
    assert.ok((await filesOf(other.id)).some((file) => file.id === far.id));
    const atOther = ok<ProjectPhotoPlace[]>(await core.invoke('photos.check', { projectId: other.id })).find((place) => place.fileId === far.id)!;
    assert.equal(atOther.isFar, false);
    assert.equal((await api(core, 'PATCH', apiPaths.privateFile(ORG, far.id), { project: home.id })).status, 200);
    assert.ok((await filesOf(home.id)).some((file) => file.id === far.id));
  });

  test('a photo waiting with no site near it is attached by itself once a project gains a site there', async () => {
    // Far from every demo site and from both twins: no site within 150 m, so it waits.
    const barn = { lat: home.lat - 2, lon: home.lon - 2 };
    assert.ok([...sites, twinA, twinB].every((site) => haversineMeters(site, barn) > 20_000));
    dropIntoInbox('IMG_0100.jpg', await makeJpeg({ ...northOf(barn, 30), seed: 31 }));
    await waitFor('IMG_0100.jpg waiting with no site near it', async () => {
      const listed = ok<InboxState>(await core.invoke('inbox.list', undefined));
      return listed.waiting.find((item) => item.name === 'IMG_0100.jpg' && item.why.startsWith('No site within 150 m')) ?? null;
    });
    // A project made without a site gains one next to the photo: nobody asks the inbox to look again.
    const made = await api<Site>(core, 'POST', apiPaths.projects(ORG), { title: 'Old barn', address: '2 Barn lane' });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.equal((await api(core, 'PATCH', apiPaths.project(ORG, made.body.id), { lat: barn.lat, lon: barn.lon })).status, 200);
    const told = await waitFor('inbox.changed to tell of IMG_0100.jpg attached to Old barn', () =>
      changes.find((change) => change.log.some((entry) => entry.name === 'IMG_0100.jpg' && entry.projectId === made.body.id && entry.how === 'matched')),
    );
    assert.equal(told.lastBatch?.text, 'Attached 1 photo from Unsorted: 1 to Old barn.');
    assert.ok(!told.waiting.some((item) => item.name === 'IMG_0100.jpg'), 'no longer waiting');
    assert.equal(fs.existsSync(path.join(inbox, 'IMG_0100.jpg')), false, 'gone from the inbox');
    assert.deepEqual((await filesOf(made.body.id)).map((file) => file.title), ['IMG_0100.jpg']);
  });
});

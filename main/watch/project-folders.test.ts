// One folder per project: made, renamed with the project, kept through a re-key,
// found again when renamed behind our back, never deleted.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { makeTempDir, startTestServer, type TestServer } from '../engine/testing/test-server.ts';
import { folderForProject, ProjectFolders } from './project-folders.ts';
import { rekey } from '../sync/record-ids.ts';
import { projectFolderRecords } from '../core/agent-folders.ts';
import { apiPaths } from '../../shared/api-paths.ts';

let server: TestServer;
let root: string;
before(async () => {
  server = await startTestServer();
  root = makeTempDir('solardesk-folders-');
});
after(async () => {
  await server.close();
  fs.rmSync(root, { recursive: true, force: true });
});

const db = () => server.engine.context.db;
const listRoot = () => fs.readdirSync(root).filter((name) => !name.startsWith('.')).sort();

test('every project gets "<title> (<id>)"; a renamed project renames its folder; a vanished project leaves its folder', async () => {
  const folders = new ProjectFolders(db(), root, 1);
  await folders.load();
  const first = await folders.reconcile();
  const projects = await db().selectFrom('projects').select(['id', 'title']).where('org_id', '=', 1).execute();
  assert.equal(first.created.length, projects.length);
  assert.equal(listRoot().length, projects.length);
  const project = projects[0]!;
  const folder = folders.folderOf(project.id)!;
  assert.ok(folder.endsWith(` (${project.id})`), folder);
  assert.equal(folders.projectOfFolder(folder), project.id);
  fs.writeFileSync(path.join(root, folder, 'kept.txt'), 'kept');

  assert.deepEqual((await folders.reconcile()).created, [], 'a second pass changes nothing');

  await db().updateTable('projects').set({ title: 'Renamed: "new" title' }).where('id', '=', project.id).execute();
  const renamed = await folders.reconcile();
  assert.deepEqual(renamed.renamed, [{ projectId: project.id, from: folder, to: `Renamed new title (${project.id})` }]);
  assert.equal(fs.readFileSync(path.join(root, `Renamed new title (${project.id})`, 'kept.txt'), 'utf8'), 'kept', 'the files moved with it');
  assert.equal(folders.projectOfFolder(folder), null);

  // Renamed by the user: found again by its inode, and the name they chose is kept.
  fs.renameSync(path.join(root, `Renamed new title (${project.id})`), path.join(root, 'My roof job'));
  const adopted = await folders.reconcile();
  assert.deepEqual(adopted.adopted, [{ projectId: project.id, folder: 'My roof job' }]);
  assert.deepEqual(adopted.created, []);
  assert.equal(folders.projectOfFolder('My roof job'), project.id);
});

test('a project made offline keeps its folder when sync re-keys it, which is then renamed to the real id', async () => {
  const folders = new ProjectFolders(db(), root, 1);
  await folders.load();
  const created = await server.request('POST', '/api/orgs/1/projects/', { token: await server.tokenFor('admin@sunrise.example'), body: { title: 'Offline job' } });
  assert.equal(created.status, 201);
  const provisional = created.json.id as number;
  await folders.reconcile();
  assert.equal(folders.folderOf(provisional), `Offline job (${provisional})`);
  fs.writeFileSync(path.join(root, `Offline job (${provisional})`, 'photo.jpg'), 'jpeg');
  const realId = provisional + 1000;
  await db().transaction().execute(async (trx) => {
    await rekey(trx, 'project', provisional, realId, projectFolderRecords);
    await sql`PRAGMA defer_foreign_keys = OFF`.execute(trx);
  });
  assert.equal(await folders.projectOfFolderNow(`Offline job (${provisional})`), realId, 'the mapping moved with the re-key');
  const changes = await folders.reconcile();
  assert.deepEqual(changes.renamed, [{ projectId: realId, from: `Offline job (${provisional})`, to: `Offline job (${realId})` }]);
  assert.deepEqual(changes.created, []);
  assert.equal(fs.readFileSync(path.join(root, `Offline job (${realId})`, 'photo.jpg'), 'utf8'), 'jpeg');
});

test('case-only clashes get distinct folders; a deleted project leaves its folder as an ordinary one', async () => {
  const folders = new ProjectFolders(db(), root, 1);
  await folders.load();
  const token = await server.tokenFor('admin@sunrise.example');
  const a = await server.request('POST', '/api/orgs/1/projects/', { token, body: { title: 'Clash' } });
  await folders.reconcile();
  // Someone made a folder whose name differs only in case from the one the project would get.
  await db().updateTable('projects').set({ title: 'CLASH' }).where('id', '=', a.json.id).execute();
  fs.mkdirSync(path.join(root, `clash (${a.json.id})x`));
  fs.mkdirSync(path.join(root, `Something else`));
  const b = await server.request('POST', '/api/orgs/1/projects/', { token, body: { title: 'Other' } });
  const otherCanonical = `Other (${b.json.id})`;
  fs.mkdirSync(path.join(root, otherCanonical.toLowerCase()));
  await folders.reconcile();
  assert.equal(folders.folderOf(b.json.id), `${otherCanonical.slice(0, -1)} (2)`.replace(`(${b.json.id} (2)`, `(${b.json.id}) (2)`));
  assert.ok((await folders.outsideFolders()).includes('Something else'));
  assert.ok((await folders.outsideFolders()).includes(otherCanonical.toLowerCase()));

  const folderOfB = folders.folderOf(b.json.id)!;
  assert.equal((await server.request('DELETE', apiPaths.project(1, b.json.id), { token })).status, 204);
  const changes = await folders.reconcile();
  assert.deepEqual(changes.released, [{ projectId: b.json.id, folder: folderOfB }]);
  assert.ok(fs.existsSync(path.join(root, folderOfB)), 'never deleted');
  assert.ok((await folders.outsideFolders()).includes(folderOfB));
});

test('a folder made when names could start with a dot is renamed to its visible name, not believed lost', async () => {
  const folders = new ProjectFolders(db(), root, 1);
  await folders.load();
  const token = await server.tokenFor('admin@sunrise.example');
  const created = await server.request('POST', '/api/orgs/1/projects/', { token, body: { title: '.hidden job' } });
  const id = created.json.id as number;
  // What an earlier version made and recorded for this title: a hidden folder.
  fs.mkdirSync(path.join(root, `.hidden job (${id})`));
  fs.writeFileSync(path.join(root, `.hidden job (${id})`, 'survey.pdf'), 'pdf');
  await db().insertInto('watch_projects').values({ project_id: id, folder: `.hidden job (${id})`, canonical: `.hidden job (${id})`, folder_ino: null }).execute();
  const changes = await folders.reconcile();
  assert.deepEqual(changes.renamed, [{ projectId: id, from: `.hidden job (${id})`, to: `_hidden job (${id})` }]);
  assert.deepEqual(changes.lost, []);
  assert.equal(fs.readFileSync(path.join(root, `_hidden job (${id})`, 'survey.pdf'), 'utf8'), 'pdf', 'its files moved with it');
  const again = await folders.reconcile();
  assert.deepEqual([again.lost, again.renamed, again.created], [[], [], []], 'a second pass changes nothing');
});

test('a project folder replaced by a link is refused on every pass: not lost, not made again through the link, not written into', async () => {
  const folders = new ProjectFolders(db(), root, 1);
  await folders.load();
  const elsewhere = makeTempDir('solardesk-elsewhere-');
  try {
    const token = await server.tokenFor('admin@sunrise.example');
    const created = await server.request('POST', '/api/orgs/1/projects/', { token, body: { title: 'Linked' } });
    const id = created.json.id as number;
    await folders.reconcile();
    const folder = folders.folderOf(id)!;
    fs.rmdirSync(path.join(root, folder));
    fs.symlinkSync(elsewhere, path.join(root, folder), 'dir');
    for (let pass = 0; pass < 3; pass++) {
      const changes = await folders.reconcile();
      assert.deepEqual(changes.lost, []);
      assert.equal(changes.refused.length, 1);
      assert.match(changes.refused[0]!.reason, /link/);
      assert.equal(folders.folderOf(id), null, 'not used as the project\'s folder');
      assert.equal(await folders.realPathOf(id), null);
    }
    assert.deepEqual(fs.readdirSync(elsewhere), [], 'nothing made in the folder the link points to');
    fs.rmSync(path.join(root, folder));
    const replaced = await folders.reconcile();
    assert.deepEqual(replaced.refused, [], 'the link gone, a real folder is made');
    assert.ok(fs.lstatSync(path.join(root, folders.folderOf(id)!)).isDirectory());
    // A link that has the name a renamed project's folder would take is not renamed onto: the folder takes another name.
    fs.symlinkSync(elsewhere, path.join(root, `Relinked (${id})`), 'dir');
    await db().updateTable('projects').set({ title: 'Relinked' }).where('id', '=', id).execute();
    const renamed = await folders.reconcile();
    assert.equal(renamed.renamed[0]?.to, `Relinked (${id}) (2)`);
    assert.ok(fs.lstatSync(path.join(root, `Relinked (${id})`)).isSymbolicLink(), 'the link is left alone');
    assert.deepEqual(fs.readdirSync(elsewhere), []);
  } finally {
    fs.rmSync(elsewhere, { recursive: true, force: true });
  }
});

test('folderForProject uses the folder the watcher made, even after the user renamed it, and never makes a second', async () => {
  const ownRoot = makeTempDir('solardesk-folder-for-');
  try {
    const project = await db().selectFrom('projects').select(['id', 'title', 'identifier']).where('org_id', '=', 1).orderBy('id').executeTakeFirstOrThrow();
    // A fresh store mapping for this root: the shared test server's rows belong to the other tests' root.
    await db().deleteFrom('watch_files').execute();
    await db().deleteFrom('watch_projects').execute();
    const watcher = new ProjectFolders(db(), ownRoot, 1);
    await watcher.reconcile();
    const made = watcher.folderOf(project.id)!;
    fs.renameSync(path.join(ownRoot, made), path.join(ownRoot, 'Smith roof, the one with the dog'));
    const before = fs.readdirSync(ownRoot).sort();

    assert.equal(await folderForProject(db(), ownRoot, project), path.join(ownRoot, 'Smith roof, the one with the dog'));
    assert.equal(await folderForProject(db(), ownRoot, project), path.join(ownRoot, 'Smith roof, the one with the dog'), 'the same on a second call');
    assert.deepEqual(fs.readdirSync(ownRoot).sort(), before, 'no folder made');
    const changes = await watcher.reconcile();
    assert.deepEqual([changes.created, changes.adopted, changes.lost], [[], [], []], 'the watcher agrees: it was already recorded');
    assert.equal(watcher.folderOf(project.id), 'Smith roof, the one with the dog');
  } finally {
    fs.rmSync(ownRoot, { recursive: true, force: true });
  }
});

test("folderForProject before any watcher: the watcher's own name, recorded so the watcher later adopts that very folder; a link is refused", async () => {
  const ownRoot = makeTempDir('solardesk-folder-for-');
  const elsewhere = makeTempDir('solardesk-elsewhere-');
  try {
    await db().deleteFrom('watch_files').execute();
    await db().deleteFrom('watch_projects').execute();
    const projects = await db().selectFrom('projects').select(['id', 'title', 'identifier']).where('org_id', '=', 1).orderBy('id').limit(2).execute();
    const [first, second] = [projects[0]!, projects[1]!];
    const workspace = path.join(ownRoot, 'not made yet');
    const folder = await folderForProject(db(), workspace, { ...first, title: 'Café Ünïcode\u0301 roof' });
    assert.equal(path.basename(folder), `${'Café Ünïcode\u0301 roof'.normalize('NFC')} (${first.id})`, "the watcher's naming rule, NFC");
    assert.ok(fs.statSync(folder).isDirectory());
    const row = await db().selectFrom('watch_projects').selectAll().where('project_id', '=', first.id).executeTakeFirstOrThrow();
    assert.equal(row.folder, path.basename(folder));

    // A watcher starting later keeps that folder (its title differs now: renamed to the real title, files and all).
    fs.writeFileSync(path.join(folder, 'saved.pdf'), 'pdf');
    const watcher = new ProjectFolders(db(), workspace, 1);
    const changes = await watcher.reconcile();
    assert.ok(!changes.created.some((created) => created.projectId === first.id), 'no second folder');
    assert.equal(fs.readFileSync(path.join(workspace, watcher.folderOf(first.id)!, 'saved.pdf'), 'utf8'), 'pdf');
    assert.equal(fs.readdirSync(workspace).filter((name) => name.endsWith(`(${first.id})`)).length, 1);

    const secondFolder = watcher.folderOf(second.id)!;
    fs.rmdirSync(path.join(workspace, secondFolder));
    fs.symlinkSync(elsewhere, path.join(workspace, secondFolder), 'dir');
    await assert.rejects(folderForProject(db(), workspace, second), /link/);
    assert.deepEqual(fs.readdirSync(elsewhere), []);
  } finally {
    fs.rmSync(ownRoot, { recursive: true, force: true });
    fs.rmSync(elsewhere, { recursive: true, force: true });
  }
});

// Project folders end to end, on the real filesystem with the real watcher: a real
// server, the fault proxy (which counts what reaches the server) and a real agent
// with --folder, all in this process. Short stability windows keep it quick.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { FolderHarness } from '../../core/testing/folder-harness.ts';
import { makeTempDir } from '../../engine/testing/test-server.ts';
import { multipartBody, postMultipart } from '../../engine/testing/multipart-upload.ts';
import { download } from '../../engine/testing/file-testing.ts';
import { folderOfProject, settleFolders, sleep, waitFor, writeSlowly } from '../testing/folder-testing.ts';
import { folderStatus, localFilesWithHash, remoteFilesWithHash, sha256, startWithFolder, TEST_WINDOW_MS, type Json } from '../../core/testing/folder-harness.ts';
import { apiPaths, syncPaths } from '../../../shared/api-paths.ts';

const CREATE_PATH = /^\/api\/orgs\/1\/private_files\/$/;

const projectIdOf = (file: Json) => Number(/\/projects\/(\d+)\/$/.exec(file.project ?? '')?.[1] ?? NaN);

describe('project folders, synced', () => {
  let h: FolderHarness;
  let root: string;
  before(async () => {
    root = makeTempDir('solardesk-folders-');
    h = await startWithFolder(root);
  });
  after(async () => {
    await h.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  test('every project has its folder, and the files already attached were written into them', async () => {
    const projects = (await h.remote('GET', '/api/orgs/1/projects/?limit=1000&fieldset=list')).json as Json[];
    for (const project of projects) assert.ok(folderOfProject(root, project.id));
    const remote = ((await h.remote('GET', '/api/orgs/1/private_files/?limit=1000')).json as Json[]).filter((file) => file.project);
    assert.ok(remote.length > 0);
    for (const file of remote) {
      const folder = folderOfProject(root, projectIdOf(file));
      const hashes = fs.readdirSync(folder).map((name) => sha256(fs.readFileSync(path.join(folder, name))));
      assert.ok(hashes.includes(file.file_hash), `${file.title} is in ${folder}`);
    }
    assert.deepEqual(fs.readdirSync(path.join(root, '.solardesk', 'tmp')), [], 'no temp file left behind');
  });

  test('a file written slowly in chunks is attached once, only when complete, and uploaded exactly once', async () => {
    const folder = folderOfProject(root, 5);
    const file = path.join(folder, 'Site survey.pdf');
    const postsBefore = h.proxy.count('POST', CREATE_PATH);
    let seenEarly = false;
    const watching = (async () => {
      for (let i = 0; i < 30; i++) {
        await sleep(60);
        const rows = await h.agent.engine.context.db.selectFrom('private_files').select('filesize').where('title', '=', 'Site survey.pdf').execute();
        if (rows.length > 0 && fs.statSync(file).size < 24 * 4096) seenEarly = true;
      }
    })();
    // 24 chunks 100 ms apart: longer than the window in all, but never a pause as long as it.
    const bytes = await writeSlowly(file, 24, 4096, 100);
    await watching;
    assert.equal(seenEarly, false, 'nothing was attached while the file was still being written');
    const local = await waitFor('the file to be attached', async () => (await localFilesWithHash(h, sha256(bytes)))[0]);
    assert.equal(local.filesize, bytes.length);
    assert.equal(local.title, 'Site survey.pdf');
    assert.equal(local.project_id, 5);
    await settleFolders(h);
    const remote = await remoteFilesWithHash(h, sha256(bytes));
    assert.equal(remote.length, 1, 'exactly one remote file');
    assert.equal(remote[0]!.filesize, bytes.length);
    assert.equal(projectIdOf(remote[0]!), 5);
    assert.ok((await download(remote[0]!.file_contents)).body.equals(bytes), 'the bytes that were written');
    assert.equal(h.proxy.count('POST', CREATE_PATH) - postsBefore, 1, 'one upload');
  });

  test('temporary, lock and system files are ignored; files outside project folders are reported, not attached', async () => {
    const folder = folderOfProject(root, 6);
    const ignored = ['~$Contract.docx', 'draft.tmp', 'video.mp4.part', 'setup.exe.crdownload', '.~lock.budget.ods#', '.DS_Store', 'Thumbs.db', 'desktop.ini', '.hidden'];
    for (const name of ignored) fs.writeFileSync(path.join(folder, name), `ignored ${name}`);
    fs.mkdirSync(path.join(root, 'Holiday photos'), { recursive: true });
    fs.writeFileSync(path.join(root, 'Holiday photos', 'beach.jpg'), 'not a project file');
    fs.writeFileSync(path.join(root, 'loose.pdf'), 'directly in the root');
    fs.mkdirSync(path.join(folder, 'old versions'));
    fs.writeFileSync(path.join(folder, 'old versions', 'v1.pdf'), 'in a subfolder');
    const filesBefore = await h.agent.engine.context.db.selectFrom('private_files').select('id').execute();
    await sleep(TEST_WINDOW_MS * 4);
    await settleFolders(h);
    const filesAfter = await h.agent.engine.context.db.selectFrom('private_files').select('id').execute();
    assert.equal(filesAfter.length, filesBefore.length, 'nothing attached');
    const status = await waitFor('the status to list them', async () => {
      const current = await folderStatus(h);
      return current.ignored.length >= ignored.length && current.outside.length >= 3 ? current : null;
    });
    const folderName = path.basename(folder);
    for (const name of ignored) assert.ok(status.ignored.some((entry) => entry.path === `${folderName}/${name}`), `${name} is listed as ignored`);
    assert.match(status.ignored.find((entry) => entry.path === `${folderName}/~$Contract.docx`)!.reason, /Office/);
    assert.ok(status.outside.some((entry) => entry.path === 'Holiday photos/beach.jpg' && /not a project's folder/.test(entry.reason)));
    assert.ok(status.outside.some((entry) => entry.path === 'loose.pdf'));
    assert.ok(status.outside.some((entry) => entry.path === `${folderName}/old versions/`));
  });

  test('renaming changes the title and moving changes the project, neither uploads again', async () => {
    const bytes = Buffer.from('%PDF-1.4\nroof plan\n%%EOF\n');
    fs.writeFileSync(path.join(folderOfProject(root, 7), 'plan.pdf'), bytes);
    await waitFor('attached', async () => (await localFilesWithHash(h, sha256(bytes))).length === 1);
    await settleFolders(h);
    const [uploaded] = await remoteFilesWithHash(h, sha256(bytes));
    assert.ok(uploaded);
    const postsBefore = h.proxy.count('POST', CREATE_PATH);

    fs.renameSync(path.join(folderOfProject(root, 7), 'plan.pdf'), path.join(folderOfProject(root, 7), 'Roof plan v2.pdf'));
    await waitFor('the title to follow', async () => (await localFilesWithHash(h, sha256(bytes)))[0]?.title === 'Roof plan v2.pdf');
    await settleFolders(h);
    assert.equal((await h.remote('GET', apiPaths.privateFile(1, uploaded.id))).json.title, 'Roof plan v2.pdf');

    fs.renameSync(path.join(folderOfProject(root, 7), 'Roof plan v2.pdf'), path.join(folderOfProject(root, 8), 'Roof plan v2.pdf'));
    await waitFor('the project to follow', async () => (await localFilesWithHash(h, sha256(bytes)))[0]?.project_id === 8);
    await settleFolders(h);
    const moved = (await h.remote('GET', apiPaths.privateFile(1, uploaded.id))).json;
    assert.equal(projectIdOf(moved), 8);
    assert.equal(moved.title, 'Roof plan v2.pdf');

    // A move that changes the inode (a copy to the new place, then the old one deleted) is paired by its hash.
    const target = path.join(folderOfProject(root, 9), 'copied plan.pdf');
    fs.copyFileSync(path.join(folderOfProject(root, 8), 'Roof plan v2.pdf'), target);
    fs.rmSync(path.join(folderOfProject(root, 8), 'Roof plan v2.pdf'));
    await waitFor('the copy-and-delete move to follow', async () => (await localFilesWithHash(h, sha256(bytes)))[0]?.project_id === 9);
    await settleFolders(h);
    const copied = (await h.remote('GET', apiPaths.privateFile(1, uploaded.id))).json;
    assert.equal(projectIdOf(copied), 9);
    assert.equal(copied.title, 'copied plan.pdf');

    assert.equal(h.proxy.count('POST', CREATE_PATH), postsBefore, 'no new upload for a rename or a move');
    assert.equal((await remoteFilesWithHash(h, sha256(bytes))).length, 1);
    assert.equal((await h.local('GET', '/api/orgs/1/sync/pending/')).json.filter((row: Json) => row.status === 'held').length, 0, 'no delete held for a move');
  });

  test('the same contents dropped twice into one project are one file; into another project, a second one', async () => {
    const bytes = Buffer.from(`meter photo ${Date.now()}`);
    const postsBefore = h.proxy.count('POST', CREATE_PATH);
    fs.writeFileSync(path.join(folderOfProject(root, 10), 'meter.jpg'), bytes);
    fs.writeFileSync(path.join(folderOfProject(root, 10), 'meter copy.jpg'), bytes);
    await waitFor('attached', async () => (await localFilesWithHash(h, sha256(bytes))).length === 1);
    await sleep(TEST_WINDOW_MS * 3);
    await settleFolders(h);
    assert.equal((await localFilesWithHash(h, sha256(bytes))).length, 1);
    fs.writeFileSync(path.join(folderOfProject(root, 11), 'meter.jpg'), bytes);
    await waitFor('attached to the other project', async () => (await localFilesWithHash(h, sha256(bytes))).length === 2);
    await settleFolders(h);
    const remote = await remoteFilesWithHash(h, sha256(bytes));
    assert.deepEqual(remote.map(projectIdOf).sort((a, b) => a - b), [10, 11]);
    assert.equal(h.proxy.count('POST', CREATE_PATH) - postsBefore, 2);
    // One of the two names going away is no deletion: the other still shows the file.
    fs.rmSync(path.join(folderOfProject(root, 10), 'meter copy.jpg'));
    await sleep(1500);
    await settleFolders(h);
    assert.equal((await h.local('GET', '/api/orgs/1/sync/pending/')).json.filter((row: Json) => row.status === 'held').length, 0);
  });

  test('a file attached remotely is written into its folder atomically, beside a different local file of the same name', async () => {
    const folder = folderOfProject(root, 12);
    const local = Buffer.from('my own notes, not the office copy');
    fs.writeFileSync(path.join(folder, 'Notes.txt'), local);
    await waitFor('the local file attached', async () => (await localFilesWithHash(h, sha256(local))).length === 1);
    await settleFolders(h);
    // A big arrival, so a half-written file would be visible to the poller below.
    const remoteBytes = Buffer.alloc(6 * 1024 * 1024, 7);
    remoteBytes.write('office notes');
    const sizesSeen = new Set<number>();
    let polling = true;
    const poller = (async () => {
      while (polling) {
        for (const name of fs.readdirSync(folder)) {
          if (name.startsWith('Notes (')) sizesSeen.add(fs.statSync(path.join(folder, name)).size);
          assert.ok(!name.endsWith('.download') && !name.startsWith('.'), `no temp file in the project folder (${name})`);
        }
        await sleep(1);
      }
    })();
    const added = await postMultipart(
      `${h.server.baseUrl}${apiPaths.privateFiles(1)}`,
      await h.server.tokenFor('admin@sunrise.example'),
      multipartBody({ title: 'Notes.txt', project: '12' }, { fileName: 'Notes.txt', contents: remoteBytes }),
    );
    assert.equal(added.status, 201);
    await settleFolders(h);
    const arrived = await waitFor('the arrival', () => fs.readdirSync(folder).find((name) => name === 'Notes (2).txt'));
    polling = false;
    await poller;
    assert.ok(fs.readFileSync(path.join(folder, arrived)).equals(remoteBytes));
    assert.ok(fs.readFileSync(path.join(folder, 'Notes.txt')).equals(local), 'the local file is untouched');
    assert.deepEqual([...sizesSeen], [remoteBytes.length], 'the arrival was never seen half-written');
    await sleep(TEST_WINDOW_MS * 3);
    await settleFolders(h);
    assert.equal((await remoteFilesWithHash(h, sha256(remoteBytes))).length, 1, 'the arrival is not uploaded back');
    assert.equal((await remoteFilesWithHash(h, sha256(local))).length, 1);
  });

  test('a renamed project renames its folder; a project made offline keeps its folder through the re-key', async () => {
    await h.remote('PATCH', '/api/orgs/1/projects/13/', { title: 'Renamed on the remote' });
    await settleFolders(h);
    await waitFor('the folder to be renamed', () => fs.existsSync(path.join(root, 'Renamed on the remote (13)')));

    h.proxy.setOffline(true);
    const created = await h.local('POST', '/api/orgs/1/projects/', { title: 'Made offline' });
    assert.equal(created.status, 201);
    const provisional = created.json.id as number;
    const offlineFolder = await waitFor('its folder', () => fs.existsSync(path.join(root, `Made offline (${provisional})`)) && path.join(root, `Made offline (${provisional})`));
    const bytes = Buffer.from('photo taken offline');
    fs.writeFileSync(path.join(offlineFolder, 'offline photo.jpg'), bytes);
    await waitFor('attached offline', async () => (await localFilesWithHash(h, sha256(bytes))).length === 1);
    h.proxy.setOffline(false);
    await settleFolders(h);
    const remoteProjects = ((await h.remote('GET', '/api/orgs/1/projects/?search=Made%20offline&limit=10&fieldset=list')).json as Json[]).filter((project) => project.title === 'Made offline');
    assert.equal(remoteProjects.length, 1);
    const realId = remoteProjects[0]!.id as number;
    await waitFor('the folder renamed to the real id', () => fs.existsSync(path.join(root, `Made offline (${realId})`, 'offline photo.jpg')));
    assert.ok(!fs.existsSync(offlineFolder));
    const remote = await remoteFilesWithHash(h, sha256(bytes));
    assert.equal(remote.length, 1);
    assert.equal(projectIdOf(remote[0]!), realId);
  });

  test('a local delete is held, listed with its reason, and reaches the remote only when confirmed', async () => {
    const bytes = Buffer.from('an invoice that will be deleted');
    const file = path.join(folderOfProject(root, 14), 'invoice.pdf');
    fs.writeFileSync(file, bytes);
    await waitFor('attached', async () => (await localFilesWithHash(h, sha256(bytes))).length === 1);
    await settleFolders(h);
    const [remote] = await remoteFilesWithHash(h, sha256(bytes));
    assert.ok(remote);
    fs.rmSync(file);
    const held = await waitFor('the delete to be held', async () => ((await h.local('GET', '/api/orgs/1/sync/pending/')).json as Json[]).find((row) => row.status === 'held' && row.record_id === remote.id));
    assert.match(held.reason, /Deleted in the project folder .*invoice\.pdf.*Restore.*Delete/);
    await settleFolders(h);
    assert.equal((await h.remote('GET', apiPaths.privateFile(1, remote.id))).status, 200, 'still on the remote');
    assert.ok(!fs.existsSync(file), 'not brought back while held');
    const status = await folderStatus(h);
    assert.ok(status.files.some((entry) => entry.state === 'delete_held' && entry.file_id === remote.id));

    const confirmed = await h.local('POST', syncPaths.confirmPending(1, held.id));
    assert.equal(confirmed.status, 200, confirmed.text);
    await settleFolders(h);
    assert.equal((await h.remote('GET', apiPaths.privateFile(1, remote.id))).status, 404, 'deleted on the remote once confirmed');

    // Restore instead of confirm: the file comes back into its folder.
    const keep = Buffer.from('a photo deleted by mistake');
    const keepFile = path.join(folderOfProject(root, 14), 'mistake.jpg');
    fs.writeFileSync(keepFile, keep);
    await waitFor('attached', async () => (await localFilesWithHash(h, sha256(keep))).length === 1);
    await settleFolders(h);
    fs.rmSync(keepFile);
    const heldAgain = await waitFor('held', async () => ((await h.local('GET', '/api/orgs/1/sync/pending/')).json as Json[]).find((row) => row.status === 'held'));
    assert.equal((await h.local('POST', syncPaths.restorePending(1, heldAgain.id))).status, 200);
    await waitFor('the file back in its folder', () => fs.existsSync(keepFile) && fs.readFileSync(keepFile).equals(keep));
    await settleFolders(h);
    assert.equal((await remoteFilesWithHash(h, sha256(keep))).length, 1);
  });

  test('a folder that suddenly lost most of its files trips the guard: every delete held, none sent', async () => {
    const folder = folderOfProject(root, 15);
    const hashes: string[] = [];
    for (let i = 0; i < 8; i++) {
      const bytes = Buffer.from(`panel photo ${i} ${Date.now()}`);
      hashes.push(sha256(bytes));
      fs.writeFileSync(path.join(folder, `panel ${i}.jpg`), bytes);
    }
    await waitFor('all attached', async () => (await Promise.all(hashes.map((hash) => localFilesWithHash(h, hash)))).every((rows) => rows.length === 1));
    await settleFolders(h);
    const deletesBefore = h.proxy.count('DELETE', /private_files/);
    for (const name of fs.readdirSync(folder)) fs.rmSync(path.join(folder, name), { recursive: true });
    const status = await waitFor('the guard', async () => {
      const current = await folderStatus(h);
      return current.guards.some((guard) => guard.scope.includes(path.basename(folder))) ? current : null;
    });
    assert.ok(status.guards.some((guard) => guard.lost >= 8));
    await waitFor('all held', async () => ((await h.local('GET', '/api/orgs/1/sync/pending/')).json as Json[]).filter((row) => row.status === 'held' && /mass-delete guard/.test(row.reason)).length >= 8);
    await settleFolders(h);
    assert.equal(h.proxy.count('DELETE', /private_files/), deletesBefore, 'no remote delete');
    for (const hash of hashes) assert.equal((await remoteFilesWithHash(h, hash)).length, 1);
  });

  test('the status names files waiting to become stable, and why', async () => {
    const file = path.join(folderOfProject(root, 16), 'still copying.mp4');
    const writing = writeSlowly(file, 10, 1000, 100);
    const waiting = await waitFor('a waiting entry', async () => (await folderStatus(h)).files.find((entry) => entry.state === 'waiting' && entry.path.endsWith('still copying.mp4')));
    assert.match(waiting.reason, /Waiting/);
    await writing;
    await waitFor('attached', async () => (await h.agent.engine.context.db.selectFrom('private_files').select('id').where('title', '=', 'still copying.mp4').execute()).length === 1);
    await settleFolders(h);
  });

  test('a burst of files past the threshold drops the queue and rescans: every file attached exactly once', async () => {
    const source = makeTempDir('solardesk-burst-');
    const hashes = new Set<string>();
    for (let i = 0; i < 250; i++) {
      const bytes = Buffer.from(`burst file ${i} ${Date.now()}`);
      hashes.add(sha256(bytes));
      fs.writeFileSync(path.join(source, `reading ${i}.txt`), bytes);
    }
    const postsBefore = h.proxy.count('POST', CREATE_PATH);
    const overflowsBefore = h.agent.folders!.counts.overflows;
    const folder = folderOfProject(root, 22);
    for (const name of fs.readdirSync(source)) fs.copyFileSync(path.join(source, name), path.join(folder, name));
    await waitFor('all attached', async () => {
      const rows = await h.agent.engine.context.db.selectFrom('private_files').select('file_hash').where('project_id', '=', 22).execute();
      return rows.filter((row) => hashes.has(row.file_hash!)).length === hashes.size;
    }, 60_000);
    await settleFolders(h);
    assert.ok(h.agent.folders!.counts.overflows > overflowsBefore, 'the queue overflowed and the folder was rescanned');
    assert.equal(h.proxy.count('POST', CREATE_PATH) - postsBefore, hashes.size, 'each file uploaded once');
    const remote = ((await h.remote('GET', '/api/orgs/1/private_files/?project=22&limit=1000')).json as Json[]).filter((file) => hashes.has(file.file_hash));
    assert.equal(remote.length, hashes.size);
    fs.rmSync(source, { recursive: true, force: true });
  });

  test('a file the remote refuses is reported as failed, with the reason', async () => {
    h.proxy.addRule({ method: 'POST', path: CREATE_PATH, action: { kind: 'status', status: 400, body: { file_contents: ['The submitted file is empty.'] } }, times: 1 });
    fs.writeFileSync(path.join(folderOfProject(root, 23), 'refused.pdf'), 'the remote will refuse this one');
    const failed = await waitFor('a failed entry', async () => (await folderStatus(h)).files.find((entry) => entry.state === 'failed' && entry.path.endsWith('refused.pdf')));
    assert.match(failed.reason, /refused it: HTTP 400.*empty/);
    h.proxy.clearRules();
  });

  test('a file moved to another project elsewhere moves folders; one deleted elsewhere leaves for the trash, kept', async () => {
    const bytes = Buffer.from('a wiring diagram');
    const file = path.join(folderOfProject(root, 18), 'wiring.pdf');
    fs.writeFileSync(file, bytes);
    await waitFor('attached', async () => (await localFilesWithHash(h, sha256(bytes))).length === 1);
    await settleFolders(h);
    const [remote] = await remoteFilesWithHash(h, sha256(bytes));
    assert.equal((await h.remote('PATCH', apiPaths.privateFile(1, remote!.id), { project: '19' })).status, 200);
    await settleFolders(h);
    const moved = path.join(folderOfProject(root, 19), 'wiring.pdf');
    await waitFor('the copy to follow its project', () => fs.existsSync(moved) && !fs.existsSync(file));
    assert.ok(fs.readFileSync(moved).equals(bytes));

    assert.equal((await h.remote('DELETE', apiPaths.privateFile(1, remote!.id))).status, 204);
    // Deletions on the remote are noticed by the pull's periodic sweep of ids.
    for (let pull = 0; pull < 10; pull++) await h.synced();
    await waitFor('the copy to leave the folder', () => !fs.existsSync(moved));
    const trash = path.join(root, '.solardesk', 'trash');
    const kept = fs.readdirSync(trash, { recursive: true }).map(String).find((entry) => entry.endsWith('wiring.pdf'));
    assert.ok(kept, 'kept in .solardesk/trash');
    assert.ok(fs.readFileSync(path.join(trash, kept)).equals(bytes));
    await settleFolders(h);
    assert.equal((await remoteFilesWithHash(h, sha256(bytes))).length, 0, 'not uploaded again');
  });

  test('changes made while the agent was stopped are found on start', async () => {
    const folder = folderOfProject(root, 17);
    const kept = Buffer.from('kept across the restart');
    const renamed = Buffer.from('renamed while stopped');
    const deleted = Buffer.from('deleted while stopped');
    fs.writeFileSync(path.join(folder, 'kept.txt'), kept);
    fs.writeFileSync(path.join(folder, 'before.txt'), renamed);
    fs.writeFileSync(path.join(folder, 'gone.txt'), deleted);
    await waitFor('attached', async () => (await Promise.all([kept, renamed, deleted].map((bytes) => localFilesWithHash(h, sha256(bytes))))).every((rows) => rows.length === 1));
    await settleFolders(h);
    const postsBefore = h.proxy.count('POST', CREATE_PATH);
    const [gone] = await remoteFilesWithHash(h, sha256(deleted));

    await h.agent.close();
    const added = Buffer.from('added while stopped');
    fs.writeFileSync(path.join(folder, 'new.txt'), added);
    fs.renameSync(path.join(folder, 'before.txt'), path.join(folder, 'after.txt'));
    fs.rmSync(path.join(folder, 'gone.txt'));
    await h.restartAgent();

    await waitFor('the new file attached', async () => (await localFilesWithHash(h, sha256(added))).length === 1);
    await waitFor('the rename', async () => (await localFilesWithHash(h, sha256(renamed)))[0]?.title === 'after.txt');
    await waitFor('the delete held', async () => ((await h.local('GET', '/api/orgs/1/sync/pending/')).json as Json[]).some((row) => row.status === 'held' && row.record_id === gone!.id));
    await settleFolders(h);
    assert.equal(h.proxy.count('POST', CREATE_PATH) - postsBefore, 1, 'only the new file was uploaded');
    assert.equal((await remoteFilesWithHash(h, sha256(renamed)))[0]!.title, 'after.txt');
    assert.equal((await remoteFilesWithHash(h, sha256(deleted))).length, 1, 'the delete is held, not sent');
  });
});

describe('project folders with --confirm-deletes', () => {
  let h: FolderHarness;
  let root: string;
  before(async () => {
    root = makeTempDir('solardesk-folders-confirm-');
    h = await startWithFolder(root, { confirmDeletes: true });
  });
  after(async () => {
    await h.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  test('a single delete is confirmed at once; a mass delete is still held; an emptied root deletes nothing', async () => {
    const one = Buffer.from('to be deleted for real');
    fs.writeFileSync(path.join(folderOfProject(root, 20), 'one.txt'), one);
    await waitFor('attached', async () => (await localFilesWithHash(h, sha256(one))).length === 1);
    await settleFolders(h);
    fs.rmSync(path.join(folderOfProject(root, 20), 'one.txt'));
    await waitFor('deleted on the remote', async () => {
      await h.synced();
      return (await remoteFilesWithHash(h, sha256(one))).length === 0;
    });

    const folder = folderOfProject(root, 21);
    const hashes: string[] = [];
    for (let i = 0; i < 7; i++) {
      const bytes = Buffer.from(`bill ${i} ${Date.now()}`);
      hashes.push(sha256(bytes));
      fs.writeFileSync(path.join(folder, `bill ${i}.pdf`), bytes);
    }
    await waitFor('all attached', async () => (await Promise.all(hashes.map((hash) => localFilesWithHash(h, hash)))).every((rows) => rows.length === 1));
    await settleFolders(h);
    for (const name of fs.readdirSync(folder)) fs.rmSync(path.join(folder, name));
    await waitFor('held by the guard', async () => ((await h.local('GET', '/api/orgs/1/sync/pending/')).json as Json[]).filter((row) => row.status === 'held').length >= 7);
    await settleFolders(h);
    for (const hash of hashes) assert.equal((await remoteFilesWithHash(h, hash)).length, 1, 'not confirmed automatically');

    // The whole root emptied (a drive that went away): nothing is deleted, nothing recreated.
    const deletesBefore = h.proxy.count('DELETE', /private_files/);
    for (const name of fs.readdirSync(root)) fs.rmSync(path.join(root, name), { recursive: true, force: true });
    const status = await waitFor('the root reported', async () => {
      const current = await folderStatus(h);
      return current.state === 'root_empty' || current.state === 'root_missing' ? current : null;
    });
    assert.match(status.detail!, /Nothing is deleted/);
    await sleep(2500);
    await h.synced();
    assert.equal(h.proxy.count('DELETE', /private_files/), deletesBefore, 'no remote delete');
    assert.deepEqual(fs.readdirSync(root).filter((name) => !name.startsWith('.')), [], 'no folders made on what may be the wrong disk');
  });
});

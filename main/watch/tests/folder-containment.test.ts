// Issue 19, findings 4, 5 and 10: only regular files inside a real project folder are
// ever read, nothing is written through a link, and titles starting with a dot get
// visible names that round-trip. A real server, the fault proxy and a real agent
// with --folder on the real filesystem (main/core/testing/folder-harness.ts).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { FolderHarness } from '../../core/testing/folder-harness.ts';
import { makeTempDir } from '../../engine/testing/test-server.ts';
import { multipartBody, postMultipart } from '../../engine/testing/multipart-upload.ts';
import { folderOfProject, settleFolders, sleep, waitFor } from '../testing/folder-testing.ts';
import { folderStatus, localFilesWithHash, remoteFilesWithHash, sha256, startWithFolder } from '../../core/testing/folder-harness.ts';
import { apiPaths } from '../../../shared/api-paths.ts';

// Long enough for the test to swap a file for a link while the watcher still waits for it to be stable.
const WINDOW_MS = 1000;

describe('project folders: only real files in real folders are read', () => {
  let h: FolderHarness;
  let root: string;
  let outside: string;
  const logs: string[] = [];
  before(async () => {
    root = makeTempDir('solardesk-folders-contained-');
    outside = makeTempDir('solardesk-outside-');
    h = await startWithFolder(root, { stabilityWindowMs: WINDOW_MS, log: (line) => logs.push(line) });
  });
  after(async () => {
    await h.close();
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  });

  async function newProject(title: string): Promise<number> {
    const created = await h.remote('POST', '/api/orgs/1/projects/', { title });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    await settleFolders(h);
    return created.json.id as number;
  }

  async function attachOnRemote(projectId: number, title: string, contents: Buffer): Promise<void> {
    const added = await postMultipart(
      `${h.server.baseUrl}${apiPaths.privateFiles(1)}`,
      await h.server.tokenFor('admin@sunrise.example'),
      multipartBody({ title, project: String(projectId) }, { fileName: title, contents }),
    );
    assert.equal(added.status, 201);
  }

  async function assertNowhere(bytes: Buffer, what: string): Promise<void> {
    assert.equal((await localFilesWithHash(h, sha256(bytes))).length, 0, `${what} was not attached here`);
    assert.equal((await remoteFilesWithHash(h, sha256(bytes))).length, 0, `${what} did not reach the server`);
  }

  test('a dropped file replaced by a link to a file elsewhere within the stability window (mv -T) is refused, not read', async () => {
    const projectId = await newProject('Link swap');
    const folder = folderOfProject(root, projectId);
    const secret = Buffer.from('-----BEGIN OPENSSH PRIVATE KEY-----\nnot for the server\n');
    const secretFile = path.join(outside, 'id_ed25519');
    fs.writeFileSync(secretFile, secret);
    const dropped = Buffer.from('%PDF-1.4\nquote\n%%EOF\n');
    const target = path.join(folder, 'quote.pdf');
    fs.writeFileSync(target, dropped);
    const label = `${path.basename(folder)}/quote.pdf`;
    await waitFor('the drop to wait for stability', async () => (await h.agent.folders!.status()).files.some((file) => file.path === label && file.state === 'waiting'), 5000, 10);
    // What `mv -T link quote.pdf` does: a link made beside it, renamed over it in one step.
    const link = path.join(folder, '.quote.pdf.swap');
    fs.symlinkSync(secretFile, link);
    fs.renameSync(link, target);
    await sleep(WINDOW_MS * 3);
    await settleFolders(h);

    await assertNowhere(secret, 'the file the link points to');
    assert.equal((await localFilesWithHash(h, sha256(dropped))).length, 0, 'the swap happened before the drop became stable');
    const refused = (await folderStatus(h)).refused?.find((entry) => entry.path === label);
    assert.ok(refused, 'the status lists the refusal');
    assert.match(refused.reason, /link/);
  });

  test('a project folder replaced by a link to another folder: nothing in that folder is read, nothing is written into it', async () => {
    const projectId = await newProject('Vault');
    const folder = folderOfProject(root, projectId);
    const elsewhere = path.join(outside, 'home');
    fs.mkdirSync(elsewhere);
    const secrets = { id_rsa: Buffer.from('-----BEGIN RSA PRIVATE KEY-----\nsecret\n'), 'payroll.csv': Buffer.from('name,salary\nAlex,123456\n') };
    for (const [name, bytes] of Object.entries(secrets)) fs.writeFileSync(path.join(elsewhere, name), bytes);
    fs.rmSync(folder, { recursive: true });
    fs.symlinkSync(elsewhere, folder, 'dir');
    await sleep(WINDOW_MS * 3);
    await settleFolders(h);
    const arriving = Buffer.from('attached on the remote, for the Vault project');
    await attachOnRemote(projectId, 'Arrival.txt', arriving);
    await settleFolders(h);
    await sleep(WINDOW_MS * 2);
    await settleFolders(h);

    for (const [name, bytes] of Object.entries(secrets)) await assertNowhere(bytes, name);
    assert.deepEqual(fs.readdirSync(elsewhere).sort(), Object.keys(secrets).sort(), 'nothing was written into the folder the link points to');
    assert.ok(fs.lstatSync(folder).isSymbolicLink(), 'the link is left as it is');
    const refused = (await folderStatus(h)).refused?.find((entry) => entry.path === `${path.basename(folder)}/`);
    assert.ok(refused, 'the status lists the refused folder');
    assert.match(refused.reason, /link/);
  });

  test('titles starting with a dot, or climbing out, get visible folders and files inside the root that round-trip', async () => {
    const dotProject = await newProject('.solardesk');
    const climbingProject = await newProject('../../outside');
    const notes = Buffer.from('API_KEY is in the vault, not here\n');
    await attachOnRemote(dotProject, '.env-notes', notes);
    await settleFolders(h);
    const logsBefore = logs.length;
    await sleep(3000); // six reconcile passes (every 500 ms)
    await settleFolders(h);

    for (const projectId of [dotProject, climbingProject]) {
      const lostAgain = logs.slice(logsBefore).filter((line) => line.includes(`folder of project ${projectId} is now`));
      assert.deepEqual(lostAgain, [], 'the folder is not believed lost, cycle after cycle');
      const folder = folderOfProject(root, projectId);
      assert.equal(path.dirname(folder), root, 'inside the root');
      assert.doesNotMatch(path.basename(folder), /^[.]|[. ]$/, 'a visible name');
    }
    assert.equal(path.basename(folderOfProject(root, dotProject)), `_solardesk (${dotProject})`);
    assert.equal(path.basename(folderOfProject(root, climbingProject)), `_outside (${climbingProject})`);
    assert.deepEqual(fs.readdirSync(root).filter((name) => name.startsWith('.')), ['.solardesk'], 'no hidden folder but the agent\'s own');

    const folder = folderOfProject(root, dotProject);
    const arrived = await waitFor('the arrival', () => fs.readdirSync(folder).find((name) => fs.readFileSync(path.join(folder, name)).equals(notes)));
    assert.equal(arrived, '_env-notes', 'a visible name');
    const status = await folderStatus(h);
    assert.ok(!status.ignored.some((entry) => entry.path.startsWith(path.basename(folder))), 'nothing in the folder is ignored');
    assert.equal((await remoteFilesWithHash(h, sha256(notes))).length, 1, 'not uploaded back');
    assert.equal((await localFilesWithHash(h, sha256(notes))).length, 1);

    // Not ignored: an edit is attached (as a new version) like any other file's.
    const edited = Buffer.from('API_KEY moved to the office vault\n');
    fs.writeFileSync(path.join(folder, arrived), edited);
    await waitFor('the edit attached', async () => (await localFilesWithHash(h, sha256(edited))).length === 1, 20_000);
    await settleFolders(h);
    assert.equal((await remoteFilesWithHash(h, sha256(edited))).length, 1, 'the edit reached the server once');
  });
});

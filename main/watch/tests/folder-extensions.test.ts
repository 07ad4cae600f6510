// Folder copies keep extensions (issue 14), synced: a real server, a real agent with
// --folder on the real filesystem. The replica knows a remote file only by its title
// (typed octet-stream) until its bytes arrive, so what a nameless file is comes from
// its bytes: real JPEG, PNG and PDF bytes made here.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import type { FolderHarness } from '../../core/testing/folder-harness.ts';
import { makeTempDir } from '../../engine/testing/test-server.ts';
import { multipartBody, postMultipart } from '../../engine/testing/multipart-upload.ts';
import { folderOfProject, settleFolders, waitFor } from '../testing/folder-testing.ts';
import { sha256, startWithFolder, type Json } from '../../core/testing/folder-harness.ts';
import { apiPaths } from '../../../shared/api-paths.ts';

const jpeg = () => sharp({ create: { width: 16, height: 16, channels: 3, background: '#8ec5ff' } }).jpeg().toBuffer();
const png = () => sharp({ create: { width: 16, height: 16, channels: 4, background: '#f2a900' } }).png().toBuffer();
const pdf = () => Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');

describe('project folders, synced: folder copies keep extensions', () => {
  let h: FolderHarness;
  let root: string;
  before(async () => {
    root = makeTempDir('solardesk-folder-names-');
    h = await startWithFolder(root);
  });
  after(async () => {
    await h.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  const attachOnRemote = async (projectId: number, title: string, fileName: string, contents: Buffer): Promise<Json> => {
    const added = await postMultipart(
      `${h.server.baseUrl}${apiPaths.privateFiles(1)}`,
      await h.server.tokenFor('admin@sunrise.example'),
      multipartBody({ title, project: String(projectId) }, { fileName, contents }),
    );
    assert.equal(added.status, 201);
    return added.json as Json;
  };

  test('the demo files already attached arrived named by title with their extension ("Roof, north face.jpg")', async () => {
    const remote = ((await h.remote('GET', '/api/orgs/1/private_files/?limit=1000')).json as Json[]).filter((file) => file.project);
    const photo = remote.find((file) => file.title === 'Roof, north face')!;
    const folder = folderOfProject(root, Number(/\/projects\/(\d+)\/$/.exec(photo.project)![1]));
    const named = fs.readdirSync(folder).find((name) => sha256(fs.readFileSync(path.join(folder, name))) === photo.file_hash);
    assert.equal(named, 'Roof, north face.jpg');
  });

  test('files attached on the remote arrive with the extension of what they are; a fitting one stays; a clash keeps it too', async () => {
    const folder = folderOfProject(root, 14);
    fs.writeFileSync(path.join(folder, 'Site plan.pdf'), 'a different local file of that name');
    await settleFolders(h);
    const [photo, chart, contract, plan, upper] = [await jpeg(), await png(), pdf(), Buffer.concat([pdf(), Buffer.from('plan')]), Buffer.concat([pdf(), Buffer.from('upper')])];
    await attachOnRemote(14, 'Roof, south face', 'IMG_2291', photo);
    await attachOnRemote(14, 'Output chart', 'chart', chart);
    await attachOnRemote(14, 'Contract', 'contract.pdf', contract);
    await attachOnRemote(14, 'Site plan.pdf', 'Site plan.pdf', plan);
    await attachOnRemote(14, 'report.PDF', 'report.PDF', upper);
    await settleFolders(h);
    const expected = new Map([
      ['Roof, south face.jpg', photo],
      ['Output chart.png', chart],
      ['Contract.pdf', contract],
      ['Site plan (2).pdf', plan],
      ['report.PDF', upper],
    ]);
    await waitFor('every arrival', () => [...expected.keys()].every((name) => fs.existsSync(path.join(folder, name))));
    for (const [name, bytes] of expected) assert.ok(fs.readFileSync(path.join(folder, name)).equals(bytes), name);
    assert.equal(fs.readFileSync(path.join(folder, 'Site plan.pdf'), 'utf8'), 'a different local file of that name', 'never written over');
    const withoutExtension = fs.readdirSync(folder).filter((name) => !/\.[a-z]{3,4}$/i.test(name));
    assert.deepEqual(withoutExtension, [], 'every file in the folder has an extension');
  });
});

// Downloads into project folders never replace a different file (names: main/watch/folder-names.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { makeTempDir } from '../engine/testing/test-server.ts';
import { saveIntoProjectFolder, saveWithoutOverwriting } from './project-folders.ts';

test('a download never replaces a different file, and the same bytes are not saved twice', async () => {
  const folder = makeTempDir('solardesk-folder-');
  try {
    const first = await saveWithoutOverwriting(folder, 'photo.jpg', new Uint8Array([1, 2, 3]));
    assert.equal(first, path.join(folder, 'photo.jpg'));
    assert.equal(await saveWithoutOverwriting(folder, 'photo.jpg', new Uint8Array([1, 2, 3])), first);
    const second = await saveWithoutOverwriting(folder, 'photo.jpg', new Uint8Array([4, 5]));
    assert.equal(second, path.join(folder, 'photo (2).jpg'));
    assert.deepEqual([...fs.readFileSync(first)], [1, 2, 3]);
    assert.deepEqual(fs.readdirSync(folder).sort(), ['photo (2).jpg', 'photo.jpg']);
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
});

test('a project folder that is a link to another folder is not saved into, and a link in the folder is not taken for the file', async () => {
  const root = makeTempDir('solardesk-folder-');
  const elsewhere = makeTempDir('solardesk-elsewhere-');
  try {
    const linked = path.join(root, 'Vault (7)');
    fs.symlinkSync(elsewhere, linked, 'dir');
    await assert.rejects(saveIntoProjectFolder(linked, 'plan.pdf', new Uint8Array([1])), /is a link to another folder/);
    assert.deepEqual(fs.readdirSync(elsewhere), [], 'nothing written where the link points');

    const real = path.join(root, 'Roof (8)');
    fs.writeFileSync(path.join(elsewhere, 'secret'), new Uint8Array([1, 2, 3]));
    fs.mkdirSync(real);
    fs.symlinkSync(path.join(elsewhere, 'secret'), path.join(real, 'photo.jpg'));
    const saved = await saveIntoProjectFolder(real, 'photo.jpg', new Uint8Array([1, 2, 3]));
    assert.equal(saved, path.join(real, 'photo (2).jpg'), 'saved beside the link, not "already there" because of it');
    assert.ok(fs.lstatSync(saved).isFile());
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(elsewhere, { recursive: true, force: true });
  }
});

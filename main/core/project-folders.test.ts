// Downloads into project folders never replace a different file (names: main/watch/tests/folder-names.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { makeTempDir } from '../engine/testing/test-server.ts';
import { saveWithoutOverwriting } from './project-folders.ts';

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

// Project folders: names valid on every OS, and downloads that never replace a different file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { makeTempDir } from '../engine/testing/test-server.ts';
import { projectFolderName, safeFileName, saveWithoutOverwriting } from './project-folders.ts';

test('names lose what Windows refuses, keep what people wrote, and never end up empty or reserved', () => {
  assert.equal(safeFileName('Roof: north/south? "final"*.pdf', 'x'), 'Roof north south final .pdf');
  assert.equal(safeFileName('bill\u0000\u001f.pdf', 'x'), 'bill .pdf');
  assert.equal(safeFileName('CON', 'x'), '_CON');
  assert.equal(safeFileName('trailing dots...', 'x'), 'trailing dots');
  assert.equal(safeFileName('???', 'fallback'), 'fallback');
  assert.equal(projectFolderName({ id: 12, title: '21 Victoria Pde, Sandy Bay', identifier: 'SD-1' }), '21 Victoria Pde, Sandy Bay (12)');
  assert.equal(projectFolderName({ id: 3, title: '', identifier: 'SD-3' }), 'SD-3 (3)');
});

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

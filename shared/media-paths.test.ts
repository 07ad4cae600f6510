import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mediaPaths, parseMediaPath } from './media-paths.ts';

const hash = 'ab'.repeat(32);

test('media paths read back what they were built from, and nothing else', () => {
  assert.deepEqual(parseMediaPath(mediaPaths.thumbnail(hash)), { kind: 'thumbnail', sha256: hash });
  assert.deepEqual(parseMediaPath(mediaPaths.file(42, hash)), { kind: 'file', fileId: 42 });
  assert.deepEqual(parseMediaPath(mediaPaths.file(42, null)), { kind: 'file', fileId: 42 });
  for (const refused of ['/media/thumbnails/../../etc/passwd', `/media/thumbnails/${hash.toUpperCase()}`, '/media/files/0', '/media/files/-1', '/media/files/1/../2', '/api/orgs/1/', '/media/']) {
    assert.equal(parseMediaPath(refused), null, refused);
  }
});

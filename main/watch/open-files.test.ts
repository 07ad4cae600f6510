// The open-descriptor check eviction and new remote contents rely on (issue 35): real
// files, real descriptors of this process, the real /proc; and the fallback where
// descriptors cannot be listed (a /proc that is not there).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { makeTempDir } from '../engine/testing/test-server.ts';
import { filesOpenForWriting, OpenFileCheck, RECENTLY_CHANGED_MS } from './open-files.ts';

test('a file open for writing is listed; one open only for reading, or closed, is not', { skip: process.platform !== 'linux' && 'lists /proc' }, async () => {
  const dir = makeTempDir('solardesk-open-files-');
  try {
    const written = path.join(dir, 'written.txt');
    const read = path.join(dir, 'read.txt');
    fs.writeFileSync(written, 'a');
    fs.writeFileSync(read, 'b');
    const writing = fs.openSync(written, 'r+');
    const reading = fs.openSync(read, 'r');
    const open = await filesOpenForWriting(fs.realpathSync(dir));
    fs.closeSync(writing);
    fs.closeSync(reading);
    assert.ok(open?.has(fs.realpathSync(written)), 'open read-write');
    assert.equal(open?.has(fs.realpathSync(read)), false, 'open read-only cannot save');
    assert.equal((await filesOpenForWriting(fs.realpathSync(dir)))?.has(fs.realpathSync(written)), false, 'closed');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('where descriptors cannot be listed, a file changed in the last minutes counts as open', async () => {
  const dir = makeTempDir('solardesk-open-files-');
  try {
    assert.equal(await filesOpenForWriting(dir, path.join(dir, 'no-proc')), null);
    const now = Date.parse('2026-03-01T12:00:00Z');
    const check = new OpenFileCheck(() => now, () => filesOpenForWriting(dir, path.join(dir, 'no-proc')));
    assert.equal(await check.mayBeWritten('x', { mtimeMs: now - 1000, ctimeMs: now - 1000 }), true);
    assert.equal(await check.mayBeWritten('x', { mtimeMs: now - RECENTLY_CHANGED_MS - 1, ctimeMs: now - RECENTLY_CHANGED_MS - 1 }), false);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

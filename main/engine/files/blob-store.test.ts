// The folder blob store on a real file root: temp files, and adopting several
// received files with one write. No mocks: a real SQLite store, real files.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { makeTempDir } from '../testing/test-server.ts';
import { openSqliteStore } from '../store/database.ts';
import { blobPath, FolderBlobs, receiveBuffer, receiveToTempFile, tempDir } from './blob-store.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const roots: string[] = [];
after(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true });
});

function fileRoot(): string {
  const root = makeTempDir('solardesk-blobs-');
  roots.push(root);
  return root;
}

test('a temp folder removed after its first file is made again for the next one, streamed or written whole', async () => {
  const root = fileRoot();
  const first = await receiveToTempFile(root, Readable.from([Buffer.from('first')]), 1024, 'test');
  assert.equal(fs.readFileSync(first.tempPath, 'utf8'), 'first');

  // Removed behind the store's back (a cleaner of temp folders, or by hand).
  fs.rmSync(tempDir(root), { recursive: true });
  const streamed = await receiveToTempFile(root, Readable.from([Buffer.from('streamed')]), 1024, 'test');
  assert.equal(fs.readFileSync(streamed.tempPath, 'utf8'), 'streamed');
  assert.equal(streamed.sha256, sha256('streamed'));

  fs.rmSync(tempDir(root), { recursive: true });
  const whole = await receiveBuffer(root, Buffer.from('written whole, in one write'), 'test');
  assert.equal(fs.readFileSync(whole.tempPath, 'utf8'), 'written whole, in one write');
  assert.equal(whole.sha256, sha256('written whole, in one write'));
  assert.equal(whole.size, Buffer.byteLength('written whole, in one write'));
  assert.equal(whole.head.toString(), 'written whole, i', 'the first bytes, to recognise the type');
  if (process.platform !== 'win32') {
    assert.equal(fs.statSync(tempDir(root)).mode & 0o777, 0o700, 'made again private');
    assert.equal(fs.statSync(whole.tempPath).mode & 0o777, 0o600);
  }
  assert.notEqual(streamed.tempPath, whole.tempPath);
});

test('several received files are adopted with one write: each contents once, and none is left when the write fails', async () => {
  const root = fileRoot();
  const store = await openSqliteStore(root);
  try {
    const blobs = new FolderBlobs(store.db, root, false);
    const received = await Promise.all(['roof plan', 'site photo', 'roof plan'].map((text) => receiveBuffer(root, Buffer.from(text), 'test')));
    let persisted = 0;
    const result = await blobs.adoptAll(received, async () => {
      persisted++;
      // Every blob is in place before the write that names them.
      for (const file of received) assert.ok(fs.existsSync(blobPath(root, file.sha256)));
      return 'written';
    });
    assert.equal(result, 'written');
    assert.equal(persisted, 1);
    assert.equal(fs.readFileSync(blobPath(root, sha256('site photo')), 'utf8'), 'site photo');
    assert.ok(!fs.existsSync(received[1]!.tempPath), 'an adopted copy is gone');
    const left = [received[0]!, received[2]!].filter((file) => fs.existsSync(file.tempPath));
    assert.equal(left.length, 1, 'the same contents twice: adopted once, the other copy stays with the caller');

    const failing = await Promise.all(['survey', 'quote'].map((text) => receiveBuffer(root, Buffer.from(text), 'test')));
    await assert.rejects(
      blobs.adoptAll(failing, async () => {
        throw new Error('the write failed');
      }),
      /the write failed/,
    );
    for (const file of failing) {
      assert.ok(!fs.existsSync(blobPath(root, file.sha256)), 'a blob no row names is removed again');
      assert.ok(!fs.existsSync(file.tempPath));
    }
  } finally {
    await store.close();
  }
});

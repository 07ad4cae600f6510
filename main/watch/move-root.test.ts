// Moving the folder root (issue 28, item 1) on the real filesystem: a rename on one
// disk, a checked copy across two (the tmpfs at /dev/shm beside the temp folder's
// disk), a refusal that moves nothing, and a move that fails part way putting back
// everything it had moved.
import { type TestContext, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeTempDir } from '../engine/testing/test-server.ts';
import { FolderMoveError, moveFolderRoot, type MoveProgress } from './move-root.ts';

/** A root as the app leaves it: project folders with files, the embedded store's folder, the agent's dot-folder. */
function makeRoot(root: string): Map<string, string> {
  const files = new Map<string, string>([
    ['12 Smith St (7)/site plan.pdf', 'a site plan'],
    ['12 Smith St (7)/roof.jpg', 'x'.repeat(70_000)],
    ['Glenelg (20)/quote.txt', 'a quote'],
    ['On this computer/Demo (3)/notes.txt', 'local notes'],
    ['.solardesk/owner.json', '{"mode":"synced"}'],
  ]);
  for (const [name, text] of files) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), text);
  }
  // An old modification time: the watcher knows a file by size and mtime, so a copy must keep it.
  fs.utimesSync(path.join(root, '12 Smith St (7)/roof.jpg'), new Date('2024-03-01T10:00:00Z'), new Date('2024-03-01T10:00:00Z'));
  return files;
}

function readTree(root: string): Map<string, string> {
  const found = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else found.set(path.relative(root, full), fs.readFileSync(full, 'utf8'));
    }
  };
  if (fs.existsSync(root)) walk(root);
  return found;
}

const otherDisk = () => {
  const shm = '/dev/shm';
  if (!fs.existsSync(shm) || fs.statSync(shm).dev === fs.statSync(os.tmpdir()).dev) return null;
  return fs.mkdtempSync(path.join(shm, 'solardesk-move-'));
};

/** Runs `use` with a made root on the temp disk and a target on another disk; skipped where there is none. */
async function acrossDisks(t: TestContext, use: (from: string, to: string, files: Map<string, string>) => Promise<void>): Promise<void> {
  const other = otherDisk();
  if (!other) return t.skip('no second filesystem at /dev/shm here');
  const base = makeTempDir('solardesk-move-');
  try {
    const from = path.join(base, 'SolarDesk');
    await use(from, path.join(other, 'SolarDesk'), makeRoot(from));
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
    fs.rmSync(other, { recursive: true, force: true });
  }
}

test('on one disk, the folders are renamed into the new root with their files, inodes and all', async () => {
  const base = makeTempDir('solardesk-move-');
  try {
    const from = path.join(base, 'SolarDesk');
    const to = path.join(base, 'Documents', 'Projects');
    const files = makeRoot(from);
    const inode = fs.statSync(path.join(from, '12 Smith St (7)/roof.jpg')).ino;
    const progress: MoveProgress[] = [];
    const result = await moveFolderRoot(from, to, (step) => progress.push(step));
    assert.deepEqual(readTree(to), files);
    assert.deepEqual(readTree(from), new Map(), 'nothing left behind');
    assert.equal(result.copied, false);
    assert.equal(result.files, files.size);
    assert.equal(fs.statSync(path.join(to, '12 Smith St (7)/roof.jpg')).ino, inode, 'renamed, not copied');
    assert.deepEqual(progress.at(-1), { files: files.size, totalFiles: files.size, bytes: result.bytes, totalBytes: result.bytes });
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
});

test('across disks, each file is copied, checked and given its modification time before the original goes', (t) =>
  acrossDisks(t, async (from, to, files) => {
    const mtime = fs.statSync(path.join(from, '12 Smith St (7)/roof.jpg')).mtimeMs;
    const progress: MoveProgress[] = [];
    const result = await moveFolderRoot(from, to, (step) => progress.push(step));
    assert.equal(result.copied, true);
    assert.deepEqual(readTree(to), files);
    assert.deepEqual(readTree(from), new Map());
    assert.equal(fs.statSync(path.join(to, '12 Smith St (7)/roof.jpg')).mtimeMs, mtime);
    // Progress went file by file, up to all of them.
    assert.deepEqual(progress.map((step) => step.files), [0, 1, 2, 3, 4, 5]);
  }));

test('a name already taken in the new root, or one root inside the other, moves nothing and says why', async () => {
  const base = makeTempDir('solardesk-move-');
  try {
    const from = path.join(base, 'SolarDesk');
    const to = path.join(base, 'Elsewhere');
    const files = makeRoot(from);
    fs.mkdirSync(path.join(to, 'Glenelg (20)'), { recursive: true });
    await assert.rejects(moveFolderRoot(from, to), (error: Error) => error instanceof FolderMoveError && /already has "Glenelg \(20\)".*nothing was moved/.test(error.message));
    await assert.rejects(moveFolderRoot(from, path.join(from, 'inner')), /inside the current folder/);
    await assert.rejects(moveFolderRoot(from, base), /is inside/);
    assert.deepEqual(readTree(from), files);
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
});

test('a move that fails part way puts back what it moved, and loses nothing', (t) =>
  acrossDisks(t, async (from, to, files) => {
    // Real files on real disks; the failure is the caller's progress callback throwing at the fourth file,
    // which is where a full disk or a pulled drive would stop a copy.
    const failing = (step: MoveProgress) => {
      if (step.files === 4) throw new Error('the disk is full');
    };
    await assert.rejects(moveFolderRoot(from, to, failing), (error: Error) => error instanceof FolderMoveError && /the disk is full.*Everything is back in .*nothing was deleted/s.test(error.message));
    assert.deepEqual(readTree(from), files, 'every file back where it was, with its bytes');
    assert.deepEqual(readTree(to), new Map(), 'no half copy left in the new root');
  }));

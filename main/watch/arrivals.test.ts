// Writing into project folders (arrivals and downloads) never replaces a different
// file, never writes through a link, and does not save the same bytes twice.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { makeTempDir } from '../engine/testing/test-server.ts';
import { agentEvictedDir, HELD_EVICTED_DAYS, moveToTrash, placeArrival, purgeHeldEvicted, saveDownload } from './arrivals.ts';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

test('a download never replaces a different file, and the same bytes are not saved twice', async () => {
  const root = makeTempDir('solardesk-folder-');
  try {
    const folder = path.join(root, 'Roof (1)');
    fs.mkdirSync(folder);
    const first = await saveDownload(root, folder, 'photo.jpg', new Uint8Array([1, 2, 3]));
    assert.equal(first, path.join(folder, 'photo.jpg'));
    assert.equal(await saveDownload(root, folder, 'photo.jpg', new Uint8Array([1, 2, 3])), first);
    const second = await saveDownload(root, folder, 'photo.jpg', new Uint8Array([4, 5]));
    assert.equal(second, path.join(folder, 'photo (2).jpg'));
    assert.equal(await saveDownload(root, folder, 'photo.jpg', new Uint8Array([4, 5])), second, 'found again under its "(2)" name');
    assert.deepEqual([...fs.readFileSync(first)], [1, 2, 3]);
    assert.deepEqual(fs.readdirSync(folder).sort(), ['photo (2).jpg', 'photo.jpg'], 'no temp file is left in the folder');
    // Files of no project go into the root itself.
    assert.equal(await saveDownload(root, root, 'Price list.pdf', new Uint8Array([9])), path.join(root, 'Price list.pdf'));
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('a project folder that is a link to another folder is not written into, and a link in the folder is not taken for the file', async () => {
  const root = makeTempDir('solardesk-folder-');
  const elsewhere = makeTempDir('solardesk-elsewhere-');
  try {
    const linked = path.join(root, 'Vault (7)');
    fs.symlinkSync(elsewhere, linked, 'dir');
    await assert.rejects(saveDownload(root, linked, 'plan.pdf', new Uint8Array([1])), /is a link to another folder/);
    const blob = path.join(root, 'blob');
    fs.writeFileSync(blob, new Uint8Array([1]));
    await assert.rejects(placeArrival(root, linked, 'plan.pdf', blob, sha256(new Uint8Array([1])), () => false), /is a link to another folder/);
    assert.deepEqual(fs.readdirSync(elsewhere), [], 'nothing written where the link points');

    const real = path.join(root, 'Roof (8)');
    fs.writeFileSync(path.join(elsewhere, 'secret'), new Uint8Array([1, 2, 3]));
    fs.mkdirSync(real);
    fs.symlinkSync(path.join(elsewhere, 'secret'), path.join(real, 'photo.jpg'));
    const saved = await saveDownload(root, real, 'photo.jpg', new Uint8Array([1, 2, 3]));
    assert.equal(saved, path.join(real, 'photo (2).jpg'), 'saved beside the link, not "already there" because of it');
    assert.ok(fs.lstatSync(saved).isFile());
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(elsewhere, { recursive: true, force: true });
  }
});

test('an arrival takes the next free name, skips names the caller claims, and recognises its own bytes', async () => {
  const root = makeTempDir('solardesk-folder-');
  try {
    const folder = path.join(root, 'Roof (1)');
    fs.mkdirSync(folder);
    const bytes = new Uint8Array([7, 7, 7]);
    const blob = path.join(root, 'blob');
    fs.writeFileSync(blob, bytes);
    fs.writeFileSync(path.join(folder, 'plan.pdf'), 'another file');
    const placed = await placeArrival(root, folder, 'plan.pdf', blob, sha256(bytes), () => false);
    assert.deepEqual([placed.name, placed.wasThere], ['plan (2).pdf', false]);
    assert.equal(fs.readFileSync(path.join(folder, 'plan.pdf'), 'utf8'), 'another file', 'never replaced');
    const again = await placeArrival(root, folder, 'plan.pdf', blob, sha256(bytes), () => false);
    assert.deepEqual([again.name, again.wasThere], ['plan (2).pdf', true]);
    const claimed = await placeArrival(root, folder, 'plan.pdf', blob, sha256(bytes), (key) => key === 'plan (2).pdf');
    assert.deepEqual([claimed.name, claimed.wasThere], ['plan (3).pdf', false], 'a claimed name is not "already there" for another file');
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('evicted copies are held 30 days in .solardesk/evicted/<day>/, then their day folder goes (issue 35)', async () => {
  const root = makeTempDir('solardesk-held-evicted-');
  try {
    // The clock is faked: days pass without waiting.
    let now = Date.parse('2026-03-01T10:00:00Z');
    const clock = { now: () => new Date(now) };
    const folder = path.join(root, 'Project (1)');
    fs.mkdirSync(folder);
    fs.writeFileSync(path.join(folder, 'plan.pdf'), 'plan bytes');
    const held = await moveToTrash(root, path.join(folder, 'plan.pdf'), 'Project (1)', clock, agentEvictedDir(root));
    assert.equal(path.relative(root, held), path.join('.solardesk', 'evicted', '2026-03-01', 'Project (1)', 'plan.pdf'));
    assert.equal(fs.readFileSync(held, 'utf8'), 'plan bytes');
    now += HELD_EVICTED_DAYS * 86_400_000;
    assert.equal(await purgeHeldEvicted(root, clock), 0, 'kept for the whole 30 days');
    assert.ok(fs.existsSync(held));
    now += 86_400_000;
    assert.equal(await purgeHeldEvicted(root, clock), 1);
    assert.equal(fs.existsSync(held), false);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

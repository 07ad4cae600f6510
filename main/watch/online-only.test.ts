// The "Online only" list in a project folder on the real filesystem: written,
// rewritten only when it changes, removed when empty, and never over a file
// SolarDesk did not write.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { makeTempDir } from '../engine/testing/test-server.ts';
import { ONLINE_ONLY_FILE_NAME, ONLINE_ONLY_MARKER, ONLINE_ONLY_NOTES_NAME, formatBytes, isOnlineOnlyListing, updateOnlineOnly } from './online-only.ts';
import { ignoreReason } from './folder-names.ts';

describe('the Online only list', () => {
  let root: string;
  let folder: string;
  before(() => {
    root = makeTempDir('solardesk-online-only-');
    folder = path.join(root, 'Project (1)');
    fs.mkdirSync(folder);
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));
  const listing = () => path.join(folder, ONLINE_ONLY_FILE_NAME);

  test('is written with the marker, the titles and sizes; rewritten only when it changes; removed when empty', async () => {
    assert.equal((await updateOnlineOnly(root, folder, [{ id: 1, title: 'Site plan', filesize: 2_500_000 }])).outcome, 'written');
    const text = fs.readFileSync(listing(), 'utf8');
    assert.ok(text.startsWith(`${ONLINE_ONLY_MARKER}\n`));
    assert.match(text, /- Site plan {2}\(2\.4 MB\)/);
    const before = fs.statSync(listing());
    assert.equal((await updateOnlineOnly(root, folder, [{ id: 1, title: 'Site plan', filesize: 2_500_000 }])).outcome, 'unchanged');
    assert.equal(fs.statSync(listing()).ino, before.ino);
    assert.equal((await updateOnlineOnly(root, folder, [{ id: 1, title: 'Site plan', filesize: 2_500_000 }, { id: 2, title: '', filesize: null }])).outcome, 'written');
    assert.match(fs.readFileSync(listing(), 'utf8'), /- file 2 {2}\(size unknown\)/);
    assert.equal((await updateOnlineOnly(root, folder, [])).outcome, 'removed');
    assert.equal(fs.existsSync(listing()), false);
    assert.equal((await updateOnlineOnly(root, folder, [])).outcome, 'absent');
    assert.deepEqual(fs.readdirSync(path.join(root, '.solardesk', 'tmp')), [], 'no temp file left');
  });

  test('text typed into the listing moves to a notes file beside it before the listing changes or goes (issue 35)', async () => {
    assert.equal((await updateOnlineOnly(root, folder, [{ id: 1, title: 'Site plan', filesize: 10 }])).outcome, 'written');
    assert.match(fs.readFileSync(listing(), 'utf8'), /keeps no text of yours/);
    const typed = `${fs.readFileSync(listing(), 'utf8')}\ncall the roofer about the plan\n`;
    fs.writeFileSync(listing(), typed);
    const changed = await updateOnlineOnly(root, folder, [{ id: 1, title: 'Site plan', filesize: 10 }, { id: 2, title: 'Permit', filesize: 20 }]);
    assert.deepEqual(changed, { outcome: 'written', notesKeptIn: ONLINE_ONLY_NOTES_NAME });
    assert.equal(fs.readFileSync(path.join(folder, ONLINE_ONLY_NOTES_NAME), 'utf8'), typed);
    fs.appendFileSync(listing(), 'and a second note\n');
    const removed = await updateOnlineOnly(root, folder, []);
    assert.equal(removed.outcome, 'removed');
    assert.match(fs.readFileSync(path.join(folder, removed.notesKeptIn!), 'utf8'), /and a second note/);
    assert.notEqual(removed.notesKeptIn, ONLINE_ONLY_NOTES_NAME, 'the earlier notes are not written over');
    assert.equal(fs.readFileSync(path.join(folder, ONLINE_ONLY_NOTES_NAME), 'utf8'), typed);
    for (const name of fs.readdirSync(folder)) fs.rmSync(path.join(folder, name));
  });

  test('a listing under another name is recognised by its first line (never attached)', async () => {
    assert.equal((await updateOnlineOnly(root, folder, [{ id: 1, title: 'Site plan', filesize: 10 }])).outcome, 'written');
    const renamed = path.join(folder, 'renamed list.txt');
    fs.renameSync(listing(), renamed);
    const looksLikeListing = async () => {
      const handle = await fsp.open(renamed, 'r');
      try {
        return await isOnlineOnlyListing(handle, (await handle.stat()).size);
      } finally {
        await handle.close();
      }
    };
    assert.equal(await looksLikeListing(), true);
    fs.writeFileSync(renamed, 'a plain note');
    assert.equal(await looksLikeListing(), false);
    fs.rmSync(renamed);
  });

  test('a file of that name the user made is never written over or removed', async () => {
    fs.writeFileSync(listing(), 'my own list');
    assert.equal((await updateOnlineOnly(root, folder, [{ id: 1, title: 'Site plan', filesize: 10 }])).outcome, 'not_ours');
    assert.equal((await updateOnlineOnly(root, folder, [])).outcome, 'not_ours');
    assert.equal(fs.readFileSync(listing(), 'utf8'), 'my own list');
    fs.rmSync(listing());
  });

  test('a link of that name is not followed: its target stays as it was', async () => {
    const target = path.join(root, 'elsewhere.txt');
    fs.writeFileSync(target, `${ONLINE_ONLY_MARKER}\nsomeone else's`);
    fs.symlinkSync(target, listing());
    assert.equal((await updateOnlineOnly(root, folder, [{ id: 1, title: 'Site plan', filesize: 10 }])).outcome, 'not_ours');
    assert.equal(fs.readFileSync(target, 'utf8'), `${ONLINE_ONLY_MARKER}\nsomeone else's`);
    fs.rmSync(listing());
  });

  test('the watcher ignores exactly that name, in any case', () => {
    assert.ok(ignoreReason(ONLINE_ONLY_FILE_NAME));
    assert.ok(ignoreReason(ONLINE_ONLY_FILE_NAME.toUpperCase()));
    assert.equal(ignoreReason('Online only.txt'), null);
    assert.equal(formatBytes(1023), '1023 B');
  });
});

// Which store a folder root belongs to (<root>/.solardesk/owner.json), on the real
// filesystem: claimed by the first, kept for the same store, refused to another
// with why and what to do; and where each mode keeps its project folders.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { makeTempDir } from '../engine/testing/test-server.ts';
import { claimFolderRoot, EMBEDDED_WORKSPACE_FOLDER, type FolderOwner, OWNER_FILE, workspaceFolderRoot } from './folder-session.ts';

const base = makeTempDir('solardesk-folder-owner-');
after(() => fs.rmSync(base, { recursive: true, force: true }));

const synced: FolderOwner = { mode: 'synced', remote_url: 'https://solar.example', data_dir: null };

test('the embedded store keeps its folders in "On this computer"; a synced workspace in the root itself', () => {
  assert.equal(workspaceFolderRoot('embedded', '/home/ana/SolarDesk'), path.resolve('/home/ana/SolarDesk', EMBEDDED_WORKSPACE_FOLDER));
  assert.equal(workspaceFolderRoot('synced', '/home/ana/SolarDesk'), path.resolve('/home/ana/SolarDesk'));
});

test('a root is claimed by the first store, kept for it, and refused to another with why and what to do', () => {
  const root = path.join(base, 'SolarDesk');
  assert.equal(claimFolderRoot(root, root, synced), null);
  const recorded = JSON.parse(fs.readFileSync(path.join(root, '.solardesk', OWNER_FILE), 'utf8')) as FolderOwner;
  assert.deepEqual(recorded, synced);
  assert.equal(claimFolderRoot(root, root, { ...synced }), null, 'the same store again');
  const otherRemote = claimFolderRoot(root, root, { ...synced, remote_url: 'https://other.example' });
  assert.match(otherRemote ?? '', /holds the project folders of the remote https:\/\/solar\.example/);
  assert.match(otherRemote ?? '', /Choose another folder root in Settings/);

  // The embedded store's folder inside it has an owner of its own.
  const embedded: FolderOwner = { mode: 'embedded', remote_url: null, data_dir: path.join(base, 'data') };
  const local = workspaceFolderRoot('embedded', root);
  assert.equal(claimFolderRoot(root, local, embedded), null);
  assert.match(claimFolderRoot(root, local, { ...embedded, data_dir: path.join(base, 'other-data') }) ?? '', /the store on this computer in .*data/);
});

test('a root whose parent is missing (a drive not connected) is neither made nor claimed', () => {
  const root = path.join(base, 'not-mounted', 'drive', 'SolarDesk');
  assert.equal(claimFolderRoot(root, root, synced), null);
  assert.equal(fs.existsSync(root), false);
  // A first start: the root does not exist yet, its parent does: made, with the owner recorded.
  const fresh = path.join(base, 'fresh');
  assert.equal(claimFolderRoot(fresh, workspaceFolderRoot('embedded', fresh), { mode: 'embedded', remote_url: null, data_dir: '/d' }), null);
  assert.ok(fs.existsSync(path.join(fresh, EMBEDDED_WORKSPACE_FOLDER, '.solardesk', OWNER_FILE)));
});

// A remote that keeps file contents in an object store and answers its download
// links with a redirect to the store (`--blob-store ...&downloads=redirect`, issue 31).
// The agent follows the redirect to a host named for downloads, and refuses, with a
// sentence saying where to name it, a store it was not told about. A real server, a
// real S3 server (s3rver) and a real agent, all on 127.0.0.1.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startSyncHarness, type SyncHarness } from '../testing/sync-harness.ts';
import { startTestObjectStore, type TestObjectStore } from '../../engine/testing/s3rver-for-tests.ts';
import { createFile, download } from '../../engine/testing/file-testing.ts';
import { DEMO_USERS } from '../../engine/seed/demo-seed.ts';
import { apiPaths } from '../../../shared/api-paths.ts';

describe('a remote whose links redirect to its object store', () => {
  let objects: TestObjectStore;
  let h: SyncHarness;
  before(async () => {
    objects = await startTestObjectStore();
    h = await startSyncHarness({
      serverBlobStore: `${objects.address('remote')}&downloads=redirect`,
      // The server's own links, and the store they redirect to, are named for downloads.
      agent: { downloadHosts: () => [new URL(h.server.baseUrl).host, new URL(objects.endpoint).host] },
    });
  });
  after(async () => {
    await h?.close();
    await objects?.close();
  });

  test('a file opened on the desktop is fetched from the store the link redirects to', async () => {
    const bytes = randomBytes(120_000);
    const admin = await h.server.tokenFor(DEMO_USERS.sunriseAdmin);
    const remote = await createFile(h.server, admin, bytes, 'inverter datasheet.bin');
    assert.equal((await fetch(remote.file_contents, { redirect: 'manual' })).status, 302, 'the remote redirects its links');
    await h.synced();
    const local = (await h.local('GET', apiPaths.privateFile(1, remote.id))).json as { file_contents: string };
    const opened = await download(local.file_contents);
    assert.equal(opened.status, 200);
    assert.ok(opened.body.equals(bytes), 'the bytes the store holds');
  });

  test('an agent not told the store is a download host refuses the redirect, naming the host and where to add it', async () => {
    const other = await h.addAgent(DEMO_USERS.sunriseAdmin, { downloadHosts: [new URL(h.server.baseUrl).host] });
    const admin = await h.server.tokenFor(DEMO_USERS.sunriseAdmin);
    const remote = await createFile(h.server, admin, randomBytes(5_000), 'roof plan.bin');
    await other.synced();
    const local = (await other.local('GET', apiPaths.privateFile(1, remote.id))).json as { file_contents: string };
    const opened = await fetch(local.file_contents);
    const answer = (await opened.json()) as { detail: string };
    assert.equal(opened.status, 502, JSON.stringify(answer));
    assert.match(answer.detail, new RegExp(`points to ${new URL(objects.endpoint).host.replace(/\./g, '\\.')}, which is neither the remote .* add it under --download-hosts`));
  });
});

// `solardesk web`'s page served from a thread of its own (bridge-thread.ts), with a
// real core on this thread and the page's own client on 127.0.0.1: the page is
// served while the core has not started, calls wait for it, events and /media/
// streams cross over, a core that cannot start is a 503 that says why, and a taken
// port is either refused or traded for a free one.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { BRIDGE_HTTP, createHttpBridge } from '../../shared/bridge-http.ts';
import type { RecordsChanged } from '../../shared/bridge.ts';
import { mediaPaths } from '../../shared/media-paths.ts';
import { type AppCore, startAppCore } from '../core/app-core.ts';
import { defaultSettings, fileSettingsStore } from '../core/host-stores.ts';
import { makeTempDir } from '../engine/testing/test-server.ts';
import { startBridgeThread, type BridgeThread } from './bridge-thread.ts';

/** The smallest PNG's signature and header chunk, then padding: the type is read from the bytes, and 300 KB crosses in several pieces. */
const PNG_BYTES = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex'), Buffer.alloc(300_000, 7)]);

describe('the page served from its own thread', () => {
  const dataDir = makeTempDir('solardesk-web-thread-');
  const distDir = makeTempDir('solardesk-web-thread-dist-');
  const printed = path.join(distDir, '..', `${path.basename(distDir)}-printed.txt`);
  let printFd: number;
  let core: AppCore;
  before(async () => {
    fs.writeFileSync(path.join(distDir, 'index.html'), '<!doctype html><title>SolarDesk</title>');
    printFd = fs.openSync(printed, 'w');
    core = await startAppCore({ dataDir, settings: fileSettingsStore(path.join(dataDir, 's.json'), defaultSettings(dataDir)), openFolder: async () => false });
  });
  after(async () => {
    await core.close();
    fs.closeSync(printFd);
    for (const folder of [dataDir, distDir, printed]) fs.rmSync(folder, { recursive: true, force: true });
  });

  const startThread = (port = 0, anyPortIfTaken = false): BridgeThread => startBridgeThread({ distDir, port, anyPortIfTaken, open: false, printTo: printFd });

  test('the page is served and its URL printed before the core has started; calls wait for it, then answer; events and media streams cross over', async () => {
    const thread = startThread();
    let coreStarted!: (started: AppCore) => void;
    thread.serve(new Promise<AppCore>((resolve) => (coreStarted = resolve)));
    const address = await thread.listening;
    assert.match(fs.readFileSync(printed, 'utf8'), new RegExp(`SolarDesk is running at ${address.appUrl.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\n`));
    const bridge = createHttpBridge({ baseUrl: address.baseUrl, secret: address.secret });
    try {
      const page = await fetch(`${address.baseUrl}/`);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /<title>SolarDesk/);

      const session = bridge.invoke('session.get');
      const notYet = await Promise.race([session.then(() => 'answered'), new Promise((resolve) => setTimeout(() => resolve('waiting'), 300))]);
      assert.equal(notYet, 'waiting');
      coreStarted(core);
      assert.equal((await session).orgName, 'Sunrise Solar');

      // The stream starts from the present (the core's last sync state), then hears each change.
      const states: string[] = [];
      const changes: RecordsChanged[] = [];
      bridge.subscribe('sync.state', (state) => states.push(state.state));
      bridge.subscribe('records.changed', (change) => changes.push(change));
      for (let tries = 0; states.length === 0 && tries < 200; tries++) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.deepEqual(states, ['local_only']);
      await bridge.invoke('api.request', { method: 'PATCH', path: '/api/orgs/1/projects/3/', body: { notes: 'from the other thread' } });
      for (let tries = 0; changes.length === 0 && tries < 200; tries++) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.deepEqual(changes, [{ kinds: ['projects'], projectIds: [3], source: 'local' }]);

      // Bytes both ways: an upload in, the viewer's contents streamed out.
      const uploaded = await bridge.invoke('files.upload', { uploadId: 'thread-test', projectId: 3, fileName: 'roof.png', bytes: new Uint8Array(PNG_BYTES) });
      const file = uploaded.body as { id: number; sha256: string };
      const contents = await fetch(`${address.baseUrl}${mediaPaths.file(file.id, file.sha256)}`, { headers: { [BRIDGE_HTTP.secretHeader]: address.secret } });
      assert.equal(contents.status, 200);
      assert.equal(contents.headers.get('content-type'), 'image/png');
      assert.deepEqual(Buffer.from(await contents.arrayBuffer()), PNG_BYTES);
      const missing = await fetch(`${address.baseUrl}/media/nothing`, { headers: { [BRIDGE_HTTP.secretHeader]: address.secret } });
      assert.equal(missing.status, 404);
    } finally {
      bridge.close();
      await thread.close();
    }
  });

  test('a core that cannot start: the page is still served, and every call is a 503 that says why', async () => {
    const thread = startThread();
    const failing = Promise.reject(new Error('the data folder is in use by another SolarDesk'));
    failing.catch(() => {});
    thread.serve(failing);
    const address = await thread.listening;
    try {
      assert.equal((await fetch(`${address.baseUrl}/`)).status, 200);
      const refused = await fetch(`${address.baseUrl}${BRIDGE_HTTP.invokePath}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [BRIDGE_HTTP.secretHeader]: address.secret },
        body: JSON.stringify({ channel: 'session.get' }),
      });
      assert.equal(refused.status, 503);
      assert.match(((await refused.json()) as { error: { message: string } }).error.message, /^SolarDesk could not start: the data folder is in use/);
    } finally {
      await thread.close();
    }
  });

  test('a port that is taken is refused with its code, or traded for a free one when any port will do', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      const refused = startThread(port, false);
      refused.serve(Promise.resolve(core));
      await assert.rejects(refused.listening, (error: NodeJS.ErrnoException) => error.code === 'EADDRINUSE');
      await refused.close();

      const elsewhere = startThread(port, true);
      elsewhere.serve(Promise.resolve(core));
      const address = await elsewhere.listening;
      assert.notEqual(new URL(address.baseUrl).port, String(port));
      assert.equal((await fetch(`${address.baseUrl}/`)).status, 200);
      await elsewhere.close();
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});

// Browser mode's transport against the real core: nothing reaches the bridge
// without the per-launch secret, requests for other hosts are refused, and with
// the secret the same client the page uses can call and subscribe.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { BRIDGE_HTTP, createHttpBridge } from '../../shared/bridge-http.ts';
import type { RecordsChanged } from '../../shared/bridge.ts';
import { type AppCore, startAppCore } from '../core/app-core.ts';
import { defaultSettings, fileSettingsStore } from '../core/host-stores.ts';
import { makeTempDir } from '../engine/testing/test-server.ts';
import { CONTENT_SECURITY_POLICY } from '../renderer-files.ts';
import { type BridgeServer, isLocalHostHeader, startBridgeServer } from './bridge-server.ts';

describe('browser mode bridge server', () => {
  const dataDir = makeTempDir('solardesk-web-');
  const distDir = makeTempDir('solardesk-web-dist-');
  let core: AppCore;
  let server: BridgeServer;
  before(async () => {
    fs.writeFileSync(path.join(distDir, 'index.html'), '<!doctype html><title>SolarDesk</title>');
    fs.mkdirSync(path.join(distDir, 'assets'));
    fs.writeFileSync(path.join(distDir, 'assets', 'app-1234.js'), 'console.log(1)');
    core = await startAppCore({ dataDir, settings: fileSettingsStore(path.join(dataDir, 's.json'), defaultSettings(dataDir)), openFolder: async () => false });
    server = await startBridgeServer({ core, distDir, keepAliveMs: 200 }, 0);
  });
  after(async () => {
    await server.close();
    await core.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(distDir, { recursive: true, force: true });
  });

  const invoke = (headers: Record<string, string>) =>
    fetch(`${server.baseUrl}${BRIDGE_HTTP.invokePath}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ channel: 'session.get' }),
    });

  test('the printed URL carries the secret in its fragment, which browsers never send', () => {
    const url = new URL(server.appUrl);
    assert.equal(url.hostname, '127.0.0.1');
    assert.equal(new URLSearchParams(url.hash.slice(1)).get('secret'), server.secret);
    assert.ok(server.secret.length >= 40);
  });

  test('without the secret, or with a wrong one, the bridge answers 401 and nothing else', async () => {
    const attempts: Record<string, string>[] = [{}, { [BRIDGE_HTTP.secretHeader]: 'wrong' }, { [BRIDGE_HTTP.secretHeader]: `${server.secret}x` }];
    for (const headers of attempts) {
      const response = await invoke(headers);
      assert.equal(response.status, 401);
      const body = (await response.json()) as { ok: boolean; error: { message: string } };
      assert.equal(body.ok, false);
      assert.doesNotMatch(JSON.stringify(body), /Sunrise|admin@/);
    }
    const events = await fetch(`${server.baseUrl}${BRIDGE_HTTP.eventsPath}`);
    assert.equal(events.status, 401);
  });

  test('a refusal the user can act on is a 4xx with its code, not a 500', async () => {
    const response = await fetch(`${server.baseUrl}${BRIDGE_HTTP.invokePath}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [BRIDGE_HTTP.secretHeader]: server.secret },
      body: JSON.stringify({ channel: 'workspace.switch', request: { workspace: 'local' } }),
    });
    assert.equal(response.status, 400);
    const body = (await response.json()) as { ok: boolean; error: { code: string; message: string } };
    assert.equal(body.error.code, 'not_signed_in');
    assert.match(body.error.message, /until you sign in/);
  });

  test('a request naming another host is refused even with the secret (DNS rebinding)', async () => {
    const port = Number(new URL(server.baseUrl).port);
    assert.equal(isLocalHostHeader(`127.0.0.1:${port}`, port), true);
    assert.equal(isLocalHostHeader(`localhost:${port}`, port), true);
    assert.equal(isLocalHostHeader(`evil.example:${port}`, port), false);
    assert.equal(isLocalHostHeader(`127.0.0.1:${port + 1}`, port), false);
    // fetch will not forge Host; the raw request does.
    const http = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const request = http.request({ host: '127.0.0.1', port, path: BRIDGE_HTTP.invokePath, method: 'POST', headers: { host: `evil.example:${port}`, [BRIDGE_HTTP.secretHeader]: server.secret, 'content-type': 'application/json' } }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.on('error', reject);
      request.end(JSON.stringify({ channel: 'session.get' }));
    });
    assert.equal(status, 421);
  });

  test('with the secret, the page’s own client calls the core and receives its events', async () => {
    const bridge = createHttpBridge({ baseUrl: server.baseUrl, secret: server.secret });
    try {
      const session = await bridge.invoke('session.get');
      assert.equal(session.orgName, 'Sunrise Solar');
      const seen: RecordsChanged[] = [];
      let syncStates = 0;
      bridge.subscribe('sync.state', () => syncStates++);
      bridge.subscribe('records.changed', (change) => seen.push(change));
      // The stream starts with the current sync state, so wait for it before writing.
      for (let tries = 0; syncStates === 0 && tries < 100; tries++) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal(syncStates, 1);
      await bridge.invoke('api.request', { method: 'PATCH', path: '/api/orgs/1/projects/2/', body: { notes: 'over HTTP' } });
      for (let tries = 0; seen.length === 0 && tries < 100; tries++) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.deepEqual(seen, [{ kinds: ['projects'], projectIds: [2], source: 'local' }]);
      // Bytes survive the JSON transport.
      const uploaded = await bridge.invoke('files.upload', { uploadId: 'web-test', projectId: 2, fileName: 'a.bin', bytes: new Uint8Array([0, 1, 2, 255]) });
      assert.equal((uploaded.body as { filesize: number }).filesize, 4);
      await assert.rejects(bridge.invoke('api.request', { method: 'GET', path: 'not-api' } as never), /Invalid api.request request/);
    } finally {
      bridge.close();
    }
  });

  test('a page that listens from the start sends no call before its event stream is up, so its first connection needs no second reading; a reconnection does', async () => {
    let coreStarted!: (started: AppCore) => void;
    const first = await startBridgeServer({ core: new Promise<AppCore>((resolve) => (coreStarted = resolve)), distDir }, 0);
    let second: BridgeServer | null = null;
    // Requests go to whichever server is up now: the "network" the page sees.
    let target = first;
    const sent: string[] = [];
    const connections: [boolean, boolean][] = [];
    const bridge = createHttpBridge({
      baseUrl: '',
      secret: first.secret,
      listenFromStart: true,
      reconnectDelayMs: 50,
      fetch: (input, init) => {
        const url = String(input);
        sent.push(url);
        return fetch(`${target.baseUrl}${url}`, { ...init, headers: { ...(init?.headers as Record<string, string>), [BRIDGE_HTTP.secretHeader]: target.secret } });
      },
      onConnectionChange: (isConnected, mayHaveMissedEvents) => connections.push([isConnected, mayHaveMissedEvents]),
    });
    try {
      const session = bridge.invoke('session.get');
      await new Promise((resolve) => setTimeout(resolve, 200));
      // The core is still starting: the stream waits for it, and the call waits for the stream.
      assert.deepEqual(sent, [BRIDGE_HTTP.eventsPath]);
      coreStarted(core);
      assert.equal((await session).orgName, 'Sunrise Solar');
      assert.deepEqual(sent, [BRIDGE_HTTP.eventsPath, BRIDGE_HTTP.invokePath]);
      assert.deepEqual(connections, [[true, false]]);

      // The stream drops (the server went away) and comes back: what changed meanwhile went untold.
      await first.close();
      second = await startBridgeServer({ core, distDir }, 0);
      target = second;
      for (let tries = 0; connections.length < 3 && tries < 200; tries++) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.deepEqual(connections.slice(0, 3), [
        [true, false],
        [false, true],
        [true, true],
      ]);
    } finally {
      bridge.close();
      await first.close();
      await second?.close();
    }
  });

  test('a call that waited its longest for the stream goes anyway, and that first connection is then told it may have missed changes', async () => {
    let coreStarted!: (started: AppCore) => void;
    const starting = await startBridgeServer({ core: new Promise<AppCore>((resolve) => (coreStarted = resolve)), distDir }, 0);
    const connections: [boolean, boolean][] = [];
    const bridge = createHttpBridge({
      baseUrl: starting.baseUrl,
      secret: starting.secret,
      listenFromStart: true,
      firstConnectWaitMs: 100,
      onConnectionChange: (isConnected, mayHaveMissedEvents) => connections.push([isConnected, mayHaveMissedEvents]),
    });
    try {
      const session = bridge.invoke('session.get');
      await new Promise((resolve) => setTimeout(resolve, 300));
      coreStarted(core);
      assert.equal((await session).orgName, 'Sunrise Solar');
      for (let tries = 0; connections.length === 0 && tries < 100; tries++) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.deepEqual(connections, [[true, true]]);
    } finally {
      bridge.close();
      await starting.close();
    }
  });

  test('the renderer is served with the CSP, hashed assets are cached, and nothing outside dist is reachable', async () => {
    const index = await fetch(`${server.baseUrl}/`);
    assert.equal(index.status, 200);
    assert.equal(index.headers.get('content-security-policy'), CONTENT_SECURITY_POLICY);
    assert.equal(index.headers.get('x-content-type-options'), 'nosniff');
    assert.match(await index.text(), /<title>SolarDesk/);
    const asset = await fetch(`${server.baseUrl}/assets/app-1234.js`);
    assert.match(asset.headers.get('cache-control') ?? '', /immutable/);
    assert.match(asset.headers.get('content-type') ?? '', /javascript/);
    for (const probe of ['/../s.json', '/%2e%2e/s.json', '/assets/..%2f..%2fs.json', '/nope.html']) {
      assert.equal((await fetch(`${server.baseUrl}${probe}`)).status, 404, probe);
    }
  });

  test('while the core starts the page is served and the bridge waits for it; a core that cannot start is a 503 that says why', async () => {
    let coreStarted!: (started: AppCore) => void;
    const starting = await startBridgeServer({ core: new Promise<AppCore>((resolve) => (coreStarted = resolve)), distDir }, 0);
    const failed = await startBridgeServer({ core: Promise.reject(new Error('the data folder is in use by another SolarDesk')), distDir }, 0);
    try {
      assert.equal((await fetch(`${starting.baseUrl}/`)).status, 200);
      const headers = { 'content-type': 'application/json', [BRIDGE_HTTP.secretHeader]: starting.secret };
      const waiting = fetch(`${starting.baseUrl}${BRIDGE_HTTP.invokePath}`, { method: 'POST', headers, body: JSON.stringify({ channel: 'session.get' }) });
      const notYet = await Promise.race([waiting.then(() => 'answered'), new Promise((resolve) => setTimeout(() => resolve('waiting'), 300))]);
      assert.equal(notYet, 'waiting');
      coreStarted(core);
      const answer = await waiting;
      assert.equal(answer.status, 200);
      assert.equal(((await answer.json()) as { response: { orgName: string } }).response.orgName, 'Sunrise Solar');

      assert.equal((await fetch(`${failed.baseUrl}/`)).status, 200);
      const refused = await fetch(`${failed.baseUrl}${BRIDGE_HTTP.invokePath}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [BRIDGE_HTTP.secretHeader]: failed.secret },
        body: JSON.stringify({ channel: 'session.get' }),
      });
      assert.equal(refused.status, 503);
      assert.match(((await refused.json()) as { error: { message: string } }).error.message, /^SolarDesk could not start: the data folder is in use/);
      const events = await fetch(`${failed.baseUrl}${BRIDGE_HTTP.eventsPath}`, { headers: { [BRIDGE_HTTP.secretHeader]: failed.secret } });
      assert.equal(events.status, 503);
    } finally {
      await starting.close();
      await failed.close();
    }
  });
});

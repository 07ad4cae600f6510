// The fault proxy must not keep a request open on the server after its client went
// away mid-body: a server stopping gracefully waits for open requests, and one left
// half-sent held `solardesk server` (and the test after it) until its request timeout.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startFaultProxy, type FaultAction } from './fault-proxy.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const [when, action] of [
  ['while the proxy forwards it', undefined],
  ['while a delay holds it', { kind: 'delay', ms: 200 }],
] as const satisfies ReadonlyArray<readonly [string, FaultAction | undefined]>) {
  test(`a client that goes away mid-body ${when} leaves no request open on the server`, async () => {
    let open = 0;
    const target = http.createServer((request) => {
      open++;
      request.on('close', () => open--);
      request.resume();
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    const proxy = await startFaultProxy(`http://127.0.0.1:${(target.address() as { port: number }).port}`);
    try {
      if (action) proxy.addRule({ method: 'PUT', action });
      const client = http.request(`${proxy.url}/upload/`, { method: 'PUT', headers: { 'content-length': '1000' } });
      client.on('error', () => {}); // it is cut off on purpose
      client.write(Buffer.alloc(100)); // 100 of the 1,000 bytes promised
      await sleep(100);
      client.destroy(); // killed while its request is on its way
      await sleep(500); // past the delay, and time for the server to see the close
      assert.equal(open, 0, 'requests the server still holds open');
    } finally {
      await proxy.close();
      target.closeAllConnections();
      await new Promise((resolve) => target.close(resolve));
    }
  });
}

/** A remote that answers every request with `answerBytes` bytes, after reading its body whole. */
async function startBytesServer(answerBytes: number): Promise<{ url: string; close: () => Promise<void> }> {
  const target = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(answerBytes) }).end(Buffer.alloc(answerBytes, 7)));
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(target.address() as { port: number }).port}`,
    close: async () => {
      target.closeAllConnections();
      await new Promise((resolve) => target.close(resolve));
    },
  };
}

/** Sends `body` through `url` and reads the answer; rejects when the connection is cut. */
function exchange(url: string, body: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: 'PUT', headers: { 'content-length': String(body.length) } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => (response.complete ? resolve(Buffer.concat(chunks)) : reject(new Error('cut off'))));
      response.on('aborted', () => reject(new Error('cut off')));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}

test('a slow link carries each direction no faster than its speed, and counts the body bytes each way', async () => {
  const remote = await startBytesServer(128_000);
  const proxy = await startFaultProxy(remote.url);
  try {
    proxy.setLinkSpeed(64_000);
    const started = Date.now();
    const answer = await exchange(`${proxy.url}/up-and-down/`, Buffer.alloc(128_000, 1));
    const seconds = (Date.now() - started) / 1000;
    assert.equal(answer.length, 128_000);
    assert.deepEqual(proxy.bytes, { up: 128_000, down: 128_000 });
    // 2 s up, then 2 s down, at 64 KB/s: a lower bound no load can break (unthrottled it takes milliseconds).
    assert.ok(seconds >= 3.6, `128 KB each way took ${seconds} s on a 64 KB/s link`);
  } finally {
    await proxy.close();
    await remote.close();
  }
});

test('a link cut every so often cuts a transfer longer than that; once it stops cutting, requests go through', async () => {
  const remote = await startBytesServer(256_000);
  const proxy = await startFaultProxy(remote.url);
  try {
    proxy.setLinkSpeed(64_000);
    proxy.cutEvery(500);
    // 4 s of answer at 64 KB/s: a cut comes first.
    await assert.rejects(exchange(`${proxy.url}/long/`, Buffer.alloc(10)), /cut off|socket hang up|ECONNRESET/);
    assert.ok(proxy.bytes.down < 256_000, `only part of the answer went: ${proxy.bytes.down} bytes`);
    proxy.cutEvery(null);
    proxy.setLinkSpeed(null);
    assert.equal((await exchange(`${proxy.url}/after/`, Buffer.alloc(10))).length, 256_000);
  } finally {
    await proxy.close();
    await remote.close();
  }
});

test('a cut ends an upload where the link was: the rest of its body is neither counted nor handed to the server', async () => {
  let received = 0;
  const target = http.createServer((request, response) => {
    request.on('data', (chunk: Buffer) => (received += chunk.length));
    request.on('end', () => response.end('stored'));
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  const proxy = await startFaultProxy(`http://127.0.0.1:${(target.address() as { port: number }).port}`);
  try {
    proxy.setLinkSpeed(64_000);
    proxy.cutEvery(1000);
    // 192 KB is 3 s on this link; the client hands it all to its socket at once, so most
    // of it waits in buffers on this side of the link when the cut comes after 1 s.
    await assert.rejects(exchange(`${proxy.url}/part/`, Buffer.alloc(192_000, 3)), /cut off|socket hang up|ECONNRESET|EPIPE/);
    proxy.cutEvery(null);
    const countedAtCut = proxy.bytes.up;
    await sleep(1500); // what a paced copy left running would carry in this time: 96 KB
    assert.ok(countedAtCut < 192_000, `the cut came before the whole body crossed: ${countedAtCut} bytes`);
    assert.equal(proxy.bytes.up, countedAtCut, 'bytes counted after the cut');
    assert.ok(received <= countedAtCut, `the server got ${received} bytes of the ${countedAtCut} the link carried`);
  } finally {
    await proxy.close();
    target.closeAllConnections();
    await new Promise((resolve) => target.close(resolve));
  }
});

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

// Issue 25, item 1: every way a webhook endpoint can fail a delivery, against the
// pipelined connection (undici's Client underneath) and real servers on 127.0.0.1.
// Each must reject the requests in flight with a ConnectionLostError that says why
// (or, for a redirect, answer with the 3xx, which delivery logs as a failure), never
// throw where nothing can catch it, and leave the connection fit for the retry. A
// certificate for another host name from a trusted authority once ended the process
// from inside undici (its ERR_TLS_CERT_ALTNAME_INVALID path); the authority and the
// certificate are made with openssl here, so the failure is the name, not trust.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import tls from 'node:tls';
import { once } from 'node:events';
import { ConnectionLostError, PipelinedConnection, type PipelinedResponse } from './pipelined-connection.ts';
import { makeTestCertificates, type TestCertificates } from '../testing/test-certificates.ts';

// Connections are made only once undici is loaded (it loads with the first delivery, not at start).
await PipelinedConnection.load();

let certificates: TestCertificates;
before(() => {
  certificates = makeTestCertificates('other.example');
});
after(() => certificates.remove());

async function listen(server: net.Server): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as net.AddressInfo).port;
}

/**
 * Posts three requests at once on one connection, twice over (the second round is
 * the retry, on the same connection object if it says it is usable, else on a new
 * one, as the delivery worker does), and returns how each settled.
 */
async function deliverTwice(url: string, options: { timeoutMs?: number; trusted?: boolean } = {}): Promise<Array<PromiseSettledResult<PipelinedResponse>>> {
  const open = () =>
    new PipelinedConnection(new URL(url), {
      timeoutMs: options.timeoutMs ?? 5000,
      window: 4,
      ...(options.trusted === false ? {} : { extraTrustedCertificates: [certificates.authority] }),
    });
  let connection = open();
  const settled: Array<PromiseSettledResult<PipelinedResponse>> = [];
  try {
    for (const round of [1, 2]) {
      if (!connection.usable) {
        connection.close();
        connection = open();
      }
      settled.push(...(await Promise.allSettled([1, 2, 3].map((n) => connection.post({}, JSON.stringify({ round, n }))))));
    }
  } finally {
    connection.close();
  }
  return settled;
}

function assertAllLost(settled: Array<PromiseSettledResult<PipelinedResponse>>, reason: RegExp, code?: string): void {
  assert.equal(settled.length, 6);
  for (const result of settled) {
    assert.equal(result.status, 'rejected', JSON.stringify(result));
    const error = (result as PromiseRejectedResult).reason as ConnectionLostError;
    assert.ok(error instanceof ConnectionLostError, String(error));
    assert.match(error.message, reason);
    if (code) assert.equal(error.code, code);
  }
}

test('a certificate from a trusted authority for another host name fails each request with that reason, every time, and the process lives on', async () => {
  const server = tls.createServer({ key: certificates.key, cert: certificates.certificate }, (socket) => socket.on('error', () => {}));
  const port = await listen(server);
  try {
    // The control: under its own name the same certificate is trusted and answers.
    // (localhost is not in the certificate; other.example is reached by pointing it at 127.0.0.1.)
    const answering = tls.createServer({ key: certificates.key, cert: certificates.certificate }, (socket) => {
      socket.on('error', () => {});
      socket.once('data', () => socket.end('HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n'));
    });
    const answeringPort = await listen(answering);
    const trusted = new PipelinedConnection(new URL(`https://other.example:${answeringPort}/hook`), {
      timeoutMs: 5000,
      window: 1,
      extraTrustedCertificates: [certificates.authority],
      lookup: ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) =>
        options.all ? callback(null, [{ address: '127.0.0.1', family: 4 }]) : callback(null, '127.0.0.1', 4)) as never,
    });
    try {
      assert.equal((await trusted.post({}, '{}')).status, 204, 'the authority is trusted');
    } finally {
      trusted.close();
      answering.close();
    }
    for (const host of ['localhost', '127.0.0.1']) {
      assertAllLost(await deliverTwice(`https://${host}:${port}/hook`), /TLS certificate is for another host name/, 'CERT_NAME_MISMATCH');
    }
  } finally {
    server.close();
  }
});

test('a self-signed certificate, and a TLS handshake answered in plain text, fail each request with the TLS reason', async () => {
  const selfSigned = tls.createServer({ key: certificates.selfSignedKey, cert: certificates.selfSignedCertificate }, (socket) => socket.on('error', () => {}));
  const plain = net.createServer((socket) => socket.on('error', () => {}).end('HTTP/1.1 400 Bad Request\r\n\r\nthis is not TLS'));
  const [selfSignedPort, plainPort] = [await listen(selfSigned), await listen(plain)];
  try {
    assertAllLost(await deliverTwice(`https://127.0.0.1:${selfSignedPort}/hook`, { trusted: false }), /connection error: .*(self[- ]signed|certificate)/i);
    assertAllLost(await deliverTwice(`https://127.0.0.1:${plainPort}/hook`), /connection error: /);
  } finally {
    selfSigned.close();
    plain.close();
  }
});

test('a reset at connect, a reset after the request, and garbage for an answer fail each request with a reason', async () => {
  const resetAtConnect = net.createServer((socket) => socket.on('error', () => {}).resetAndDestroy());
  const resetAfterRequest = net.createServer((socket) => socket.on('error', () => {}).once('data', () => socket.resetAndDestroy()));
  const garbage = net.createServer((socket) => socket.on('error', () => {}).once('data', () => socket.write('\x00\xffSPAM SPAM SPAM\r\n\r\n')));
  const ports = [await listen(resetAtConnect), await listen(resetAfterRequest), await listen(garbage)];
  try {
    for (const port of ports) assertAllLost(await deliverTwice(`http://127.0.0.1:${port}/hook`), /connection error: |other side closed|socket/i);
  } finally {
    resetAtConnect.close();
    resetAfterRequest.close();
    garbage.close();
  }
});

test('an answer that comes a byte at a time, slower than the timeout allows, fails each request as timed out', async () => {
  const timers = new Set<NodeJS.Timeout>();
  const slow = net.createServer((socket) => {
    socket.on('error', () => {});
    socket.once('data', () => {
      const head = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok';
      let at = 0;
      const drip = setInterval(() => (at < head.length && !socket.destroyed ? socket.write(head[at++]!) : clearInterval(drip)), 60);
      timers.add(drip);
      socket.on('close', () => clearInterval(drip));
    });
  });
  const port = await listen(slow);
  try {
    assertAllLost(await deliverTwice(`http://127.0.0.1:${port}/hook`, { timeoutMs: 300 }), /timed out/, 'ETIMEDOUT');
  } finally {
    for (const timer of timers) clearInterval(timer);
    slow.close();
  }
});

test('an endless redirect is an answer (the 3xx, which delivery logs as failed), never followed', async () => {
  let requests = 0;
  const redirecting = net.createServer((socket) => {
    socket.on('error', () => {});
    socket.on('data', (chunk) => {
      for (const _request of String(chunk).match(/POST \/hook HTTP\/1\.1\r\n/g) ?? []) {
        requests++;
        socket.write(`HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:${(redirecting.address() as net.AddressInfo).port}/hook\r\nContent-Length: 0\r\n\r\n`);
      }
    });
  });
  const port = await listen(redirecting);
  try {
    const settled = await deliverTwice(`http://127.0.0.1:${port}/hook`);
    assert.deepEqual(settled.map((result) => (result.status === 'fulfilled' ? result.value.status : result.reason)), [302, 302, 302, 302, 302, 302]);
    assert.equal(requests, 6, 'one request per post: the Location is not followed');
  } finally {
    redirecting.close();
  }
});

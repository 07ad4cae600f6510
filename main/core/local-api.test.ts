// A call to the local API racing a backend swap (a sign-in, a sign-out, another org):
// the backend it went to closes under it while another takes its place. Pass 3 of
// issue 33 saw the Sync screen's status poll fail with a 500 this way, right as the
// test signed in. Two real HTTP servers on 127.0.0.1 stand for the two backends'
// local APIs; which one is current, and when the first one's connection is cut, is
// controlled here (the race itself cannot be made to happen on cue through a real sign-in).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ApiBackend, callLocalApi } from './local-api.ts';
import { BridgeError } from '../../shared/bridge.ts';

interface FakeLocalApi {
  backend: ApiBackend;
  requests: string[];
  close(): Promise<void>;
}

/** A local API on 127.0.0.1: `answer` decides what each request gets (a JSON body, or null to cut the connection). */
async function localApi(name: string, answer: (request: http.IncomingMessage) => unknown | null): Promise<FakeLocalApi> {
  const requests: string[] = [];
  const server = http.createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    const body = answer(request);
    if (body === null) {
      request.socket.destroy();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    backend: { api: () => ({ baseUrl: `http://127.0.0.1:${port}`, token: `token-${name}` }), renewToken: async () => {} },
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

let current: ApiBackend;
let closing: FakeLocalApi;
let next: FakeLocalApi;
before(async () => {
  next = await localApi('next', () => ({ from: 'the backend that took its place' }));
  // The closing backend's API takes a request, then the swap happens and its connection is cut.
  closing = await localApi('closing', () => {
    current = next.backend;
    return null;
  });
});
after(async () => {
  await closing.close();
  await next.close();
});

test('a read cut off by a backend swap is asked again of the backend that took its place', async () => {
  current = closing.backend;
  const answer = await callLocalApi(async () => current, { method: 'GET', path: '/api/orgs/1/sync/status/' });
  assert.equal(answer.status, 200);
  assert.deepEqual(answer.body, { from: 'the backend that took its place' });
  assert.deepEqual(closing.requests.at(-1), 'GET /api/orgs/1/sync/status/');
  assert.deepEqual(next.requests.at(-1), 'GET /api/orgs/1/sync/status/');
});

test('a change cut off by a backend swap is not sent again to the other workspace: the person is told it may not be saved', async () => {
  current = closing.backend;
  const before = next.requests.length;
  await assert.rejects(
    callLocalApi(async () => current, { method: 'PATCH', path: '/api/orgs/1/projects/7/', body: { notes: 'from the roof' } }),
    (error: unknown) => error instanceof BridgeError && error.status === 409 && /switched workspace .* may not have been/.test(error.message),
  );
  assert.equal(next.requests.length, before, 'nothing reached the other backend');
});

test('a call that fails while its backend stays the current one fails as it did', async () => {
  current = closing.backend;
  const stays = closing.backend;
  const answerOf = () => callLocalApi(async () => stays, { method: 'GET', path: '/api/orgs/1/projects/' });
  await assert.rejects(answerOf(), (error: unknown) => !(error instanceof BridgeError));
});

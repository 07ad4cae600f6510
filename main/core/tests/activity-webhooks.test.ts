// Webhook deliveries in the activity log (issue 32): on this computer's own store the
// engine delivers webhooks, and each delivery's outcome is an entry. The real core on
// the embedded store, its real delivery worker, and a receiver on 127.0.0.1; the
// local-endpoint setting is what decides (off: refused for good, said with what to do;
// on: delivered). Nothing is faked.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { ActivityEntry, ActivityPage } from '../../../shared/activity.ts';
import { stateLineOf } from '../../../shared/activity.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import type { AppCore } from '../app-core.ts';
import { makeTempDir } from '../../engine/testing/test-server.ts';
import { ok, startTestCore, until } from '../testing/app-core-testing.ts';

const ORG = 1;
let dataDir: string;
let core: AppCore;
let receiver: http.Server;
const received: string[] = [];

before(async () => {
  dataDir = makeTempDir('solardesk-activity-webhooks-');
  receiver = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      received.push(body);
      response.writeHead(200).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  core = await startTestCore(dataDir);
});
after(async () => {
  await core.close();
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const api = async (method: 'GET' | 'POST' | 'PATCH', apiPath: string, body?: unknown) => ok<{ status: number; body: { id: number } }>(await core.invoke('api.request', { method, path: apiPath, body }));
const deliveries = async (): Promise<ActivityEntry[]> => ok<ActivityPage>(await core.invoke('activity.list', { kinds: ['webhook_delivery'] })).entries;

test('a webhook refused for a local endpoint is a failed entry that says what to do; allowed, the next delivery is a done entry', async () => {
  const endpoint = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/solar-hook`;
  ok(await core.invoke('settings.set', { localWebhooks: false }));
  const made = await api('POST', apiPaths.webhooks(ORG), { endpoint, enabled: true, debug: false, trigger_fields: ['project.notes'], payload_fields: ['project.notes'] });
  assert.equal(made.status, 201);

  assert.equal((await api('PATCH', apiPaths.project(ORG, 3), { notes: 'Meter box moved to the garage' })).status, 200);
  await until(async () => (await deliveries()).some((entry) => entry.state === 'failed'), 'the refused delivery in the log', 60_000);
  const [refused] = await deliveries();
  assert.equal(refused!.recordId, made.body.id);
  assert.match(refused!.subject, new RegExp(`webhook to ${endpoint.replace(/[.]/g, '\\.')}`));
  assert.match(stateLineOf(refused!, String) ?? '', /^Failed: refused: .*; gave up after 1 attempt$/);
  assert.equal(received.length, 0, 'nothing reached the endpoint');

  ok(await core.invoke('settings.set', { localWebhooks: true }));
  assert.equal((await api('PATCH', apiPaths.project(ORG, 3), { notes: 'Meter box moved back' })).status, 200);
  await until(async () => (await deliveries()).some((entry) => entry.state === 'done'), 'the delivery in the log', 60_000);
  const [delivered] = await deliveries();
  assert.equal(delivered!.state, 'done');
  assert.equal(delivered!.recordId, made.body.id);
  assert.ok(received.some((body) => body.includes('Meter box moved back')), 'it reached the endpoint');
  assert.equal((await deliveries()).length, 2, 'one entry per delivery');
});

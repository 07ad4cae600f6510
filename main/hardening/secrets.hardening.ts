// Secrets: with the server logging at debug level, sign in (right and wrong),
// send passwords and tokens everywhere a client might put them (bodies, broken
// JSON, query strings, headers, every field of every JSON route), use every GET
// route, deliver a webhook whose headers carry a credential and download a file
// through its signed link. Then: no password, token, token hash, password hash,
// server secret, webhook credential or link signature is in the server's output;
// none is in any answer but the token endpoints' own (webhook credentials only in
// the webhook routes, to admins; signed links only as links); none is in any
// error message; and secret-like fields (`api_key_chat` and the like) are empty.
// The store on disk holds neither passwords nor tokens in plain text.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { DEMO_PASSWORD, DEMO_USERS } from '../engine/seed/demo-seed.ts';
import { hashToken } from '../engine/auth/accounts.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../engine/testing/webhook-receiver.ts';
import { fillPath, listOperations, operationName, type ApiOperation } from './api-routes.ts';
import { outputTail, sendChecked } from './checks.ts';
import { RecordMaker, pathValues, type OrgRecords } from './fixtures.ts';
import { DEMO_USER_KEYS, NO_QUOTAS, jsonRequest, startHardeningServer, type HardeningServer, type RawRequest, type RawResponse } from './hardening-server.ts';
import { StoreInspector } from './store-inspector.ts';
import { newTally, reportTally } from './summary.ts';
import { apiPaths } from '../../shared/api-paths.ts';

const tally = newTally('secrets');
/** Keys whose values would be secrets if they were anything but empty. */
const SECRET_LIKE_KEY = /api_key|secret|password|passwd|private_key|credential|signature|^token$|_token$/i;
const TOKEN_ENDPOINTS = new Set(['POST /api-token-auth/', 'GET /api/fetch_token/']);

let server: HardeningServer;
let receiver: WebhookReceiver;
let records: OrgRecords;
let operations: ApiOperation[];
/** Every answer of the run, with the route that gave it. */
const answers: Array<{ route: string; request: RawRequest; response: RawResponse; admin: boolean }> = [];
const tokens = new Set<string>();
const wrongPasswords = [`wrong-${randomBytes(6).toString('hex')}`, `Pa55-${randomBytes(6).toString('hex')}!`];
/** A password a client put where it does not belong: it may be stored as data, never logged or echoed by an error. */
const canary = `canary-${randomBytes(9).toString('base64url')}`;
const webhookCredential = `whsec-${randomBytes(12).toString('hex')}`;
/** The secret of a schedule feed made and fetched in the run: in its owner's answer, never in a log or the store. */
let feedSecret = '';

async function record(route: string, request: RawRequest, admin = false): Promise<RawResponse> {
  const response = await sendChecked(server, request);
  tally.inputs++;
  answers.push({ route, request, response, admin });
  if (TOKEN_ENDPOINTS.has(route) && typeof response.json?.token === 'string') tokens.add(response.json.token);
  return response;
}

before(async () => {
  receiver = await startWebhookReceiver();
  server = await startHardeningServer({ throttleRates: NO_QUOTAS, logLevel: 'debug', extraArgs: ['--allow-private-webhook-endpoints'] });
  for (const user of DEMO_USER_KEYS) {
    await record('POST /api-token-auth/', jsonRequest('POST', '/api-token-auth/', { username: DEMO_USERS[user], password: DEMO_PASSWORD }));
  }
  records = await new RecordMaker(server, 'sunriseAdmin', 1).makeAll(2);
  operations = await listOperations(server);
});

after(async () => {
  await receiver?.close();
  const code = await server?.stop();
  if (server) fs.rmSync(path.dirname(server.dataDir), { recursive: true, force: true });
  assert.equal(code, 0);
});

test('passwords and tokens sent every way a client might send them', async () => {
  const admin = await server.tokenFor('sunriseAdmin');
  tokens.add(admin);
  const signIn = 'POST /api-token-auth/';
  for (const password of [...wrongPasswords, canary]) {
    await record(signIn, jsonRequest('POST', '/api-token-auth/', { username: DEMO_USERS.sunriseAdmin, password }));
    await record(signIn, jsonRequest('POST', '/api-token-auth/', { username: `nobody-${password}@example.com`, password }));
    // Broken JSON around a password: V8 quotes a piece of the text in some parse errors.
    for (const body of [password, `{"username": "x", "password": "${password}"`, `{"username": "x", "password": "${password}" x}`, `"${password}`, `{"password": ${password}}`]) {
      await record(signIn, { method: 'POST', path: '/api-token-auth/', headers: { 'content-type': 'application/json' }, body });
    }
    await record(signIn, { method: 'POST', path: `/api-token-auth/?password=${encodeURIComponent(password)}`, headers: { 'content-type': 'application/json' }, body: '{}' });
    await record(signIn, { method: 'POST', path: '/api-token-auth/', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `username=x&password=${password}` });
  }
  await record('GET /api/fetch_token/', jsonRequest('GET', '/api/fetch_token/', undefined, admin));
  // Tokens in headers that are not quite right, and in query strings.
  for (const header of [`Bearer ${admin} extra`, `Bearer ${admin}x`, `Token  ${admin}`, `Basic ${admin}`, admin, `Bearer ${canary}`]) {
    await record('GET /api/orgs/{org_id}/', { method: 'GET', path: '/api/orgs/1/', headers: { authorization: header } });
  }
  for (const name of ['token', 'access_token', 'auth', 'password']) {
    await record('GET /api/orgs/{org_id}/projects/', { method: 'GET', path: `${apiPaths.projects(1)}?${name}=${encodeURIComponent(admin)}&search=${encodeURIComponent(canary)}` });
  }
  // The canary in every field of every JSON route: stored where it is data, never echoed by an error.
  for (const operation of operations) {
    if (operation.body?.kind !== 'json' || operation.method === 'DELETE') continue;
    for (const field of Object.keys(operation.body.schema.properties ?? {})) {
      const request = jsonRequest(operation.method, fillPath(operation.template, pathValues(operation, records)), { [field]: canary }, admin);
      await record(operationName(operation), request, true);
    }
  }
});

test('a webhook whose headers carry a credential, and a signed download', async () => {
  const admin = await server.tokenFor('sunriseAdmin');
  const created = await record('POST /api/orgs/{org_id}/webhooks/', jsonRequest('POST', '/api/orgs/1/webhooks/', {
    endpoint: receiver.url,
    enabled: true,
    debug: true,
    trigger_fields: ['project.notes'],
    headers: JSON.stringify({ 'X-Api-Key': webhookCredential }),
  }, admin), true);
  assert.equal(created.status, 201, created.text);
  await record('PATCH /api/orgs/{org_id}/projects/{id}/', jsonRequest('PATCH', apiPaths.project(1, records.project), { notes: 'secrets test' }, admin), true);
  const [call] = await receiver.waitForCalls(1);
  assert.equal(call!.headers['x-api-key'], webhookCredential, 'the credential was sent to the endpoint');
  // A failing attempt is logged too: the endpoint answers 500 once.
  receiver.respondWith((_call, index) => (index === 1 ? 500 : 200));
  await record('PATCH /api/orgs/{org_id}/projects/{id}/', jsonRequest('PATCH', apiPaths.project(1, records.project), { notes: 'secrets test again' }, admin), true);
  await receiver.waitForCalls(2);
  await record('GET /api/orgs/{org_id}/webhook_process_logs/', jsonRequest('GET', '/api/orgs/1/webhook_process_logs/', undefined, admin), true);
  const link = new URL(records.fileLink, server.baseUrl);
  const downloaded = await record('GET /downloads/private_files/{id}/', { method: 'GET', path: `${link.pathname}${link.search}` });
  assert.equal(downloaded.status, 200);
  // A schedule feed (issue 27): its URL's path is its secret, and the request log must not keep it.
  const feed = await record('POST /api/orgs/{org_id}/calendar_feed/', jsonRequest('POST', apiPaths.calendarFeedSettings(1), undefined, admin), true);
  assert.equal(feed.status, 201, feed.text);
  const feedUrl = new URL(feed.json.url as string);
  feedSecret = decodeURIComponent(/\/api\/calendar_feeds\/([^/]+)\//.exec(feedUrl.pathname)![1]!);
  assert.equal((await record('GET /api/calendar_feeds/{secret}/schedule.ics', { method: 'GET', path: feedUrl.pathname })).status, 200);
});

test('every GET route, as each demo user', async () => {
  for (const user of DEMO_USER_KEYS) {
    const token = await server.tokenFor(user);
    tokens.add(token);
    for (const operation of operations.filter((candidate) => candidate.method === 'GET')) {
      const query =
        operation.template.endsWith('/image/') ? '?width=64&height=64'
        : operation.template.startsWith('/downloads/') ? `?${records.fileLink.split('?')[1]}`
        : Object.keys(operation.requiredQuery).length > 0 ? `?${new URLSearchParams(operation.requiredQuery)}`
        : '';
      await record(operationName(operation), jsonRequest('GET', `${fillPath(operation.template, pathValues(operation, records))}${query}`, undefined, token), user === 'sunriseAdmin');
    }
  }
});

test('no secret in the logs, in answers, in error messages or in the store', async () => {
  const store = new StoreInspector(server.dataDir);
  const passwordHashes = store.all<{ password_hash: string }>('select password_hash from users').map((row) => row.password_hash);
  // The link-signing secret lives in the store, so every process on one database shares it.
  const serverSecret = store.all<{ value: string }>("select value from settings where key = 'signing_secret'")[0]?.value;
  store.close();
  assert.ok(serverSecret && serverSecret.length >= 64, 'the signing secret was read from the store');
  const signatures = answers.flatMap(({ response }) => [...response.text.matchAll(/signature=([A-Za-z0-9_-]{20,})/g)].map((match) => match[1]!));
  assert.ok(signatures.length > 0 && tokens.size >= DEMO_USER_KEYS.length, 'the run saw signed links and tokens');
  const never: Array<[string, string]> = [
    ['the demo password', DEMO_PASSWORD],
    ...wrongPasswords.map((password): [string, string] => ['a wrong password', password]),
    ...passwordHashes.map((hash): [string, string] => ['a password hash', hash.split('$').pop()!]),
    ...[...tokens].flatMap((token): Array<[string, string]> => [['a token', token], ['a token hash', hashToken(token)]]),
    ['the server secret', serverSecret],
  ];

  // 1. The server's output (request logs at debug level, errors, start-up lines).
  const output = server.output();
  assert.match(output, /incoming request/, 'debug request logs were written');
  const neverLogged: Array<[string, string]> = [
    ...never,
    ['the canary password', canary],
    ['the webhook credential', webhookCredential],
    ...signatures.map((signature): [string, string] => ['a link signature', signature]),
    ['a schedule feed secret', feedSecret],
  ];
  assert.ok(feedSecret.length >= 40, 'a schedule feed was made and fetched');
  for (const [what, secret] of neverLogged) {
    assert.ok(!output.includes(secret), `${what} is in the server's output:\n${outputTail(server)}`);
  }

  // 2. Answers: no secret outside the token endpoints' own tokens; the canary only where it was stored as data.
  for (const { route, request, response, admin } of answers) {
    const label = `${route} (${request.method} ${request.path.slice(0, 80)} -> ${response.status})`;
    for (const [what, secret] of never) {
      const allowed = what === 'a token' && TOKEN_ENDPOINTS.has(route) && response.json?.token === secret;
      assert.ok(allowed || !response.text.includes(secret), `${what} is in the answer to ${label}: ${response.text.slice(0, 300)}`);
    }
    if (response.status >= 400) {
      for (const secret of [canary, ...wrongPasswords, DEMO_PASSWORD]) assert.ok(!response.text.includes(secret), `the error answer to ${label} echoes a password: ${response.text}`);
      assert.ok(!response.text.includes('password_hash') && !/at .+\.(ts|js):\d+/.test(response.text), `the error answer to ${label} shows internals: ${response.text}`);
    }
    const webhookRoute = route.includes('/webhooks/');
    assert.ok((webhookRoute && admin) || !response.text.includes(webhookCredential), `the webhook credential is in ${label}`);
    // 3. Secret-like fields never carry a value.
    if (response.json !== undefined && !TOKEN_ENDPOINTS.has(route)) {
      for (const [key, value] of secretLikeFields(response.json)) {
        assert.ok(value === '' || value === null || value === undefined || value === false, `${label}: ${key} carries ${JSON.stringify(value)}`);
      }
    }
  }

  // 4. The store keeps hashes only: no password or token in the database files.
  const databaseBytes = Buffer.concat(
    fs.readdirSync(server.dataDir).filter((name) => name.startsWith('solardesk.sqlite')).map((name) => fs.readFileSync(path.join(server.dataDir, name))),
  );
  const storedHashedOnly: Array<[string, string]> = [
    ...never.filter(([what]) => what === 'the demo password' || what === 'a wrong password' || what === 'a token'),
    ['a schedule feed secret', feedSecret],
  ];
  for (const [what, secret] of storedHashedOnly) {
    assert.ok(!databaseBytes.includes(Buffer.from(secret)), `${what} is stored in plain text`);
  }
  tally.notes.push(`${answers.length} answers and ${output.split('\n').length} log lines searched for ${never.length + 2 + signatures.length} secrets; none found where it must not be`);
});

test('summary', (t) => reportTally(t, tally));

/** Every [key path, value] of a JSON value whose key looks like it holds a secret. */
function secretLikeFields(value: unknown, at = ''): Array<[string, unknown]> {
  if (Array.isArray(value)) return value.flatMap((item, index) => secretLikeFields(item, `${at}[${index}]`));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, child]) => [
    ...(SECRET_LIKE_KEY.test(key) ? [[`${at}.${key}`, child] as [string, unknown]] : []),
    ...secretLikeFields(child, `${at}.${key}`),
  ]);
}

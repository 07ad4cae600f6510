// The agent against a remote that lies (issue 34 items 4-9, issue 36 item 2, issue
// 25 items 9 and 10; docs/sync.md "What the agent takes from a remote: transport and
// limits"). The server runs in this process, `solardesk agent` in its own (its memory
// is measured, and an answer that crashed it must not take this test down), and the
// fault proxy between them answers for the remote where a test says so: links that
// lead to file:// or another port, an endless redirect, a 450 MB list, JSON nested
// 100,000 deep, a change-feed line that never ends, a 200 MB notes field, 500s, a
// Retry-After of 999999 and an answer that never comes. Only the network is faked.
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import { makeTempDir, startTestServer, type TestServer } from '../../engine/testing/test-server.ts';
import { DEMO_PASSWORD, DEMO_USERS } from '../../engine/seed/demo-seed.ts';
import { startFaultProxy, type FaultProxy } from '../testing/fault-proxy.ts';
import { killAgent, startAgentProcess, type AgentProcess } from '../testing/agent-process.ts';
import { REMOTE_LIMITS } from '../remote-limits.ts';
import { apiPaths, syncPaths } from '../../../shared/api-paths.ts';
import { STATE_HANG_GUARD_MS } from '../../testing/hang-guards.ts';

const MB = 1024 * 1024;

/**
 * The most bytes the kernel can hold between the proxy and the agent on one loopback
 * connection: the sender's socket buffer and the receiver's, at their largest (Linux
 * grows both while a reader is slow, as on a loaded machine). What the proxy wrote
 * beyond what the agent took is at most this. 8 MB elsewhere, where /proc has no say.
 */
function socketBuffersMaxBytes(): number {
  const largest = (file: string) => Number(fs.readFileSync(file, 'utf8').trim().split(/\s+/).at(-1));
  try {
    const bytes = largest('/proc/sys/net/ipv4/tcp_wmem') + largest('/proc/sys/net/ipv4/tcp_rmem');
    return Number.isFinite(bytes) && bytes > 0 ? bytes : 8 * MB;
  } catch {
    return 8 * MB;
  }
}
/** How far the agent's peak memory may rise over its peak before each hostile answer (before the fix: GBs). */
const MEMORY_BOUND_MB = 256;
const PROJECT_LIST = /^\/api\/orgs\/1\/projects\/$/;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor<T>(what: string, check: () => Promise<T | undefined | null | false> | T | undefined | null | false, timeoutMs = STATE_HANG_GUARD_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** The agent process's memory now and at its peak (VmRSS, VmHWM), in MB. */
function memoryOf(agent: AgentProcess): { rss: number; peak: number } {
  const status = fs.readFileSync(`/proc/${agent.child.pid}/status`, 'utf8');
  const read = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)![1]) / 1024;
  return { rss: read('VmRSS'), peak: read('VmHWM') };
}

/**
 * Writes `head`, then `filler` until `totalBytes` went out or the agent cut the
 * connection, then `tail`: a huge answer streamed, never held. Returns the bytes sent.
 */
async function streamAnswer(response: http.ServerResponse, contentType: string, head: string, filler: Buffer, totalBytes: number, tail: string): Promise<number> {
  response.writeHead(200, { 'content-type': contentType });
  response.write(head);
  let sent = 0;
  const deadline = Date.now() + 120_000;
  while (sent < totalBytes && !response.destroyed && Date.now() < deadline) {
    sent += filler.length;
    if (!response.write(filler)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          response.off('drain', done);
          response.off('close', done);
          resolve();
        };
        response.on('drain', done);
        response.on('close', done);
      });
    }
  }
  if (!response.destroyed) response.end(tail);
  return sent;
}

let server: TestServer;
let proxy: FaultProxy;
let agent: AgentProcess;
let dataDir: string;
let remoteToken: string;
/** A server on another port of 127.0.0.1 that a lying link names: it must never be asked. */
let foreign: http.Server;
let foreignRequests = 0;

async function local(method: string, urlPath: string, body?: unknown) {
  const response = await fetch(`${agent.localApiUrl}${urlPath}`, {
    method,
    headers: { authorization: `Bearer ${agent.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  return { status: response.status, json: (text ? JSON.parse(text) : null) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

const syncStatus = async () => (await local('GET', syncPaths.status(1))).json as { state: string; detail: string | null; next_attempt_at: string | null; pending: number; last_synced_at: string | null };

/**
 * Asks for a whole pull now (resume wakes sync as a person would) and waits until a cycle ends with a detail
 * matching `detail`; with null, until a cycle that started after the ask ended well (resume itself says "idle").
 */
async function syncUntil(detail: RegExp | null, timeoutMs = 120_000) {
  const asked = new Date().toISOString();
  await local('POST', syncPaths.resume(1));
  const start = proxy.log.length;
  let last: Awaited<ReturnType<typeof syncStatus>> | undefined;
  try {
    return await waitFor(`a sync cycle ending with ${detail ?? 'nothing to report'}`, async () => {
      const status = (last = await syncStatus());
      if (status.state === 'syncing') return undefined;
      return (detail === null ? status.detail === null && status.state === 'idle' && (status.last_synced_at ?? '') > asked : detail.test(status.detail ?? '')) && status;
    }, timeoutMs);
  } catch (error) {
    const requests = proxy.log.slice(start, start + 20).map((entry) => `${entry.method} ${entry.path}?${entry.query} ${entry.status}`);
    throw new Error(`${(error as Error).message}; last status ${JSON.stringify(last)}; requests: ${requests.join(', ')}; the agent said: ${agent.output().slice(-1500)}`);
  }
}

async function remote(method: string, urlPath: string, body?: unknown) {
  const response = await fetch(`${server.baseUrl}${urlPath}`, {
    method,
    headers: { authorization: `Bearer ${remoteToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await response.json()) as any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

// Polls far apart: every cycle here is asked for, and a wait the remote asked for is not hidden by a shorter poll.
const agentArgs = () => ['--data', dataDir, '--poll-interval', '36000'];

/** What the too-long link would send: well beyond the file, the margin and every socket buffer, so the cut-off shows. */
const TOO_LONG_BYTES = 40 * MB + socketBuffersMaxBytes();

describe('the agent against a lying remote', () => {
  /** Files whose links the proxy replaces with bad ones, by id: what each link is. */
  const badLinks = new Map<number, string>();
  let loopHits = 0;
  /** A file whose link sends far more bytes than its record's filesize, and the most one fetch of it took. */
  let tooLongFile: { id: number; filesize: number };
  let tooLongSent = 0;

  before(async () => {
    server = await startTestServer();
    remoteToken = await server.tokenFor(DEMO_USERS.sunriseAdmin);
    proxy = await startFaultProxy(server.baseUrl);
    foreign = http.createServer((request, response) => {
      foreignRequests++;
      response.end('not for the agent');
    });
    await new Promise<void>((resolve) => foreign.listen(0, '127.0.0.1', resolve));
    const files = (await remote('GET', `${apiPaths.privateFiles(1)}?limit=4&ordering=created_date`)) as Array<{ id: number; filesize: number }>;
    assert.equal(files.length, 4);
    tooLongFile = files[3]!;
    badLinks.set(files[0]!.id, `${proxy.url}/links/to-a-file-url/`);
    badLinks.set(files[1]!.id, `http://127.0.0.1:${(foreign.address() as { port: number }).port}/steal/`);
    badLinks.set(files[2]!.id, `${proxy.url}/links/loop/`);
    badLinks.set(files[3]!.id, `${proxy.url}/links/too-long/`);
    // The lying remote's links: the file records it answers name them (lists and details alike).
    proxy.addRule({ path: /^\/links\/to-a-file-url\/$/, action: { kind: 'respond', run: (_request, response) => void response.writeHead(302, { location: 'file:///etc/passwd' }).end() } });
    proxy.addRule({
      path: /^\/links\/too-long\/$/,
      action: { kind: 'respond', run: async (_request, response) => void (tooLongSent = Math.max(tooLongSent, await streamAnswer(response, 'application/octet-stream', '', Buffer.alloc(64 * 1024, 'b'), TOO_LONG_BYTES, ''))) },
    });
    proxy.addRule({
      path: /^\/links\/loop\/$/,
      action: {
        kind: 'respond',
        run: (_request, response) => {
          loopHits++;
          response.writeHead(302, { location: `${proxy.url}/links/loop/` }).end();
        },
      },
    });
    proxy.addRule({
      method: 'GET',
      path: /^\/api\/orgs\/1\/(private_files|projects)\//,
      action: {
        kind: 'respond',
        run: async (_request, response, forward) => {
          const answer = await forward();
          let body = answer.body;
          if (answer.status === 200) {
            const json = JSON.parse(body.toString('utf8'));
            const relink = (value: unknown): void => {
              if (Array.isArray(value)) value.forEach(relink);
              else if (typeof value === 'object' && value !== null) {
                const record = value as Record<string, unknown>;
                if (typeof record.file_contents === 'string' && badLinks.has(record.id as number)) record.file_contents = badLinks.get(record.id as number);
                Object.values(record).forEach(relink);
              }
            };
            relink(json);
            body = Buffer.from(JSON.stringify(json));
          }
          const headers = { ...answer.headers, 'content-length': String(body.length) };
          delete headers['transfer-encoding'];
          response.writeHead(answer.status, headers).end(body);
        },
      },
    });
    dataDir = makeTempDir('solardesk-lying-remote-');
    agent = await startAgentProcess([...agentArgs(), '--remote', proxy.url, '--username', DEMO_USERS.sunriseAdmin, '--password-stdin'], `${DEMO_PASSWORD}\n`);
    await waitFor('the first sync', async () => {
      const status = await syncStatus();
      return status.state === 'idle' && status.detail === null && status.pending === 0 && (await local('GET', apiPaths.privateFile(1, files[2]!.id))).status === 200;
    });
  });

  // Each test's lies end with it (the links' rewriting, set before the agent started, with the first).
  afterEach(() => proxy.clearRules());
  // Also when the links' test did not run (a --test-name-pattern run): its rewriting must not answer for the others.
  beforeEach((context) => {
    if (!/link/.test((context as { name?: string }).name ?? '')) proxy.clearRules();
  });

  after(async () => {
    if (agent) await killAgent(agent);
    await proxy?.close();
    foreign?.closeAllConnections();
    await new Promise((resolve) => foreign?.close(resolve));
    await server?.engine.close();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    if (server) fs.rmSync(server.dataDir, { recursive: true, force: true });
  });

  test('a link to file://, to another port, into a redirect loop, or sending more than the file holds fails that file with a sentence; the agent keeps answering and forgets the link', async () => {
    const reasons: Record<string, RegExp> = {
      'to-a-file-url': /a file: link, and only http\(s\) links are fetched/,
      steal: /points to 127\.0\.0\.1:\d+, which is neither the remote .* add it under --download-hosts/,
      loop: /the link redirected more than 5 times/,
      'too-long': /the remote sent more than the \d+ bytes the file holds/,
    };
    for (const [fileId, link] of badLinks) {
      const file = (await local('GET', apiPaths.privateFile(1, fileId))).json as { file_contents: string; project: string | null };
      const response = await fetch(file.file_contents, { headers: { authorization: `Bearer ${agent.token}` }, signal: AbortSignal.timeout(30_000) });
      const answer = (await response.json()) as { detail: string };
      // A link the agent will not follow is 502 with the reason (trying again changes nothing); a remote that sent too much, 503.
      const isRefusedLink = !link.includes('too-long');
      assert.equal(response.status, isRefusedLink ? 502 : 503, `file ${fileId} (${link}): ${JSON.stringify(answer)}`);
      const reason = Object.entries(reasons).find(([name]) => link.includes(name))![1];
      assert.match(answer.detail, isRefusedLink ? /were not fetched: / : /could not be fetched .*Try again/);
      assert.match(answer.detail, reason);
      assert.equal((await local('GET', syncPaths.status(1))).status, 200, 'the agent still answers');
      // Not kept for its hour: the next open asks the remote for a link again.
      const projectId = Number(/\/projects\/(\d+)\//.exec(file.project ?? '')?.[1]);
      if (projectId) {
        const contents = (await local('GET', syncPaths.projectContents(1, projectId))).json as { files: Array<{ id: number; link_expires_at: string | null }> };
        assert.equal(contents.files.find((entry) => entry.id === fileId)?.link_expires_at, null, `file ${fileId}'s bad link is not remembered`);
      }
    }
    assert.equal(foreignRequests, 0, 'a link to another port is never requested');
    // Cut off once past the record's filesize and the margin: the proxy wrote at most that, what the socket buffers
    // held, and one more piece of its own. (An allowance of 8 MB for the buffers failed at load 15, with 9.9 MB written.)
    const inFlight = socketBuffersMaxBytes() + 64 * 1024;
    assert.ok(tooLongSent < TOO_LONG_BYTES, `the remote was cut off before it sent all ${TOO_LONG_BYTES} bytes`);
    assert.ok(tooLongSent <= tooLongFile.filesize + REMOTE_LIMITS.downloadMarginBytes + inFlight, `bytes the proxy wrote of a too-long download: ${tooLongSent} (in flight at most ${inFlight})`);
    // Two fetches (the remembered link, then the one a detail GET gave), each at most 5 redirects.
    assert.ok(loopHits <= 2 * (REMOTE_LIMITS.redirects + 1), `requests for the looping link: ${loopHits}`);
    assert.equal(agent.child.exitCode, null, 'the agent is running');
    proxy.clearRules();
  });

  test('a 450 MB project list is cut off at the answer limit, with a reason, and memory stays bounded', async (t) => {
    const before = memoryOf(agent);
    let sent = 0;
    const record = Buffer.from(`{"id":99999,"title":"${'big list '.repeat(100)}","notes":"${'x'.repeat(8000)}"},`);
    proxy.addRule({
      method: 'GET', path: PROJECT_LIST, times: 1,
      action: { kind: 'respond', run: async (_request, response) => void (sent = await streamAnswer(response, 'application/json', '[', Buffer.concat(Array(64).fill(record)), 450 * MB, '{"id":1}]')) },
    });
    const status = await syncUntil(/answer is over 32 MB/);
    assert.match(status.detail!, /SolarDesk tries again/);
    const after = memoryOf(agent);
    t.diagnostic(`agent memory: peak ${Math.round(before.peak)} MB before, ${Math.round(after.peak)} MB after; now ${Math.round(after.rss)} MB; ${Math.round(sent / MB)} MB sent`);
    assert.ok(sent < 100 * MB, `the agent stopped reading after ${Math.round(sent / MB)} MB`);
    assert.ok(after.peak < before.peak + MEMORY_BOUND_MB, `peak memory ${Math.round(after.peak)} MB, was ${Math.round(before.peak)} MB`);
    proxy.clearRules();
    await syncUntil(null);
  });

  test('JSON nested 100,000 levels deep is refused with a reason, not a stack overflow', async () => {
    const depth = 100_000;
    proxy.addRule({
      method: 'GET', path: PROJECT_LIST, times: 1,
      action: { kind: 'respond', run: (_request, response) => void response.writeHead(200, { 'content-type': 'application/json' }).end(`${'['.repeat(depth)}${']'.repeat(depth)}`) },
    });
    const status = await syncUntil(/nested more than 256 levels deep/);
    assert.equal(status.state, 'idle');
    assert.doesNotMatch(status.detail!, /call stack/);
    proxy.clearRules();
    await syncUntil(null);
  });

  test('a change-feed line that never ends is cut off and the stream reopened; memory stays bounded', async (t) => {
    const before = memoryOf(agent);
    const streams = () => proxy.count('GET', /\/changes\/stream\/$/);
    let sent = 0;
    proxy.addRule({
      method: 'GET', path: /\/changes\/stream\/$/, times: 1,
      action: { kind: 'respond', run: async (_request, response) => void (sent = await streamAnswer(response, 'text/event-stream', 'data: ', Buffer.alloc(64 * 1024, 'x'), 400 * MB, '\n\n')) },
    });
    const opened = streams();
    // Cut the stream the agent holds now: it reconnects, and meets the endless line.
    proxy.setOffline(true);
    await sleep(50);
    proxy.setOffline(false);
    await waitFor('the endless stream to be answered', () => streams() > opened);
    const cutOff = streams();
    await waitFor('the stream to be reopened after the endless line', () => streams() > cutOff, 60_000);
    const after = memoryOf(agent);
    t.diagnostic(`agent memory: peak ${Math.round(before.peak)} MB before, ${Math.round(after.peak)} MB after; now ${Math.round(after.rss)} MB; ${Math.round(sent / MB)} MB sent`);
    assert.ok(sent < 16 * MB, `the agent stopped reading the line after ${Math.round(sent / MB)} MB`);
    assert.ok(after.peak < before.peak + MEMORY_BOUND_MB, `peak memory ${Math.round(after.peak)} MB, was ${Math.round(before.peak)} MB`);
    proxy.clearRules();
  });

  test('a record with a 200 MB notes field is refused with a logged reason, the rest of its page is taken, and memory stays bounded', async (t) => {
    const newTitle = `Renamed on the remote ${Date.now()}`;
    const renamed = (await remote('GET', `${apiPaths.projects(1)}?ordering=-modified_date&limit=2`)) as Array<{ id: number }>;
    const renamedId = renamed[1]!.id;
    await remote('PATCH', apiPaths.project(1, renamedId), { title: newTitle });
    let hugeId = 0;
    let sent = 0;
    const before = memoryOf(agent);
    proxy.addRule({
      method: 'GET', path: PROJECT_LIST, times: 1,
      action: {
        kind: 'respond',
        run: async (_request, response, forward) => {
          const page = JSON.parse((await forward()).body.toString('utf8')) as Array<{ id: number; notes?: string; modified_date?: string }>;
          const huge = page.find((project) => project.id !== renamedId)!;
          hugeId = huge.id;
          huge.notes = '@@NOTES@@';
          huge.modified_date = new Date().toISOString();
          const [head, tail] = JSON.stringify(page).split('@@NOTES@@');
          sent = await streamAnswer(response, 'application/json', head!, Buffer.alloc(MB, 'n'), 200 * MB, tail!);
        },
      },
    });
    const logged = agent.output().length;
    await local('POST', syncPaths.resume(1));
    // The cycle's status says it, and the agent logs it (a hint from the change feed may start the next cycle at once).
    await waitFor('the refusal in the log', () => hugeId && new RegExp(`project ${hugeId} \\(a text field over 16 MB; the record was refused\\)`).test(agent.output().slice(logged)), 120_000);
    assert.equal((await local('GET', apiPaths.project(1, renamedId))).json.title, newTitle, 'the rest of the page was taken');
    assert.ok(((await local('GET', apiPaths.project(1, hugeId))).json.notes ?? '').length < MB, 'the huge notes were not stored');
    const after = memoryOf(agent);
    t.diagnostic(`agent memory: peak ${Math.round(before.peak)} MB before, ${Math.round(after.peak)} MB after; now ${Math.round(after.rss)} MB; ${Math.round(sent / MB)} MB sent`);
    assert.ok(sent >= 200 * MB, 'the whole answer was read (the page was taken)');
    assert.ok(after.peak < before.peak + MEMORY_BOUND_MB, `peak memory ${Math.round(after.peak)} MB, was ${Math.round(before.peak)} MB`);
    proxy.clearRules();
  });

  test('a remote answering 500 to everything gets a bounded number of requests (exponential backoff)', async (t) => {
    proxy.addRule({ path: /^\/api\//, action: { kind: 'status', status: 500, body: { detail: 'Server Error' } } });
    const start = proxy.log.length;
    // A change waiting to go up: before, its retry being due made every cycle follow the last at once (~18 a second).
    assert.equal((await local('PATCH', apiPaths.project(1, 2), { notes: 'edited while the remote fails' })).status, 200);
    await sleep(10_000); // the window counted: backoff from 1 s doubles to 2, 4, 8 s
    const requests = proxy.log.slice(start).filter((entry) => entry.status === 500);
    const status = await syncStatus();
    t.diagnostic(`requests to the failing remote in 10 s: ${requests.length}`);
    assert.ok(requests.length <= 15, `requests to a failing remote in 10 s: ${requests.length} (${requests.map((entry) => entry.path).join(', ')})`);
    assert.match(status.detail ?? '', /had a problem \(HTTP 500\)/);
    proxy.clearRules();
    await syncUntil(null);
    assert.equal((await remote('GET', apiPaths.project(1, 2))).notes, 'edited while the remote fails', 'the change went up once the remote was well');
  });

  test('SIGTERM during an answer that never comes stops the agent within 5 s', async () => {
    proxy.addRule({ method: 'GET', path: PROJECT_LIST, action: { kind: 'respond', run: () => undefined } }); // holds the request, never answers
    const held = proxy.count('GET', PROJECT_LIST);
    await local('POST', syncPaths.resume(1));
    await waitFor('the request to be held', () => proxy.count('GET', PROJECT_LIST) > held);
    const started = Date.now();
    await killAgent(agent, 'SIGTERM');
    const took = Date.now() - started;
    assert.ok(took < 5000, `the agent took ${took} ms to stop`);
    assert.equal(agent.child.exitCode, 0, agent.output());
    proxy.clearRules();
    agent = await startAgentProcess(agentArgs());
    await syncUntil(null);
  });

  test('Retry-After: 999999 is capped at an hour, SIGTERM still stops the agent, and a restart honours the wait', async () => {
    await syncUntil(null); // nothing of an earlier cycle still on its way
    proxy.addRule({ path: /^\/api\//, action: { kind: 'status', status: 429, body: { detail: 'Request was throttled.' }, headers: { 'retry-after': '999999' } } });
    const status = await syncUntil(/asked to wait/);
    const waitMs = Date.parse(status.next_attempt_at!) - Date.now();
    assert.ok(waitMs > 55 * 60_000 && waitMs <= 60 * 60_000 + 5000, `the next try in ${Math.round(waitMs / 60_000)} min`);
    const started = Date.now();
    await killAgent(agent, 'SIGTERM');
    assert.ok(Date.now() - started < 5000, `the agent took ${Date.now() - started} ms to stop`);
    proxy.clearRules();
    const before = proxy.log.length;
    agent = await startAgentProcess(agentArgs());
    const restarted = await syncStatus();
    const stillMs = Date.parse(restarted.next_attempt_at ?? '') - Date.now();
    assert.ok(stillMs > 55 * 60_000, `after a restart the next try is in ${Math.round(stillMs / 60_000)} min: ${JSON.stringify(restarted)}`);
    await sleep(3000);
    const asked = proxy.log.slice(before).filter((entry) => PROJECT_LIST.test(entry.path));
    assert.equal(asked.length, 0, 'no project list was asked for during the wait');
  });
});

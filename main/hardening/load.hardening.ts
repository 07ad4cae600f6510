// Load: 50 concurrent clients (autocannon) for 60 s against a mixed workload
// (project lists, details, PATCHes, contact lists, private file lists) of four
// users of two orgs, on `solardesk server` with its DEFAULT quotas. Every answer
// must be a success or the expected 429 (with Retry-After and DRF's detail); no
// connection errors or timeouts. From the answers' own timing, no user (and no
// org) was ever admitted more than its quota in any window of the table in
// shared/throttle-rates.ts, and each quota was actually reached. p99 latency is
// reported. This is the suite's one long test.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { apiPaths } from '../../shared/api-paths.ts';
import { DEFAULT_THROTTLE_RATES, parseRate, type ActionQuota, type Rate, type ThrottleAction } from '../../shared/throttle-rates.ts';
import { outputTail } from './checks.ts';
import { jsonRequest, startHardeningServer, type DemoUser, type HardeningServer } from './hardening-server.ts';
import { quantile, runLoad, type LoadRequest } from './load-generator.ts';
import { newTally, reportTally } from './summary.ts';

const DURATION_SECONDS = 60;
const THROTTLED = /^Request was throttled\. Expected available in (\d+) seconds\.$/;

interface Worker {
  user: DemoUser;
  org: number;
  connections: number;
  /** A project this user may see and change. */
  project: number;
  files: boolean;
}

/** 50 connections in all. The viewer is not Pro, so it lists no private files. */
const WORKERS: Worker[] = [
  { user: 'sunriseAdmin', org: 1, connections: 15, project: 3, files: true },
  { user: 'sunriseMember', org: 1, connections: 12, project: 1, files: true },
  { user: 'sunriseViewer', org: 1, connections: 11, project: 5, files: false },
  { user: 'basicAdmin', org: 2, connections: 12, project: 0, files: true },
];

interface Answer {
  user: DemoUser;
  org: number;
  action: ThrottleAction;
  status: number;
  sentAt: number;
  receivedAt: number;
}

const tally = newTally('load');
/** Actions that share a bucket share one count (private files: reads and writes together). */
const quotaOf = (action: ThrottleAction): ActionQuota => DEFAULT_THROTTLE_RATES[action];
const bucketOf = (action: ThrottleAction): string => quotaOf(action).bucket ?? action;
const limitOf = (rate: Rate | null) => {
  if (!rate) throw new Error('the load test reads only scopes that have a quota');
  return parseRate(rate);
};
let server: HardeningServer;

before(async () => {
  server = await startHardeningServer();
  const basic = await server.request(jsonRequest('GET', '/api/orgs/2/projects/?ordering=id&limit=1', undefined, await server.tokenFor('basicAdmin')));
  WORKERS[3]!.project = basic.json[0].id;
});

after(async () => {
  const code = await server?.stop();
  if (server) fs.rmSync(path.dirname(server.dataDir), { recursive: true, force: true });
  assert.equal(code, 0);
});

/** The most admissions any window of `windowMs` certainly held: an admission happened between its request and its answer. */
function mostInOneWindow(admissions: Answer[], windowMs: number): number {
  const sorted = [...admissions].sort((a, b) => a.sentAt - b.sentAt);
  let most = 0;
  for (let first = 0; first < sorted.length; first++) {
    const start = sorted[first]!.sentAt;
    let inside = 0;
    for (let next = first; next < sorted.length; next++) if (sorted[next]!.receivedAt < start + windowMs) inside++;
    most = Math.max(most, inside);
  }
  return most;
}

test(`50 clients for ${DURATION_SECONDS} s on the default quotas: only 200s and 429s, no quota exceeded`, async (t) => {
  const answers: Answer[] = [];
  const wrongAnswers: string[] = [];
  let patchNumber = 0;
  const runs = await Promise.all(
    WORKERS.map(async (worker) => {
      const token = await server.tokenFor(worker.user);
      const step = (action: ThrottleAction, method: string, urlPath: string, body?: () => string): LoadRequest => ({
        method,
        path: urlPath,
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        setupRequest: (request, context) => {
          context.sentAt = performance.now();
          return body ? { ...request, body: body() } : request;
        },
        onResponse: (status, responseBody, context, headers) => {
          const receivedAt = performance.now();
          answers.push({ user: worker.user, org: worker.org, action, status, sentAt: Number(context.sentAt ?? 0), receivedAt });
          if (status === 429) {
            const retryAfter = String(headers['retry-after'] ?? '');
            const detail = (JSON.parse(responseBody) as { detail?: string }).detail ?? '';
            if (!/^\d+$/.test(retryAfter) || THROTTLED.exec(detail)?.[1] !== retryAfter) wrongAnswers.push(`429 without a matching Retry-After: ${retryAfter} ${detail}`);
          } else if (status !== 200) {
            wrongAnswers.push(`${worker.user} ${method} ${urlPath}: ${status} ${responseBody.slice(0, 200)}`);
          }
        },
      });
      const requests = [
        step('default', 'GET', `${apiPaths.projects(worker.org)}?limit=20`),
        step('project_detail', 'GET', apiPaths.project(worker.org, worker.project)),
        step('project_partial_update', 'PATCH', apiPaths.project(worker.org, worker.project), () => JSON.stringify({ notes: `load ${++patchNumber}` })),
        step('default', 'GET', `${apiPaths.contacts(worker.org)}?limit=20`),
        ...(worker.files ? [step('private_file_list', 'GET', `${apiPaths.privateFiles(worker.org)}?limit=20`)] : []),
      ];
      return runLoad({ url: server.baseUrl, connections: worker.connections, duration: DURATION_SECONDS, timeout: 30, requests });
    }),
  );
  tally.inputs += answers.length;

  assert.ok(server.alive(), outputTail(server));
  for (const run of runs) {
    assert.equal(run.errors, 0, 'no connection errors');
    assert.equal(run.timeouts, 0, 'no timeouts');
  }
  assert.deepEqual(wrongAnswers.slice(0, 10), [], `${wrongAnswers.length} answers were neither 200 nor a proper 429`);

  const admitted = answers.filter((answer) => answer.status === 200);
  const checked: string[] = [];
  // Per user: each bucket of the table, in its own window.
  for (const worker of WORKERS) {
    for (const bucket of new Set(answers.filter((answer) => answer.user === worker.user).map((answer) => bucketOf(answer.action)))) {
      const inBucket = admitted.filter((answer) => answer.user === worker.user && bucketOf(answer.action) === bucket);
      const rate = quotaOf(answers.find((answer) => bucketOf(answer.action) === bucket)!.action).user;
      const { limit, windowSeconds } = limitOf(rate);
      const most = mostInOneWindow(inBucket, windowSeconds * 1000);
      assert.ok(most <= limit, `${worker.user} ${bucket}: ${most} admitted within one ${windowSeconds}-second window, over the quota of ${limit}`);
      checked.push(`${worker.user} ${bucket} ${most}/${limit} ${windowSeconds === 60 ? 'a minute' : 'an hour'}`);
    }
  }
  // Per org: every org quota the run could reach (Sunrise's files: 1000 a day for the org, reads and writes together).
  for (const org of [1, 2]) {
    for (const action of ['project_partial_update', 'project_detail', 'default', 'private_file_list'] as const) {
      const count = admitted.filter((answer) => answer.org === org && bucketOf(answer.action) === bucketOf(action)).length;
      const { limit, windowSeconds } = limitOf(quotaOf(action).org);
      assert.ok(windowSeconds * 1000 > DURATION_SECONDS * 1000 * 2, 'an org window outlasts the run, so every admission counts against one window');
      assert.ok(count <= limit, `org ${org} ${bucketOf(action)}: ${count} admitted, over ${quotaOf(action).org}`);
    }
  }
  // The quotas were reached, not merely not exceeded: every user filled its PATCH and detail minute, and Sunrise its day of files.
  for (const worker of WORKERS) {
    for (const action of ['project_partial_update', 'project_detail'] as const) {
      const count = admitted.filter((answer) => answer.user === worker.user && answer.action === action).length;
      assert.ok(count >= limitOf(quotaOf(action).user).limit, `${worker.user} got only ${count} ${action} admitted`);
    }
  }
  const sunriseFiles = admitted.filter((answer) => answer.org === 1 && answer.action === 'private_file_list').length;
  assert.equal(sunriseFiles, limitOf(quotaOf('private_file_list').org).limit, "Sunrise Solar's daily private-file quota is reached exactly");

  const latencies = answers.map((answer) => answer.receivedAt - answer.sentAt);
  const admittedLatencies = admitted.map((answer) => answer.receivedAt - answer.sentAt);
  const throttled = answers.length - admitted.length;
  tally.notes.push(
    `${answers.length} requests in ${DURATION_SECONDS} s (${Math.round(answers.length / DURATION_SECONDS)}/s): ${admitted.length} admitted, ${throttled} answered 429, nothing else`,
    `latency p50 ${quantile(latencies, 0.5).toFixed(1)} ms, p99 ${quantile(latencies, 0.99).toFixed(1)} ms (admitted only: p99 ${quantile(admittedLatencies, 0.99).toFixed(1)} ms); autocannon p99 per user: ${runs.map((run) => run.latency.p99).join(', ')} ms`,
    `most admitted in one window / quota: ${checked.join(', ')}; Sunrise Solar's files ${sunriseFiles}/1000 a day`,
  );
  reportTally(t, tally);
});

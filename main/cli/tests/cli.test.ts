// The `solardesk` command as a user runs it: real processes, a real port, real signals.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { makeTempDir } from '../../engine/testing/test-server.ts';
import { withTestDatabase } from '../../engine/testing/test-database.ts';
import { repoRoot, signIn, solardeskBin, startServerProcess, stopServerProcess } from '../../engine/testing/server-process.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { PROCESS_HANG_GUARD_MS } from '../../testing/hang-guards.ts';

/** `solardesk ARGS`; on the PostgreSQL run a command naming --data also gets that folder's test schema. */
function run(args: string[], input?: string) {
  return spawnSync(process.execPath, [solardeskBin, ...withTestDatabase(args)], { encoding: 'utf8', input, cwd: repoRoot, timeout: PROCESS_HANG_GUARD_MS });
}

const startServer = startServerProcess;
const stop = stopServerProcess;

describe('solardesk command', () => {
  const dataDir = makeTempDir('solardesk-cli-');
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  test('a PostgreSQL store that cannot be reached is one line saying what to check, without the password', () => {
    const result = run(['server', '--data', dataDir, '--database', 'postgres://solardesk:not-this-secret@127.0.0.1:1/solardesk']);
    assert.equal(result.status, 1, result.stderr);
    assert.match(result.stderr, /^solardesk server: could not open PostgreSQL postgres:\/\/solardesk:\*\*\*@127\.0\.0\.1:1\/solardesk: .*Check that PostgreSQL is running/);
    assert.ok(!result.stderr.includes('not-this-secret'), 'the password is never printed');
    assert.ok(!/\n\s+at /.test(result.stderr), `no stack trace: ${result.stderr}`);
  });

  test('server --seed demo serves, answers, and exits 0 on SIGTERM; a second start never seeds twice', async () => {
    const first = await startServer(['--data', dataDir, '--seed', 'demo']);
    assert.match(first.baseUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
    const token = await signIn(first.baseUrl, 'admin@sunrise.example', 'solardesk-demo');
    const projects = await fetch(`${first.baseUrl}${apiPaths.projects(1)}?limit=100`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(((await projects.json()) as unknown[]).length, 48);
    assert.equal(await stop(first), 0);

    const second = await startServer(['--data', dataDir, '--seed', 'demo']);
    assert.match(second.stderr(), /already holds data/);
    const again = await fetch(`${second.baseUrl}${apiPaths.projects(1)}?limit=100`, {
      headers: { authorization: `Bearer ${await signIn(second.baseUrl, 'admin@sunrise.example', 'solardesk-demo')}` },
    });
    assert.equal(((await again.json()) as unknown[]).length, 48);
    assert.equal(await stop(second, 'SIGINT'), 0);
  });

  test('SIGTERM lets a request in flight finish', async () => {
    const server = await startServer(['--data', dataDir]);
    const body = JSON.stringify({ username: 'admin@sunrise.example', password: 'solardesk-demo' });
    // Send the headers and half the body, signal the server, then send the rest:
    // the request is certainly in flight when SIGTERM lands.
    const { port } = new URL(server.baseUrl);
    const request = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/api-token-auth/', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } });
    const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
      request.on('response', (incoming) => {
        let text = '';
        incoming.on('data', (chunk) => (text += chunk));
        incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, text }));
      });
      request.on('error', reject);
    });
    request.write(body.slice(0, 10));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const exited = stop(server);
    await new Promise((resolve) => setTimeout(resolve, 200));
    request.end(body.slice(10));
    const answered = await response;
    assert.equal(answered.status, 200, answered.text);
    assert.equal(await exited, 0);
  });

  test('--webhook-pipeline-window takes a whole number from 1 to 1000', () => {
    for (const value of ['0', '2.5', '1001', 'many']) {
      const refused = run(['server', '--data', dataDir, '--webhook-pipeline-window', value]);
      assert.equal(refused.status, 2, `${value}: ${refused.stderr}`);
      assert.match(refused.stderr, /--webhook-pipeline-window takes a/, value);
    }
  });

  test('--throttle-config sets the rates, and a bad file is refused with the reason', async () => {
    const dir = makeTempDir('solardesk-throttle-');
    try {
      const bad = path.join(dir, 'bad.json');
      fs.writeFileSync(bad, JSON.stringify({ project_fetch: { user: '1/min' } }));
      const refused = run(['server', '--data', dir, '--throttle-config', bad]);
      assert.equal(refused.status, 2);
      assert.match(refused.stderr, /unknown throttle action "project_fetch"/);
      fs.writeFileSync(bad, JSON.stringify({ project_detail: { user: 'lots' } }));
      assert.match(run(['server', '--data', dir, '--throttle-config', bad]).stderr, /must be a rate like "10\/min"/);

      const good = path.join(dir, 'rates.json');
      fs.writeFileSync(good, JSON.stringify({ project_detail: { user: '1/min' } }));
      const server = await startServer(['--data', dir, '--seed', 'demo', '--throttle-config', good]);
      try {
        const token = await signIn(server.baseUrl, 'admin@sunrise.example', 'solardesk-demo');
        const get = () => fetch(`${server.baseUrl}${apiPaths.project(1, 1)}`, { headers: { authorization: `Bearer ${token}` } });
        assert.equal((await get()).status, 200);
        const throttled = await get();
        assert.equal(throttled.status, 429);
        assert.match(throttled.headers.get('retry-after') ?? '', /^\d+$/);
      } finally {
        await stop(server);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('admin sets up a real org, user, plan and token that the server accepts', async () => {
    const dir = makeTempDir('solardesk-admin-');
    try {
      const org = run(['admin', 'create-org', '--data', dir, '--name', 'Acme Solar']);
      assert.equal(org.status, 0, org.stderr);
      const orgId = org.stdout.trim();
      assert.match(orgId, /^\d+$/);
      const user = run(['admin', 'create-user', '--data', dir, '--email', 'Owner@Acme.example', '--password-stdin', '--org', orgId, '--admin', '--first-name', 'Olive'], 'a long password\n');
      assert.equal(user.status, 0, user.stderr);
      const tokenResult = run(['admin', 'issue-token', '--data', dir, '--email', 'owner@acme.example']);
      assert.equal(tokenResult.status, 0, tokenResult.stderr);
      const token = tokenResult.stdout.trim();

      const server = await startServer(['--data', dir]);
      try {
        const noPlan = await fetch(`${server.baseUrl}${apiPaths.org(Number(orgId))}`, { headers: { authorization: `Bearer ${token}` } });
        assert.equal(noPlan.status, 403);
        assert.match(((await noPlan.json()) as { detail: string }).detail, /no API plan/);
        const signedIn = await signIn(server.baseUrl, 'owner@acme.example', 'a long password');
        assert.ok(signedIn);
      } finally {
        assert.equal(await stop(server), 0);
      }

      const plan = run(['admin', 'set-plan', '--data', dir, '--org', orgId, '--plan', 'raw_data_api_access', '--start', '2025-01-01']);
      assert.equal(plan.status, 0, plan.stderr);
      assert.match(plan.stdout, /raw_data_api_access from 2025-01-01/);
      const restarted = await startServer(['--data', dir]);
      try {
        const withPlan = await fetch(`${restarted.baseUrl}${apiPaths.org(Number(orgId))}`, { headers: { authorization: `Bearer ${token}` } });
        assert.equal(withPlan.status, 200);
        const json = (await withPlan.json()) as { name: string; api_plan: string };
        assert.equal(json.name, 'Acme Solar');
        assert.equal(json.api_plan, 'raw_data_api_access');
      } finally {
        await stop(restarted);
      }

      const shown = run(['admin', 'show', '--data', dir]);
      assert.match(shown.stdout, /Acme Solar/);
      assert.match(shown.stdout, /owner@acme\.example \[admin, pro, all-projects, all-files, export\]/);
      const badPlan = run(['admin', 'set-plan', '--data', dir, '--org', orgId, '--plan', 'gold']);
      assert.equal(badPlan.status, 2);
      assert.match(badPlan.stderr, /--plan takes/);
      const missingOrg = run(['admin', 'add-member', '--data', dir, '--org', '999', '--email', 'owner@acme.example']);
      assert.equal(missingOrg.status, 1);
      assert.match(missingOrg.stderr, /no org 999/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('docs/api-with-curl.md', () => {
  test('the curl examples work against the demo seed', async () => {
    const page = fs.readFileSync(path.join(repoRoot, 'docs', 'api-with-curl.md'), 'utf8');
    const marked = /<!-- curl-examples:start -->([\s\S]*?)<!-- curl-examples:end -->/.exec(page)?.[1] ?? '';
    // Every sh block between the markers, in order, as one script (later blocks use the first one's $TOKEN).
    const block = [...marked.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]).join('\n');
    assert.ok(block, 'docs/api-with-curl.md has the marked curl blocks');
    const dir = makeTempDir('solardesk-readme-');
    const server = await startServer(['--data', dir, '--seed', 'demo']);
    try {
      const { port } = new URL(server.baseUrl);
      const script = `set -euo pipefail\n${block.replaceAll('127.0.0.1:8787', `127.0.0.1:${port}`)}`;
      const result = spawnSync('bash', ['-c', script], { encoding: 'utf8', timeout: PROCESS_HANG_GUARD_MS });
      assert.equal(result.status, 0, `stderr: ${result.stderr}\nstdout: ${result.stdout.slice(-2000)}`);
      assert.match(result.stdout, /"name":"Sunrise Solar"/);
      assert.match(result.stdout, /"address":"12 Example Street"/);
      assert.match(result.stdout, /kwh_quarterly/);
      assert.match(result.stdout, /\d+(\.\d+)? kW/);
      // Issue 16's examples: the systems list, a workflow PUT, and a shared project read by the partner org.
      assert.match(result.stdout, /"uuid":"[0-9a-f-]{36}","order":0/);
      assert.match(result.stdout, /share page: HTTP 200/);
      assert.match(result.stdout, /"title":"First call"/);
      assert.match(result.stdout, /"actions":\[\{"id":\d+,"title":"Phone the customer"/);
      assert.match(result.stdout, /"org_name":"Sunrise Solar"[^\n]*"shared_with":\[\{"org_id":2/);
      // The last answer: Basic Solar's list of projects shared with it holds Sunrise's project 1 and nothing else.
      const partnerList = JSON.parse(result.stdout.trimEnd().split('\n').at(-1) ?? '') as { id: number; org_id: number }[];
      assert.deepEqual(partnerList.map((project) => [project.id, project.org_id]), [[1, 1]]);
    } finally {
      await stop(server);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

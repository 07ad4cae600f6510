// kill -9 of the agent at many points during a push loses nothing and duplicates
// nothing: `solardesk server` and `solardesk agent` as separate processes, with the
// fault proxy (in this test process) between them.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { makeTempDir } from '../../engine/testing/test-server.ts';
import { signIn, startServerProcess, stopServerProcess, type ServerProcess } from '../../engine/testing/server-process.ts';
import { DEMO_PASSWORD, DEMO_USERS } from '../../engine/seed/demo-seed.ts';
import { startFaultProxy, type FaultProxy } from '../testing/fault-proxy.ts';
import { killAgent, startAgentProcess, type AgentProcess } from '../testing/agent-process.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { STATE_HANG_GUARD_MS } from '../../testing/hang-guards.ts';

const RUNS = 20;
let server: ServerProcess;
let proxy: FaultProxy;
let serverDir: string;
let dataDir: string;
let remoteToken: string;
before(async () => {
  serverDir = makeTempDir('solardesk-kill-server-');
  // Project writes at 10 a minute would make 20 runs take many minutes; this test is
  // about loss and duplicates, so the server allows more (pacing has its own tests).
  const rates = path.join(serverDir, 'rates.json');
  fs.writeFileSync(rates, JSON.stringify({ project_create: { user: '600/min' }, project_partial_update: { user: '600/min' } }));
  server = await startServerProcess(['--data', serverDir, '--seed', 'demo', '--throttle-config', rates]);
  proxy = await startFaultProxy(server.baseUrl);
  dataDir = makeTempDir('solardesk-agent-kill-');
  remoteToken = await signIn(server.baseUrl, DEMO_USERS.sunriseAdmin, DEMO_PASSWORD);
});
after(async () => {
  await proxy.close();
  await stopServerProcess(server);
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.rmSync(serverDir, { recursive: true, force: true });
});

async function local(agent: AgentProcess, method: string, urlPath: string, body?: unknown) {
  const response = await fetch(`${agent.localApiUrl}${urlPath}`, {
    method,
    headers: { authorization: `Bearer ${agent.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

async function remote(urlPath: string) {
  const response = await fetch(`${server.baseUrl}${urlPath}`, { headers: { authorization: `Bearer ${remoteToken}` } });
  return (await response.json()) as any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

test(`kill -9 of the agent at ${RUNS} points during a push: zero loss, zero duplicates`, async () => {
  const baseArgs = ['--data', dataDir, '--poll-interval', '3600', '--remote-throttle-config', path.join(serverDir, 'rates.json')];
  const first = await startAgentProcess([...baseArgs, '--remote', proxy.url, '--username', DEMO_USERS.sunriseAdmin, '--password-stdin'], `${DEMO_PASSWORD}\n`);
  assert.equal(fs.statSync(path.join(dataDir, 'local-api-token')).mode & 0o777, 0o600);
  assert.equal(fs.statSync(path.join(dataDir, 'remote-token')).mode & 0o777, 0o600);
  const remoteTokenValue = fs.readFileSync(path.join(dataDir, 'remote-token'), 'utf8');
  // The runs below edit projects 2 to RUNS + 1 offline, so the replica must hold them first:
  // SIGTERM aborts a pull in flight (issue 34), so stopping the agent before its first pull
  // ended would leave them missing (a 404 that a loaded machine hit).
  const pulled = Date.now() + 60_000;
  for (;;) {
    const status = (await local(first, 'GET', '/api/orgs/1/sync/status/')).json;
    if (status.state === 'idle' && (await local(first, 'GET', apiPaths.project(1, RUNS + 1))).status === 200) break;
    assert.ok(Date.now() < pulled, `the first pull did not end: ${JSON.stringify(status)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await killAgent(first, 'SIGTERM');
  assert.ok(!first.output().includes(remoteTokenValue), 'the remote token is never printed');

  let killedDuringPush = 0;
  for (let run = 1; run <= RUNS; run++) {
    proxy.setOffline(true);
    const agent = await startAgentProcess(baseArgs);
    const patched = await local(agent, 'PATCH', apiPaths.project(1, run + 1), { notes: `kill run ${run}` });
    assert.equal(patched.status, 200, `run ${run}: ${JSON.stringify(patched.json)}`);
    const created = await local(agent, 'POST', '/api/orgs/1/projects/', { title: `Kill run ${run}`, contacts_new: [{ first_name: `Killed${run}` }] });
    assert.equal(created.status, 201);
    const contact = await local(agent, 'POST', '/api/orgs/1/contacts/', { first_name: 'Standalone', family_name: `Kill${run}` });
    assert.equal(contact.status, 201);
    const requestsBefore = proxy.log.length;
    proxy.setOffline(false);
    // A different moment each run, from before the first request to the middle of the push.
    await new Promise((resolve) => setTimeout(resolve, (run * 173) % 1400));
    if (proxy.log.length > requestsBefore) killedDuringPush++;
    await killAgent(agent);
  }
  assert.ok(killedDuringPush >= RUNS / 2, `most kills landed during a push (${killedDuringPush}/${RUNS})`);

  const last = await startAgentProcess(baseArgs);
  try {
    const deadline = Date.now() + STATE_HANG_GUARD_MS;
    for (;;) {
      const status = (await local(last, 'GET', '/api/orgs/1/sync/status/')).json;
      if (status.pending === 0 && status.state === 'idle') break;
      assert.ok(Date.now() < deadline, `the agent did not finish syncing: ${JSON.stringify(status)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    await killAgent(last, 'SIGTERM');
  }

  for (let run = 1; run <= RUNS; run++) {
    assert.equal((await remote(apiPaths.project(1, run + 1))).notes, `kill run ${run}`, `run ${run}'s edit`);
    const projects = await remote(`${apiPaths.projects(1)}?search=${encodeURIComponent(`Kill run ${run}`)}&limit=100`);
    const exact = projects.filter((project: { title: string }) => project.title === `Kill run ${run}`);
    assert.equal(exact.length, 1, `run ${run}'s project exactly once`);
    assert.deepEqual(exact[0].contacts_data.map((c: { first_name: string }) => c.first_name), [`Killed${run}`]);
    const standalone = (await remote(`/api/orgs/1/contacts/?search=Standalone&limit=1000`)).filter((c: { family_name: string }) => c.family_name === `Kill${run}`);
    assert.equal(standalone.length, 1, `run ${run}'s contact exactly once`);
  }
});

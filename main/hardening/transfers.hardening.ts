// Transfers that carry on (issue 32, done-when): `solardesk agent` as a real child
// process on a 64 KB/s link that is cut every 10 s (the fault proxy in this process is
// the link), with `solardesk server` behind it. A 20 MB upload (dropped into the
// agent's API) and a 20 MB download (a person opening a file the server has) go on
// at once; in the middle the agent is killed with SIGKILL while edits wait in its
// queue, and started again. Checked: both files arrive whole (sha256), each direction
// carried at most 1.3 times the file's bytes (counted at the proxy), and the queued
// edits reach the server. Slow by nature (bandwidth): about 6 minutes.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { makeTempDir } from '../engine/testing/test-server.ts';
import { signIn, startServerProcess, stopServerProcess, type ServerProcess } from '../engine/testing/server-process.ts';
import { multipartBody, postMultipart } from '../engine/testing/multipart-upload.ts';
import { DEMO_PASSWORD, DEMO_USERS } from '../engine/seed/demo-seed.ts';
import { startFaultProxy, type FaultProxy } from '../sync/testing/fault-proxy.ts';
import { killAgent, startAgentProcess, type AgentProcess } from '../sync/testing/agent-process.ts';
import { downloadPartsDir } from '../sync/download-parts.ts';
import { apiPaths } from '../../shared/api-paths.ts';
import { newTally, reportTally } from './summary.ts';

const FILE_BYTES = 20_000_000;
const LINK_BYTES_PER_SECOND = 64_000;
const CUT_EVERY_MS = 10_000;
/** What the link may carry each way, over the file's bytes. */
const MAX_OVERHEAD = 1.3;
/** Parts of 3 s on this link, as the agent picks under a 64 KB/s cap (push-chunked.ts uploadSizesNow). */
const PART_BYTES = 192_000;
/** Bytes of each transfer after which the agent is killed. */
const KILL_AFTER_BYTES = 5_000_000;
/** The whole run's bound: twice what the link needs for both files at once, and the restart. */
const RUN_BOUND_MS = 2 * (FILE_BYTES / LINK_BYTES_PER_SECOND) * 1000 + 120_000;
const EDITED_PROJECTS = [2, 3, 4, 5];
const tally = newTally('transfers');

let server: ServerProcess;
let proxy: FaultProxy;
let serverDir: string;
let dataDir: string;
let remoteToken: string;
let agent: AgentProcess | null = null;

const sha256 = (bytes: Buffer) => crypto.createHash('sha256').update(bytes).digest('hex');

before(async () => {
  serverDir = makeTempDir('solardesk-transfers-server-');
  // This test is about bytes, not quotas (pacing has its own tests): the file requests a day allow the parts.
  const rates = path.join(serverDir, 'rates.json');
  fs.writeFileSync(rates, JSON.stringify({ project_partial_update: { user: '600/min' }, private_file_upload: { user: '10000/hour', org: '10000/day' }, private_file_create: { user: '10000/hour', org: '10000/day' }, private_file_detail: { user: '10000/hour', org: '10000/day' } }));
  server = await startServerProcess(['--data', serverDir, '--seed', 'demo', '--throttle-config', rates]);
  proxy = await startFaultProxy(server.baseUrl);
  // The server's file links name the server itself: they are rewritten to name the proxy, so downloads cross the link too.
  proxy.addRule({ method: 'GET', path: /^\/api\/.*private_files\//, action: { kind: 'rewrite', transform: (body) => JSON.parse(JSON.stringify(body).replaceAll(server.baseUrl, proxy.url)) } });
  dataDir = makeTempDir('solardesk-transfers-agent-');
  remoteToken = await signIn(server.baseUrl, DEMO_USERS.sunriseAdmin, DEMO_PASSWORD);
});
after(async () => {
  if (agent) await killAgent(agent);
  await proxy.close();
  await stopServerProcess(server);
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.rmSync(serverDir, { recursive: true, force: true });
});

async function local(method: string, urlPath: string, body?: unknown) {
  const response = await fetch(`${agent!.localApiUrl}${urlPath}`, {
    method,
    headers: { authorization: `Bearer ${agent!.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

async function remote(urlPath: string) {
  const response = await fetch(`${server.baseUrl}${urlPath}`, { headers: { authorization: `Bearer ${remoteToken}` } });
  return (await response.json()) as any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** Polls `check` every 500 ms until it holds, failing with `what` past the run's bound. */
async function until<T>(what: string, check: () => Promise<T | null | false>, deadline: number): Promise<T> {
  for (;;) {
    const value = await check().catch(() => null);
    if (value) return value;
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** A person opening the file: the local API answers its bytes once they are all here (null when the agent went away meanwhile). */
async function open(fileContents: string): Promise<Buffer | null> {
  try {
    const response = await fetch(fileContents);
    return response.ok ? Buffer.from(await response.arrayBuffer()) : null;
  } catch {
    return null;
  }
}

test('a 20 MB upload and a 20 MB download on a 64 KB/s link cut every 10 s arrive whole, each byte sent at most 1.3 times; queued edits survive kill -9', { timeout: RUN_BOUND_MS + 180_000 }, async (t) => {
  const baseArgs = ['--data', dataDir, '--poll-interval', '5', '--remote-throttle-config', path.join(serverDir, 'rates.json'), '--chunked-upload-above', String(PART_BYTES), '--upload-part-size', String(PART_BYTES)];
  agent = await startAgentProcess([...baseArgs, '--remote', proxy.url, '--username', DEMO_USERS.sunriseAdmin, '--password-stdin'], `${DEMO_PASSWORD}\n`);
  const deadline = Date.now() + RUN_BOUND_MS;

  // The server's file, for the download: made there before the link turns slow.
  const downBytes = crypto.randomBytes(FILE_BYTES);
  const made = await postMultipart(`${server.baseUrl}${apiPaths.privateFiles(1)}`, remoteToken, multipartBody({ title: 'Roof survey (down)', project: `${server.baseUrl}${apiPaths.project(1, 30)}` }, { fileName: 'survey-down.bin', contents: downBytes }));
  assert.equal(made.status, 201, JSON.stringify(made.json));
  const downId = (made.json as { id: number }).id;
  const downLink = await until('the server\u2019s file in the replica', async () => {
    const row = await local('GET', apiPaths.privateFile(1, downId));
    return row.status === 200 && (row.json.file_contents as string);
  }, deadline);

  // The first pull ended: the projects to edit are in the replica.
  await until('the first pull', async () => {
    const status = (await local('GET', '/api/orgs/1/sync/status/')).json;
    return status.state === 'idle' && (await local('GET', apiPaths.project(1, Math.max(...EDITED_PROJECTS)))).status === 200;
  }, deadline);

  proxy.setLinkSpeed(LINK_BYTES_PER_SECOND);
  proxy.cutEvery(CUT_EVERY_MS);
  const before = proxy.bytes;

  // The upload: dropped into the agent, which sends it in parts.
  const upBytes = crypto.randomBytes(FILE_BYTES);
  const dropped = await postMultipart(`${agent.localApiUrl}${apiPaths.privateFiles(1)}`, agent.token, multipartBody({ title: 'Roof survey (up)', project: '30' }, { fileName: 'survey-up.bin', contents: upBytes }));
  assert.equal(dropped.status, 201, JSON.stringify(dropped.json));
  // The download: a person opens the file; the answer comes once all its bytes are here.
  const firstOpen = open(downLink);
  // Edits queued behind the upload.
  for (const project of EDITED_PROJECTS) assert.equal((await local('PATCH', apiPaths.project(1, project), { notes: `edited on a slow link ${project}` })).status, 200);

  // In the middle of both transfers: kill -9, with the edits still queued.
  const partFile = path.join(downloadPartsDir(dataDir), `${downId}-${sha256(downBytes)}.part`);
  await until('both transfers under way', async () => proxy.bytes.up - before.up > KILL_AFTER_BYTES && (fs.statSync(partFile, { throwIfNoEntry: false })?.size ?? 0) > KILL_AFTER_BYTES, deadline);
  const pendingAtKill = (await local('GET', '/api/orgs/1/sync/status/')).json.pending as number;
  await killAgent(agent);
  assert.equal(await firstOpen, null, 'the open in flight ended with the agent');
  assert.ok(pendingAtKill >= EDITED_PROJECTS.length, `the edits were still queued at the kill (${pendingAtKill} pending)`);

  agent = await startAgentProcess(baseArgs);
  // The restarted agent answers on a port of its own: the file's link is read again from it.
  const linkAfterRestart = await until('the file in the restarted agent', async () => {
    const row = await local('GET', apiPaths.privateFile(1, downId));
    return row.status === 200 && (row.json.file_contents as string);
  }, deadline);
  const downloaded = await open(linkAfterRestart);
  assert.ok(downloaded, 'the file opens after the restart');
  assert.equal(sha256(downloaded), sha256(downBytes), 'the download arrived whole');
  await until('the agent to send everything', async () => {
    const status = (await local('GET', '/api/orgs/1/sync/status/')).json;
    return status.pending === 0 && status.state === 'idle';
  }, deadline);

  const uploaded = await remote(`${apiPaths.privateFiles(1)}?search=${sha256(upBytes)}`);
  assert.equal(uploaded.length, 1, 'the upload is on the server once');
  const onServer = await fetch(uploaded[0].file_contents as string);
  assert.equal(sha256(Buffer.from(await onServer.arrayBuffer())), sha256(upBytes), 'the upload arrived whole');
  for (const project of EDITED_PROJECTS) assert.equal((await remote(apiPaths.project(1, project))).notes, `edited on a slow link ${project}`, `project ${project}'s edit`);

  const sentUp = proxy.bytes.up - before.up;
  const sentDown = proxy.bytes.down - before.down;
  console.log(`transfers: ${(sentUp / FILE_BYTES).toFixed(3)}x up, ${(sentDown / FILE_BYTES).toFixed(3)}x down over the link (cut every ${CUT_EVERY_MS / 1000} s)`);
  tally.inputs += 2 + EDITED_PROJECTS.length;
  tally.faults += 1;
  tally.notes.push(`a 20 MB upload and a 20 MB download on a 64 KB/s link cut every ${CUT_EVERY_MS / 1000} s, with a SIGKILL in the middle: ${(sentUp / FILE_BYTES).toFixed(3)}x up, ${(sentDown / FILE_BYTES).toFixed(3)}x down (at most ${MAX_OVERHEAD}x); both whole by sha256; ${EDITED_PROJECTS.length} queued edits on the server`);
  reportTally(t, tally);
  assert.ok(sentUp <= FILE_BYTES * MAX_OVERHEAD, `up: ${sentUp} bytes for a ${FILE_BYTES}-byte file`);
  assert.ok(sentDown <= FILE_BYTES * MAX_OVERHEAD, `down: ${sentDown} bytes for a ${FILE_BYTES}-byte file`);
});

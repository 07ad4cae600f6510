// kill -9 of the agent in the middle of a 50 MB upload from a project folder, then a
// restart: the upload resumes at its next part and the remote ends up with exactly
// one complete file. `solardesk server` and `solardesk agent --folder` run as
// separate processes, with the fault proxy (here) between them slowing the parts.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { makeTempDir } from '../../engine/testing/test-server.ts';
import { signIn, startServerProcess, stopServerProcess, type ServerProcess } from '../../engine/testing/server-process.ts';
import { DEMO_PASSWORD, DEMO_USERS } from '../../engine/seed/demo-seed.ts';
import { startFaultProxy, type FaultProxy } from '../../sync/testing/fault-proxy.ts';
import { killAgent, startAgentProcess, type AgentProcess } from '../../sync/testing/agent-process.ts';
import { download } from '../../engine/testing/file-testing.ts';
import { folderOfProject, waitFor } from '../testing/folder-testing.ts';
import type { FolderStatus } from '../watcher.ts';
import { apiPaths } from '../../../shared/api-paths.ts';

const SIZE = 50 * 1024 * 1024;
const PART = 4 * 1024 * 1024;
const PARTS = Math.ceil(SIZE / PART);
const PART_PATH = /^\/api\/orgs\/1\/private_files\/uploads\/[0-9a-f]{32}\/parts\/(\d+)\/$/;

let server: ServerProcess;
let proxy: FaultProxy;
let serverDir: string;
let dataDir: string;
let root: string;
let sourceDir: string;
let remoteToken: string;
before(async () => {
  serverDir = makeTempDir('solardesk-folder-kill-server-');
  server = await startServerProcess(['--data', serverDir, '--seed', 'demo']);
  proxy = await startFaultProxy(server.baseUrl);
  dataDir = makeTempDir('solardesk-folder-kill-agent-');
  root = makeTempDir('solardesk-folder-kill-root-');
  sourceDir = makeTempDir('solardesk-folder-kill-src-');
  remoteToken = await signIn(server.baseUrl, DEMO_USERS.sunriseAdmin, DEMO_PASSWORD);
});
after(async () => {
  await proxy.close();
  await stopServerProcess(server);
  for (const dir of [dataDir, serverDir, root, sourceDir]) fs.rmSync(dir, { recursive: true, force: true });
});

async function localJson(agent: AgentProcess, urlPath: string) {
  const response = await fetch(`${agent.localApiUrl}${urlPath}`, { headers: { authorization: `Bearer ${agent.token}` } });
  return (await response.json()) as any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

async function remoteFilesWithHash(hash: string) {
  const response = await fetch(`${server.baseUrl}${apiPaths.privateFiles(1)}?search=${hash}&limit=100`, { headers: { authorization: `Bearer ${remoteToken}` } });
  return ((await response.json()) as Array<{ file_hash: string; filesize: number; file_contents: string; title: string }>).filter((file) => file.file_hash === hash);
}

const partsSent = () => proxy.log.filter((entry) => entry.method === 'PUT' && entry.status === 200 && PART_PATH.test(entry.path)).map((entry) => Number(PART_PATH.exec(entry.path)![1]));

test('kill -9 during a 50 MB upload from a project folder, then a restart: one complete remote file, resumed not restarted', async () => {
  const folderArgs = ['--folder', root, '--stability-window-ms', '300', '--chunked-upload-above', '8M', '--upload-part-size', '4M'];
  // The agent talks to the proxy, and the server's file links name the server itself: a host named for downloads.
  const baseArgs = ['--data', dataDir, '--poll-interval', '3600', '--download-hosts', new URL(server.baseUrl).host, ...folderArgs];
  const first = await startAgentProcess([...baseArgs, '--remote', proxy.url, '--username', DEMO_USERS.sunriseAdmin, '--password-stdin'], `${DEMO_PASSWORD}\n`);
  let second: AgentProcess | undefined;
  try {
    const folder = await waitFor('the project folders', () => fs.existsSync(root) && fs.readdirSync(root).some((name) => name.endsWith(' (3)')) && folderOfProject(root, 3));
    // Slow parts down so the kill lands in the middle of the upload.
    proxy.addRule({ method: 'PUT', path: PART_PATH, action: { kind: 'delay', ms: 300 } });
    const bytes = randomBytes(SIZE);
    const hash = createHash('sha256').update(bytes).digest('hex');
    // Written beside the root and moved in, as a browser or a copy does with a finished file.
    const staging = path.join(sourceDir, 'Drone survey.mp4');
    fs.writeFileSync(staging, bytes);
    fs.renameSync(staging, path.join(folder, 'Drone survey.mp4'));

    await waitFor('three parts on the remote', () => partsSent().length >= 3, 60_000);
    const status = (await localJson(first, '/api/orgs/1/sync/folder/')) as FolderStatus;
    const uploading = status.files.find((entry) => entry.state === 'uploading' && entry.path.endsWith('Drone survey.mp4'));
    assert.ok(uploading, JSON.stringify(status.files));
    assert.equal(uploading.bytes_total, SIZE);
    assert.ok(uploading.bytes_sent! > 0 && uploading.bytes_sent! < SIZE, `progress ${uploading.bytes_sent}/${SIZE}`);
    await killAgent(first);
    const before = partsSent();
    assert.ok(before.length < PARTS, `killed before the last part (${before.length} of ${PARTS})`);
    proxy.clearRules();

    second = await startAgentProcess(baseArgs);
    const remote = await waitFor('the file on the remote', async () => (await remoteFilesWithHash(hash))[0], 120_000, 200);
    await waitFor('sync to finish', async () => {
      const sync = await localJson(second!, '/api/orgs/1/sync/status/');
      return sync.pending === 0 && sync.state === 'idle';
    }, 60_000, 200);

    assert.equal((await remoteFilesWithHash(hash)).length, 1, 'exactly one remote file');
    assert.equal(remote.filesize, SIZE);
    assert.equal(remote.title, 'Drone survey.mp4');
    const fetched = await download(remote.file_contents);
    assert.equal(createHash('sha256').update(fetched.body).digest('hex'), hash, 'complete and intact');
    const after = partsSent().slice(before.length);
    assert.ok(after.length > 0 && Math.min(...after) > 1, `resumed at part ${Math.min(...after)}, not from the start`);
    assert.ok(Math.min(...after) >= Math.max(...before), 'no acknowledged part was sent again');
    assert.deepEqual([...new Set([...before, ...after])].sort((a, b) => a - b), Array.from({ length: PARTS }, (_, index) => index + 1));
    assert.equal(proxy.count('POST', /^\/api\/orgs\/1\/private_files\/uploads\/$/), 1, 'one upload session, resumed');
    assert.equal(proxy.count('POST', /^\/api\/orgs\/1\/private_files\/$/), 0, 'never sent whole');
  } finally {
    await killAgent(first);
    if (second) await killAgent(second, 'SIGTERM');
  }
});

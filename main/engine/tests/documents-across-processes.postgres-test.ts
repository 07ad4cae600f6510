// Saving a document on a shared PostgreSQL (issue 29): two `solardesk server`
// processes on one schema and one --blob-dir get the same action=save at the same
// moment, for several projects. Each pair makes ONE private file: both answers name
// it, and the project holds no second file with that input_data_hash. In one process
// a lock in memory kept saves apart; across processes the store has to.
// Runs only on the PostgreSQL run: npm run test:postgres.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { makeTempDir } from '../testing/test-server.ts';
import { dropTestDatabase, testDatabaseFor, testPostgresUrl } from '../testing/test-database.ts';
import { signIn, startServerProcess, stopServerProcess, type ServerProcess } from '../testing/server-process.ts';
import { DEMO_PASSWORD, DEMO_USERS } from '../seed/demo-seed.ts';
import { apiPaths } from '../../../shared/api-paths.ts';

if (!testPostgresUrl()) {
  throw new Error('documents-across-processes.postgres-test.ts needs a PostgreSQL server: run it through `npm run test:postgres`.');
}

/** Projects of the demo org with a design: one pair of simultaneous saves each (bounded). */
const PROJECTS = [1, 2, 3, 4, 5, 6];

const root = makeTempDir('solardesk-documents-pg-');
const storeDir = path.join(root, 'store');
const database = testDatabaseFor(storeDir)!;
const servers: ServerProcess[] = [];
let token = '';

before(async () => {
  const args = (n: number) => ['--data', path.join(root, `data-${n}`), '--database', database, '--blob-dir', path.join(root, 'blobs')];
  servers.push(await startServerProcess([...args(1), '--seed', 'demo']));
  servers.push(await startServerProcess(args(2)));
  token = await signIn(servers[0]!.baseUrl, DEMO_USERS.sunriseAdmin, DEMO_PASSWORD);
});

after(async () => {
  await Promise.all(servers.map((server) => stopServerProcess(server, 'SIGTERM')));
  await dropTestDatabase(storeDir);
  fs.rmSync(root, { recursive: true, force: true });
});

async function save(server: ServerProcess, projectId: number): Promise<{ status: number; id: number; hash: string }> {
  const response = await fetch(`${server.baseUrl}${apiPaths.generateDocument(1, projectId, 'proposal')}?action=save&language=en`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
  });
  const body = (await response.json()) as { id: number; input_data_hash: string };
  assert.ok(response.status === 201 || response.status === 200, `${server.baseUrl}: ${response.status} ${JSON.stringify(body)}`);
  return { status: response.status, id: body.id, hash: body.input_data_hash };
}

test('two processes saving the same inputs at the same moment make one file, and both answer it', async () => {
  for (const projectId of PROJECTS) {
    const [first, second] = await Promise.all([save(servers[0]!, projectId), save(servers[1]!, projectId)]);
    assert.equal(first.hash, second.hash, 'the same inputs');
    assert.equal(first.id, second.id, `project ${projectId}: both answers name the one file`);
    assert.deepEqual([first.status, second.status].sort(), [200, 201], `project ${projectId}: one made it, the other found it`);
    const files = await fetch(`${servers[1]!.baseUrl}${apiPaths.privateFiles(1)}?project=${projectId}&limit=1000`, { headers: { authorization: `Bearer ${token}` } });
    const same = ((await files.json()) as Array<{ id: number; input_data_hash: string }>).filter((file) => file.input_data_hash === first.hash);
    assert.deepEqual(same.map((file) => file.id), [first.id], `project ${projectId}: one file with these inputs`);
  }
});

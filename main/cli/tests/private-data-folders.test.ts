// Data folders are private to their user (docs/store.md): every folder and file a
// real server and a real agent create is 0700/0600 under the usual umask 022, and a
// folder an earlier version left open is tightened at start. The link-signing
// secret lives only in the store. Real processes, real files.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { makeTempDir, requestJson } from '../../engine/testing/test-server.ts';
import { signIn, startServerProcess, stopServerProcess } from '../../engine/testing/server-process.ts';
import { download, eventually } from '../../engine/testing/file-testing.ts';
import { multipartBody, postMultipart } from '../../engine/testing/multipart-upload.ts';
import { DEMO_PASSWORD, DEMO_USERS } from '../../engine/seed/demo-seed.ts';
import { killAgent, startAgentProcess } from '../../sync/testing/agent-process.ts';
import { testPostgresUrl } from '../../engine/testing/test-database.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { STATE_HANG_GUARD_MS } from '../../testing/hang-guards.ts';

// `npm run test:postgres` runs this file again with the servers' stores in
// PostgreSQL: their data folders then hold no SQLite file (the agents' replicas
// are SQLite either way).
const serverStoreFiles = testPostgresUrl() ? [] : [/^solardesk\.sqlite$/, /^solardesk\.sqlite-wal$/, /^solardesk\.sqlite-shm$/];

// The servers and agents below are children of this process and inherit its umask:
// 022 is the usual one, under which files are made 0644 and folders 0755 unless
// the code asks for less.
process.umask(0o022);

/** Every folder and file below `root` (itself included), relative to it, with its permission bits. */
function modesBelow(root: string): Map<string, number> {
  const modes = new Map<string, number>([['.', fs.lstatSync(root).mode & 0o777]]);
  for (const entry of fs.readdirSync(root, { recursive: true, withFileTypes: true }) as fs.Dirent[]) {
    const full = path.join(entry.parentPath, entry.name);
    modes.set(path.relative(root, full), fs.lstatSync(full).mode & 0o777);
  }
  return modes;
}

/** Fails naming every entry that is not private: folders 0700, files 0600. */
function assertAllPrivate(root: string): Map<string, number> {
  const modes = modesBelow(root);
  const open = [...modes].filter(([name, mode]) => mode !== (fs.lstatSync(path.join(root, name)).isDirectory() ? 0o700 : 0o600));
  assert.deepEqual(open.map(([name, mode]) => `${name} ${mode.toString(8)}`), [], `entries of ${root} open to other users`);
  return modes;
}

/** Asserts some entry's name matches each pattern, so a check of "all private" is not passed by an empty folder. */
function assertHolds(modes: Map<string, number>, patterns: RegExp[]): void {
  const names = [...modes.keys()];
  for (const pattern of patterns) assert.ok(names.some((name) => pattern.test(name)), `an entry matching ${pattern} among ${names.join(', ')}`);
}

describe('private data folders', () => {
  const root = makeTempDir('solardesk-private-');
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  test('with umask 022, every folder and file a server and an agent create is private, after uploads and a sync', async () => {
    const serverDir = path.join(root, 'server');
    const agentDir = path.join(root, 'agent');
    const server = await startServerProcess(['--data', serverDir, '--seed', 'demo']);
    try {
      const token = await signIn(server.baseUrl, DEMO_USERS.sunriseAdmin, DEMO_PASSWORD);
      const uploaded = await postMultipart(`${server.baseUrl}${apiPaths.privateFiles(1)}`, token, multipartBody({ title: 'Survey' }, { fileName: 'survey.bin', contents: randomBytes(50_000) }));
      assert.equal(uploaded.status, 201, JSON.stringify(uploaded.json));
      // A chunked upload left open: its part stays on disk until it completes or expires.
      const chunked = await requestJson(server.baseUrl, 'POST', '/api/orgs/1/private_files/uploads/', { token, body: { filename: 'roof.bin' } });
      const part = await fetch(`${server.baseUrl}${apiPaths.fileUploadPart(1, chunked.json.upload_id, 1)}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
        body: randomBytes(10_000),
      });
      assert.equal(part.status, 200, await part.text());

      const agent = await startAgentProcess(
        ['--data', agentDir, '--remote', server.baseUrl, '--username', DEMO_USERS.sunriseAdmin, '--password-stdin', '--poll-interval', '3600'],
        `${DEMO_PASSWORD}\n`,
      );
      try {
        const local = (method: string, urlPath: string) => requestJson(agent.localApiUrl, method, urlPath, { token: agent.token });
        const synced = async () => {
          const status = (await local('GET', '/api/orgs/1/sync/status/')).json;
          return status.state === 'idle' && status.pending === 0;
        };
        await eventually(synced, 'the agent to finish its first sync', STATE_HANG_GUARD_MS);
        // The server's file reaches the agent's blobs on demand; one made on the agent goes up.
        const replicated = await local('GET', apiPaths.privateFile(1, uploaded.json.id));
        assert.equal(replicated.status, 200, replicated.text);
        assert.equal((await download(replicated.json.file_contents)).status, 200);
        const madeLocally = await postMultipart(`${agent.localApiUrl}${apiPaths.privateFiles(1)}`, agent.token, multipartBody({ title: 'Site photo' }, { fileName: 'photo.bin', contents: randomBytes(20_000) }));
        assert.equal(madeLocally.status, 201, JSON.stringify(madeLocally.json));
        await eventually(synced, 'the agent to push the new file', STATE_HANG_GUARD_MS);

        // Checked while both run, so the SQLite -wal and -shm files are there too.
        assertHolds(assertAllPrivate(serverDir), [...serverStoreFiles, /^blobs\/..\/..\/[0-9a-f]{64}$/, /^uploads\/[0-9a-f]+\/1\.part$/, /^tmp$/]);
        assertHolds(assertAllPrivate(agentDir), [/^solardesk\.sqlite-wal$/, /^blobs\/..\/..\/[0-9a-f]{64}$/, /^agent\.json$/, /^remote-token$/, /^local-api-token$/]);
      } finally {
        await killAgent(agent, 'SIGTERM');
      }
    } finally {
      assert.equal(await stopServerProcess(server), 0);
    }
  });

  // The earlier version's layout is a SQLite store with the secret in a file beside it; a PostgreSQL store never had that file.
  const sqliteOnly = testPostgresUrl() ? { skip: 'a legacy server-secret file only ever sat beside a SQLite store' } : {};
  test('a data folder an earlier version left open is tightened at start, and its legacy secret file adopted into the store and removed', sqliteOnly, async () => {
    const dataDir = path.join(root, 'earlier');
    const first = await startServerProcess(['--data', dataDir, '--seed', 'demo']);
    try {
      const token = await signIn(first.baseUrl, DEMO_USERS.sunriseAdmin, DEMO_PASSWORD);
      const uploaded = await postMultipart(`${first.baseUrl}${apiPaths.privateFiles(1)}`, token, multipartBody({ title: 'Survey' }, { fileName: 'survey.bin', contents: randomBytes(5_000) }));
      assert.equal(uploaded.status, 201);
    } finally {
      assert.equal(await stopServerProcess(first), 0);
    }
    // As an earlier version left it: everything open to others, and the link-signing
    // secret in a file of its own rather than in the store.
    const legacySecret = randomBytes(32).toString('hex');
    const store = new Database(path.join(dataDir, 'solardesk.sqlite'));
    store.prepare("delete from settings where key = 'signing_secret'").run();
    store.close();
    fs.writeFileSync(path.join(dataDir, 'server-secret'), `${legacySecret}\n`);
    for (const [name] of modesBelow(dataDir)) {
      const full = path.join(dataDir, name);
      fs.chmodSync(full, fs.statSync(full).isDirectory() ? 0o755 : 0o644);
    }

    const server = await startServerProcess(['--data', dataDir, '--log-level', 'debug']);
    let output = '';
    try {
      assertHolds(assertAllPrivate(dataDir), [/^solardesk\.sqlite$/, /^blobs\/..\/..\/[0-9a-f]{64}$/]);
      assert.ok(!fs.existsSync(path.join(dataDir, 'server-secret')), 'the legacy secret file is removed once the store holds the secret');
      const reader = new Database(path.join(dataDir, 'solardesk.sqlite'), { readonly: true });
      const stored = reader.prepare("select value from settings where key = 'signing_secret'").get() as { value: string } | undefined;
      reader.close();
      assert.equal(stored?.value, legacySecret, 'the store adopted the legacy secret, so links it signed keep working');
      const token = await signIn(server.baseUrl, DEMO_USERS.sunriseAdmin, DEMO_PASSWORD);
      const files = await requestJson(server.baseUrl, 'GET', '/api/orgs/1/private_files/?limit=1', { token });
      assert.equal((await download(files.json[0].file_contents)).status, 200);
    } finally {
      assert.equal(await stopServerProcess(server), 0);
      output = server.stderr();
    }
    // Nowhere but the store: no other file in the folder, and not the server's output.
    for (const name of fs.readdirSync(dataDir, { recursive: true }) as string[]) {
      const full = path.join(dataDir, name);
      if (name.startsWith('solardesk.sqlite') || !fs.statSync(full).isFile()) continue;
      const bytes = fs.readFileSync(full);
      assert.ok(!bytes.includes(legacySecret) && !bytes.includes(Buffer.from(legacySecret, 'hex')), `${name} carries the signing secret`);
    }
    assert.match(output, /incoming request/, 'the server logged at debug level');
    assert.ok(!output.includes(legacySecret), 'the signing secret is in the server\'s output');
  });
});

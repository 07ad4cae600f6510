// `solardesk migrate-store`: a SQLite server's data folder (the demo seed, an
// uploaded file, an unfinished chunked upload) copied into a fresh PostgreSQL
// schema and blob folder, then a server on each store answering the same requests
// the same way. Also what it refuses: a target in use, a bad --from, a source with
// files but no --blob-dir; and a blob missing in the source is named, exit 1.
// Runs only on the PostgreSQL run: npm run test:postgres.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { createEngine, type Engine } from '../../engine/engine.ts';
import { seedDemo, DEMO_PASSWORD, DEMO_USERS } from '../../engine/seed/demo-seed.ts';
import { makeTempDir, requestJson } from '../../engine/testing/test-server.ts';
import { dropTestDatabase, testDatabaseFor, testPostgresUrl } from '../../engine/testing/test-database.ts';
import { repoRoot, signIn, solardeskBin, startServerProcess, stopServerProcess } from '../../engine/testing/server-process.ts';
import { multipartBody, postMultipart } from '../../engine/testing/multipart-upload.ts';
import { download } from '../../engine/testing/file-testing.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { ownedTableNames } from '../../engine/store/table-ownership.ts';
import { ENGINE_TABLES } from '../../engine/store/tables.ts';
import { SYNC_TABLES } from '../../sync/sync-tables.ts';
import { WATCH_TABLES } from '../../watch/watch-tables.ts';
import { CORE_TABLES } from '../../core/core-tables.ts';
import { PROCESS_HANG_GUARD_MS } from '../../testing/hang-guards.ts';

/** Every table of the store, from the parts' own declarations (docs/tables.md): the next migration's table counts too. */
const TABLE_COUNT = [ENGINE_TABLES, SYNC_TABLES, WATCH_TABLES, CORE_TABLES].reduce((count, part) => count + ownedTableNames(part).length, 0);

if (!testPostgresUrl()) {
  throw new Error(
    'migrate-store.postgres-test.ts needs a PostgreSQL server: run it through `npm run test:postgres` ' +
      '(or `node --import tsx main/engine/testing/with-postgres.ts -- node --import tsx --test main/cli/tests/migrate-store.postgres-test.ts`).',
  );
}

const password = new URL(testPostgresUrl()!).password;
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const uploadsPath = '/api/orgs/1/private_files/uploads/';

/** `solardesk migrate-store ARGS`, exactly as given (no test schema is added). */
function migrateStore(args: string[], env: NodeJS.ProcessEnv = process.env) {
  return spawnSync(process.execPath, [solardeskBin, 'migrate-store', ...args], { encoding: 'utf8', cwd: repoRoot, timeout: PROCESS_HANG_GUARD_MS, env });
}

/** A SQLite store in `dataDir` with the demo data, made in this process (no --database, whatever the run). */
async function openSqliteEngine(dataDir: string): Promise<{ engine: Engine; baseUrl: string }> {
  const engine = await createEngine({ dataDir });
  assert.equal(engine.store.dialect, 'sqlite');
  return { engine, baseUrl: await engine.listen(0, '127.0.0.1') };
}

/** The same answer from two servers: their own addresses, and the signed parts of download links, set aside. */
function normalise(value: unknown, baseUrl: string): unknown {
  const text = JSON.stringify(value)
    .split(baseUrl)
    .join('BASE')
    .replace(/(BASE\/downloads\/[^"?]*)\?[^"]*/g, '$1?SIGNED');
  return JSON.parse(text);
}

describe('solardesk migrate-store', () => {
  const root = makeTempDir('solardesk-migrate-store-');
  const sourceDir = path.join(root, 'sqlite-data');
  /** The PostgreSQL side: testDatabaseFor keeps its schema's address here. */
  const targetDir = path.join(root, 'pg-data');
  const blobDir = path.join(root, 'pg-blobs');
  const target = testDatabaseFor(targetDir)!;
  const otherDirs: string[] = [];

  const uploaded = randomBytes(64 * 1024 + 17);
  const parts = [randomBytes(40_000), randomBytes(1_234)];
  let uploadedId = 0;
  let uploadId = '';

  before(async () => {
    const { engine, baseUrl } = await openSqliteEngine(sourceDir);
    try {
      assert.equal(await seedDemo(engine.context), true);
      const token = await signIn(baseUrl, DEMO_USERS.sunriseAdmin, DEMO_PASSWORD);
      const created = await postMultipart(`${baseUrl}${apiPaths.privateFiles(1)}`, token, multipartBody({ title: 'Roof scan', project: '3' }, { fileName: 'roof-scan.bin', contents: uploaded }));
      assert.equal(created.status, 201, JSON.stringify(created.json));
      uploadedId = created.json.id;
      // A chunked upload left half done: its parts must come along so it can complete after the move.
      const started = await requestJson(baseUrl, 'POST', uploadsPath, { token, body: { title: 'Drone survey', filename: 'drone.bin', size: parts[0]!.length + parts[1]!.length } });
      assert.equal(started.status, 201, started.text);
      uploadId = started.json.upload_id;
      const put = await fetch(`${baseUrl}${uploadsPath}${uploadId}/parts/1/`, { method: 'PUT', headers: { authorization: `Bearer ${token}` }, body: parts[0]! });
      assert.equal(put.status, 200, await put.text());
    } finally {
      await engine.close();
    }
  });

  after(async () => {
    for (const dir of [targetDir, ...otherDirs]) await dropTestDatabase(dir);
    fs.rmSync(root, { recursive: true, force: true });
  });

  test('a --from that is not sqlite:PATH, or names no store, is refused with the form to use', () => {
    const notSqlite = migrateStore(['--from', sourceDir, '--to', target, '--blob-dir', blobDir]);
    assert.equal(notSqlite.status, 2, notSqlite.stderr);
    assert.match(notSqlite.stderr, /--from takes sqlite:PATH/);
    const postgresSource = migrateStore(['--from', target, '--to', target, '--blob-dir', blobDir]);
    assert.equal(postgresSource.status, 2);
    assert.match(postgresSource.stderr, /--from takes sqlite:PATH/);
    assert.ok(!postgresSource.stderr.includes(`:${password}@`), 'the password is not echoed');
    const nowhere = migrateStore(['--from', `sqlite:${path.join(root, 'nowhere')}`, '--to', target, '--blob-dir', blobDir]);
    assert.equal(nowhere.status, 1);
    assert.match(nowhere.stderr, /there is no .*nowhere/);
    assert.equal(fs.existsSync(path.join(root, 'nowhere')), false, 'no empty store is made where none was');
    const missingTo = migrateStore(['--from', `sqlite:${sourceDir}`], { ...process.env, SOLARDESK_DATABASE_URL: '' });
    assert.equal(missingTo.status, 2);
    assert.match(missingTo.stderr, /--to .* is required/);
    const help = migrateStore(['--help']);
    assert.equal(help.status, 0);
    assert.match(help.stdout, /Usage: solardesk migrate-store --from sqlite:PATH/);
  });

  test('a source with files and no --blob-dir, or --blob-dir on the SQLite folder itself, is refused before anything is copied', () => {
    const noBlobDir = migrateStore(['--from', `sqlite:${sourceDir}`, '--to', target]);
    assert.equal(noBlobDir.status, 2, noBlobDir.stderr);
    assert.match(noBlobDir.stderr, /the source has the contents of 12 files: say with --blob-dir DIR/);
    const sameFolder = migrateStore(['--from', `sqlite:${sourceDir}`, '--to', target, '--blob-dir', sourceDir]);
    assert.equal(sameFolder.status, 2);
    assert.match(sameFolder.stderr, /--blob-dir must not be the folder the SQLite store keeps its file contents in/);
  });

  test('copies every table and file, and a server on each store answers alike', { timeout: 180_000 }, async () => {
    const result = migrateStore(['--from', `sqlite:${path.join(sourceDir, 'solardesk.sqlite')}`, '--blob-dir', blobDir], { ...process.env, SOLARDESK_DATABASE_URL: target });
    assert.equal(result.status, 0, `${result.stdout}\n${result.stderr}`);
    // The per-table report: source and target counts, the largest id, ok.
    assert.match(result.stdout, /^projects +59 +59 +59 +ok$/m);
    assert.match(result.stdout, /^orgs +3 +3 +3 +ok$/m);
    assert.match(result.stdout, /^users +5 +5 +5 +ok$/m);
    assert.match(result.stdout, /^private_files +12 +12 +12 +ok$/m);
    assert.match(result.stdout, /^project_contacts +\d+ +\d+ +- +ok$/m);
    assert.match(result.stdout, /^file_upload_parts +1 +1 +- +ok$/m);
    assert.doesNotMatch(result.stdout, /DIFFERS/);
    assert.ok(!`${result.stdout}${result.stderr}`.includes(`:${password}@`), 'the password is never printed');
    assert.match(result.stdout, new RegExp(String.raw`^Copied ${TABLE_COUNT} tables \(\d+ rows\) and 13 files \([\d.]+ KiB: 13 copied, 0 already in place\): every row count, largest id and checksum matches\.$`, 'm'));
    // Progress as it goes: files and bytes, then rows.
    assert.match(result.stderr, /^file contents: 13\/13 files, ([\d.]+ KiB)\/\1$/m);
    assert.match(result.stderr, /^rows: (\d+)\/\1 /m);
    const blob = path.join(blobDir, 'blobs', sha256(uploaded).slice(0, 2), sha256(uploaded).slice(2, 4), sha256(uploaded));
    assert.deepEqual(fs.readFileSync(blob), uploaded, 'the blob is in the new --blob-dir');

    const pg = await startServerProcess(['--data', targetDir, '--database', target, '--blob-dir', blobDir]);
    const { engine: sqliteEngine, baseUrl: sqliteUrl } = await openSqliteEngine(sourceDir);
    try {
      const servers = [
        { baseUrl: pg.baseUrl, token: await signIn(pg.baseUrl, DEMO_USERS.sunriseAdmin, DEMO_PASSWORD) },
        { baseUrl: sqliteUrl, token: await signIn(sqliteUrl, DEMO_USERS.sunriseAdmin, DEMO_PASSWORD) },
      ];
      // Another user's password works too.
      await signIn(pg.baseUrl, DEMO_USERS.basicAdmin, DEMO_PASSWORD);
      const paths = [
        '/api/orgs/1/projects/?limit=100',
        '/api/orgs/1/projects/3/',
        '/api/orgs/1/contacts/?limit=100',
        '/api/orgs/1/roles/',
        '/api/orgs/1/workflows/',
        '/api/orgs/1/file_tags/',
        '/api/orgs/1/private_files/?limit=100',
        apiPaths.privateFile(1, uploadedId),
        `${uploadsPath}${uploadId}/`,
      ];
      for (const urlPath of paths) {
        const [onPg, onSqlite] = await Promise.all(servers.map((server) => requestJson(server.baseUrl, 'GET', urlPath, { token: server.token })));
        assert.equal(onPg!.status, 200, `${urlPath}: ${onPg!.text}`);
        assert.equal(onSqlite!.status, 200, `${urlPath}: ${onSqlite!.text}`);
        assert.deepEqual(normalise(onPg!.json, pg.baseUrl), normalise(onSqlite!.json, sqliteUrl), urlPath);
      }
      const pgToken = servers[0]!.token;

      // The uploaded file's bytes, through the PostgreSQL server.
      const file = (await requestJson(pg.baseUrl, 'GET', apiPaths.privateFile(1, uploadedId), { token: pgToken })).json;
      assert.ok(file.file_contents.startsWith(`${pg.baseUrl}/`), file.file_contents);
      const fetched = await download(file.file_contents);
      assert.equal(fetched.status, 200);
      assert.ok(fetched.body.equals(uploaded), 'the PostgreSQL server serves the exact bytes');
      // A demo file too, and a link the SQLite server signed: the signing secret came along.
      const sqliteFile = (await requestJson(sqliteUrl, 'GET', apiPaths.privateFile(1, uploadedId), { token: servers[1]!.token })).json;
      const signedBySqlite = await download(sqliteFile.file_contents.replace(sqliteUrl, pg.baseUrl));
      assert.equal(signedBySqlite.status, 200);
      assert.ok(signedBySqlite.body.equals(uploaded));

      // The unfinished upload completes on PostgreSQL with the part copied from SQLite.
      const put = await fetch(`${pg.baseUrl}${uploadsPath}${uploadId}/parts/2/`, { method: 'PUT', headers: { authorization: `Bearer ${pgToken}` }, body: parts[1]! });
      assert.equal(put.status, 200, await put.text());
      const completed = await requestJson(pg.baseUrl, 'POST', `${uploadsPath}${uploadId}/complete/`, { token: pgToken });
      assert.equal(completed.status, 201, completed.text);
      assert.equal(completed.json.file_hash, sha256(Buffer.concat(parts)));
      assert.ok((await download(completed.json.file_contents)).body.equals(Buffer.concat(parts)));
      assert.ok(completed.json.id > uploadedId, 'a new file gets an id above the copied ones');

      // New rows get ids above every copied one: the sequences were moved.
      const created = await requestJson(pg.baseUrl, 'POST', '/api/orgs/1/projects/', { token: pgToken, body: { title: 'After the move', contacts_new: [{ first_name: 'Newcomer' }] } });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.json.id, 60, 'the demo seed has 59 projects');
      const contacts = (await requestJson(pg.baseUrl, 'GET', '/api/orgs/1/contacts/?limit=100&ordering=-id', { token: pgToken })).json;
      assert.equal(contacts[0].first_name, 'Newcomer');
      assert.ok(contacts[0].id > 83, `a new contact's id (${contacts[0].id}) is above the copied ones`);
    } finally {
      await sqliteEngine.close();
      assert.equal(await stopServerProcess(pg), 0);
    }
  });

  test('a second migrate-store into the same store is refused, and changes nothing there', async () => {
    const again = migrateStore(['--from', `sqlite:${sourceDir}`, '--to', target, '--blob-dir', blobDir]);
    assert.equal(again.status, 1, again.stdout);
    assert.match(again.stderr, /the target store already holds data: .*orgs \(3 rows\).*never merged into or overwritten/);
    assert.match(again.stderr, /Nothing was written to PostgreSQL/);
    const pg = await startServerProcess(['--data', targetDir, '--database', target, '--blob-dir', blobDir]);
    try {
      const token = await signIn(pg.baseUrl, DEMO_USERS.sunriseAdmin, DEMO_PASSWORD);
      const projects = await requestJson(pg.baseUrl, 'GET', '/api/orgs/1/projects/?limit=100', { token });
      assert.equal(projects.json.length, 49, 'the 48 demo projects and the one made after the move, once each');
    } finally {
      await stopServerProcess(pg);
    }
  });

  test('a blob missing in the source is named and fails the run (exit 1) after everything else is copied', { timeout: PROCESS_HANG_GUARD_MS }, () => {
    const brokenDir = path.join(root, 'broken-sqlite');
    fs.cpSync(sourceDir, brokenDir, { recursive: true });
    const lost = sha256(uploaded);
    fs.rmSync(path.join(brokenDir, 'blobs', lost.slice(0, 2), lost.slice(2, 4), lost));
    const otherTargetDir = path.join(root, 'pg-data-2');
    otherDirs.push(otherTargetDir);
    const otherBlobDir = path.join(root, 'pg-blobs-2');
    const result = migrateStore(['--from', `sqlite:${brokenDir}`, '--to', testDatabaseFor(otherTargetDir)!, '--blob-dir', otherBlobDir]);
    assert.equal(result.status, 1, `${result.stdout}\n${result.stderr}`);
    assert.match(result.stderr, new RegExp(`error: the contents of 1 file could not be copied .*\\n  ${lost} \\(missing\\)`));
    assert.match(result.stdout, /^private_files +\d+ +\d+ +\d+ +ok$/m, 'the rows are still copied and checked');
    assert.match(result.stdout, new RegExp(`^Copied ${TABLE_COUNT} tables .* and 13 files .*12 copied`, 'm'));
    assert.equal(fs.readdirSync(path.join(otherBlobDir, 'blobs'), { recursive: true }).filter((name) => /[0-9a-f]{64}$/.test(String(name))).length, 11);
  });
});

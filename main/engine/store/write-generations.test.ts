// What the write counters count, on a real SQLite store: reads nothing, a write by
// what it can change, raw SQL that is not a read everything, and a commit by
// another connection to the file everything (PRAGMA data_version).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { DATABASE_FILE_NAME, openSqliteStore } from './database.ts';
import { makeTempDir } from '../testing/test-server.ts';

test('the counters move on writes by what they can change, and on other connections\' commits', async () => {
  const dataDir = makeTempDir();
  const store = await openSqliteStore(dataDir);
  try {
    const { writes, db } = store;
    const counts = () => ({ auth: writes.auth, records: writes.records });
    const start = counts();

    await db.selectFrom('projects').selectAll().execute();
    await sql`select count(*) from orgs`.execute(db);
    assert.deepEqual(counts(), start, 'reads change nothing');

    await db.insertInto('throttle_buckets').values({ scope_key: 'k', bucket_start: 0, hits: 1 }).execute();
    assert.deepEqual(counts(), start, 'bookkeeping tables are no part of any view');

    await db.insertInto('settings').values({ key: 'x', value: 'y' }).execute();
    const afterSettings = counts();
    assert.equal(afterSettings.auth, start.auth);
    assert.ok(afterSettings.records > start.records, 'any other table counts for the records');

    await db.updateTable('orgs').set({ name: 'Renamed' }).where('id', '=', 999).execute();
    const afterOrgs = counts();
    assert.ok(afterOrgs.auth > afterSettings.auth && afterOrgs.records > afterSettings.records, 'orgs count for both');

    await sql`delete from settings where key = 'x'`.execute(db);
    const afterRaw = counts();
    assert.ok(afterRaw.auth > afterOrgs.auth && afterRaw.records > afterOrgs.records, 'raw SQL that is not a read counts for everything');

    const other = new BetterSqlite3(path.join(dataDir, DATABASE_FILE_NAME));
    try {
      other.prepare("insert into settings (key, value) values ('elsewhere', '1')").run();
    } finally {
      other.close();
    }
    const afterOther = counts();
    assert.ok(afterOther.auth > afterRaw.auth && afterOther.records > afterRaw.records, 'a commit by another connection counts for everything');
    assert.deepEqual(counts(), afterOther, 'and only once');
  } finally {
    await store.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

// Issue 25, item 4, where no small disk can be mounted: SQLite's own "database or
// disk is full" (SQLITE_FULL), reached by capping the file's pages with PRAGMA
// max_page_count, a real SQLITE_FULL from SQLite with nothing injected. SQLite then
// ends the transaction by itself; the failing statement's error must be what the
// caller sees (not "cannot rollback - no transaction is active"), and the API must
// answer 507 with a sentence, then serve again once there is room.
// (SQLite only: PostgreSQL has no page cap; the full-disk hardening test covers both kinds of write.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { startTestServer } from '../testing/test-server.ts';
import { DEMO_USERS } from '../seed/demo-seed.ts';
import { apiPaths } from '../../../shared/api-paths.ts';

test('a full SQLite file: a transaction fails with SQLITE_FULL itself, an edit gets 507 with a sentence, and the server serves again once there is room', async (t) => {
  const server = await startTestServer();
  try {
    const { db, dialect } = server.engine.context.store;
    if (dialect !== 'sqlite') {
      t.skip('PostgreSQL store: no page cap to fill');
      return;
    }
    const token = await server.tokenFor(DEMO_USERS.sunriseAdmin);
    const pages = (await sql<{ page_count: number }>`pragma page_count`.execute(db)).rows[0]!.page_count;
    await sql.raw(`pragma max_page_count = ${pages}`).execute(db);
    const bigNotes = 'a note that needs pages the file cannot have '.repeat(2000);

    await assert.rejects(
      db.transaction().execute(async (trx) => {
        await trx.updateTable('projects').set({ address: bigNotes }).where('id', '=', 12).execute();
        await trx.updateTable('projects').set({ address: `${bigNotes} again` }).where('id', '=', 13).execute();
      }),
      (error: { code?: string; message: string }) => {
        assert.equal(error.code, 'SQLITE_FULL', error.message);
        return true;
      },
    );

    const refused = await server.request('PATCH', apiPaths.project(1, 12), { token, body: { notes: bigNotes } });
    assert.equal(refused.status, 507, refused.text);
    assert.match(refused.json.detail, /disk is full.*free space/);

    await sql.raw('pragma max_page_count = 1073741823').execute(db);
    const saved = await server.request('PATCH', apiPaths.project(1, 12), { token, body: { notes: bigNotes } });
    assert.equal(saved.status, 200, saved.text);
    assert.equal((await server.request('GET', apiPaths.project(1, 12), { token })).json.notes, bigNotes);
  } finally {
    await server.close();
  }
});

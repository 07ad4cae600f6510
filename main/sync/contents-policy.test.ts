// The files-on-demand policy on a real store (a test server's, seeded with the demo
// data: the admin holds a role on every Sunrise project but every eighth), with a
// ManualClock for the opened-days window and the links' hour.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../engine/clock.ts';
import { startTestServer, type TestServer } from '../engine/testing/test-server.ts';
import { DEMO_USERS } from '../engine/seed/demo-seed.ts';
import { ContentsPolicy, LINK_MARGIN_MS, rekeyFileContentsState, rememberContentsLink } from './contents-policy.ts';

describe('contents policy', () => {
  let server: TestServer;
  let clock: ManualClock;
  let adminId: number;
  before(async () => {
    clock = new ManualClock(new Date('2026-03-01T09:00:00Z'));
    server = await startTestServer({ clock });
    adminId = (await server.engine.context.db.selectFrom('users').select('id').where('email', '=', DEMO_USERS.sunriseAdmin).executeTakeFirstOrThrow()).id;
  });
  after(async () => server.close());
  const policy = (options = {}) => new ContentsPolicy(server.engine.context.db, clock, 1, adminId, options);

  test('projects where the user holds a role are kept; others are not; "everything" keeps all', async () => {
    const kept = await policy().kept();
    assert.deepEqual(kept.projects!.get(2), ['role']);
    assert.equal(kept.projects!.has(1), false, 'project 1 is the member\'s');
    assert.equal(kept.projects!.has(9), false);
    assert.equal((await policy({ roles: false }).kept()).projects!.size, 0);
    assert.equal((await policy({ everything: true }).kept()).projects, null);
  });

  test('a pin keeps a project until unpinned; an open keeps it for the opened-days window', async () => {
    const contents = policy({ openedDays: 14 });
    await contents.setPinned(9, true);
    await contents.recordOpen(17);
    let kept = await contents.kept();
    assert.deepEqual(kept.projects!.get(9), ['pinned']);
    assert.deepEqual(kept.projects!.get(17), ['opened']);
    clock.advance(15 * 86_400_000);
    kept = await contents.kept();
    assert.deepEqual(kept.projects!.get(9), ['pinned'], 'a pin does not lapse');
    assert.equal(kept.projects!.has(17), false, 'the open lapsed after 14 days');
    await contents.setPinned(9, false);
    assert.equal((await contents.kept()).projects!.has(9), false);
    await contents.recordOpen(17);
    assert.equal((await policy({ openedDays: 0 }).kept()).projects!.has(17), false, 'openedDays 0: opening keeps nothing');
  });

  test('a file fetched by the user is kept as long as an opened project', async () => {
    const contents = policy({ openedDays: 2 });
    await contents.recordFetched(501);
    assert.ok((await contents.kept()).files.has(501));
    clock.advance(3 * 86_400_000);
    assert.equal((await contents.kept()).files.has(501), false);
  });

  test('a listed link is used until 2 minutes before its hour ends, and follows a re-key', async () => {
    const contents = policy();
    const db = server.engine.context.db;
    await rememberContentsLink(db, 7001, 'https://files.example.com/7001?sig=abc', clock.now());
    assert.equal((await contents.freshLink(7001))?.url, 'https://files.example.com/7001?sig=abc');
    clock.advance(60 * 60_000 - LINK_MARGIN_MS - 1000);
    assert.ok(await contents.freshLink(7001), 'still good just inside the margin');
    clock.advance(2000);
    assert.equal(await contents.freshLink(7001), null, 'within the last 2 minutes it is not used');
    // A SolarDesk link names its own expiry, which wins when it is sooner.
    const soon = Math.floor(clock.now().getTime() / 1000) + 600;
    await rememberContentsLink(db, 7002, `https://solar.example.com/downloads/private_files/7002/?user=1&expires=${soon}&signature=x`, clock.now());
    clock.advance(9 * 60_000);
    assert.equal(await contents.freshLink(7002), null);
    await rememberContentsLink(db, 7003, 'not a link', clock.now());
    assert.equal(await contents.freshLink(7003), null);
    await rememberContentsLink(db, 7004, 'https://files.example.com/7004', clock.now());
    await db.transaction().execute((trx) => rekeyFileContentsState(trx, 7004, 8004));
    assert.equal(await contents.freshLink(7004), null);
    assert.equal((await contents.freshLink(8004))?.url, 'https://files.example.com/7004');
    // A pulled copy remembered a link under the new id before the re-key: the re-key does not fail on it.
    await rememberContentsLink(db, 7005, 'https://files.example.com/7005', clock.now());
    await rememberContentsLink(db, 8005, 'https://files.example.com/8005-pulled', clock.now());
    await db.transaction().execute((trx) => rekeyFileContentsState(trx, 7005, 8005));
    assert.equal((await contents.freshLink(8005))?.url, 'https://files.example.com/7005');
    assert.equal(await contents.freshLink(7005), null);
  });
});

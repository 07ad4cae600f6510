// Issue 18: creating a private file costs the same whatever the number of files in
// its project. Change capture used to snapshot the project (every file, each with a
// signed link) before and after each create. Checked on what is read, not on time:
// a Kysely plugin on the engine's real store counts the rows queries return from
// `private_files`, and the count must not grow with the project.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Kysely, KyselyPlugin, QueryId, RootOperationNode, UnknownRow } from 'kysely';
import type { Database } from '../store/tables.ts';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../testing/webhook-receiver.ts';
import { createFile } from '../testing/file-testing.ts';
import { DEMO_USERS } from '../seed/demo-seed.ts';
import type { RecordChangeEvent } from '../changes/change-feed.ts';
import { apiPaths } from '../../../shared/api-paths.ts';

/** Counts the rows that SELECTs on one table return, through the engine's own store. */
class RowsRead implements KyselyPlugin {
  rows = 0;
  private readonly counted = new WeakSet<QueryId>();
  constructor(private readonly table: string) {}

  transformQuery(args: { node: RootOperationNode; queryId: QueryId }): RootOperationNode {
    const { node } = args;
    if (node.kind === 'SelectQueryNode' && JSON.stringify(node.from ?? {}).includes(`"name":"${this.table}"`)) this.counted.add(args.queryId);
    return node;
  }

  async transformResult(args: { queryId: QueryId; result: { rows: UnknownRow[] } }) {
    if (this.counted.has(args.queryId)) this.rows += args.result.rows.length;
    return args.result;
  }
}

describe('private-file create reads no more of its project as the project grows', () => {
  let server: TestServer;
  let token: string;
  let counter: RowsRead;
  let originalDb: Kysely<Database>;
  const PROJECT = 21;

  before(async () => {
    server = await startTestServer({ webhookDelivery: { pollIntervalMs: 100 } });
    token = await server.tokenFor(DEMO_USERS.sunriseAdmin);
    counter = new RowsRead('private_files');
    const context = server.engine.context as { db: Kysely<Database> };
    originalDb = context.db;
    context.db = originalDb.withPlugin(counter);
  });
  after(async () => {
    (server.engine.context as { db: Kysely<Database> }).db = originalDb;
    await server.close();
  });

  /** Rows of private_files read while one file is created in the project. */
  async function rowsReadByOneCreate(name: string): Promise<number> {
    const before = counter.rows;
    await createFile(server, token, `contents of ${name}`, name, { project: String(PROJECT) });
    return counter.rows - before;
  }

  async function addFiles(count: number, prefix: string): Promise<void> {
    for (let index = 0; index < count; index++) await createFile(server, token, `${prefix} ${index}`, `${prefix} ${index}.txt`, { project: String(PROJECT) });
  }

  test('with no webhook reading the project’s files: the same rows at 3 files as at 40', async () => {
    await addFiles(3, 'early');
    const atFew = await rowsReadByOneCreate('fourth.txt');
    await addFiles(36, 'later');
    const atMany = await rowsReadByOneCreate('fortieth.txt');
    assert.equal(atMany, atFew, `rows of private_files read by one create: ${atFew} at 4 files, ${atMany} at 40`);
    assert.ok(atMany <= 4, `a create reads only its own file's row (a few times), read ${atMany}`);
  });

  test('with a webhook on project.notes only: still the same; one on project.private_files: the list is read, and it fires', async () => {
    const receiver: WebhookReceiver = await startWebhookReceiver();
    try {
      const notesHook = await server.request('POST', apiPaths.webhooks(1), {
        token,
        body: { endpoint: receiver.url, enabled: true, debug: false, trigger_fields: ['project.notes'], payload_fields: ['project.notes'] },
      });
      assert.equal(notesHook.status, 201, notesHook.text);
      const atFew = await rowsReadByOneCreate('notes-hook-1.txt');
      await addFiles(5, 'more');
      assert.equal(await rowsReadByOneCreate('notes-hook-2.txt'), atFew, 'a webhook that reads no file list does not make a create read it');

      const filesHook = await server.request('POST', apiPaths.webhooks(1), {
        token,
        body: { endpoint: receiver.url, enabled: true, debug: false, trigger_fields: ['project.private_files'], payload_fields: ['project.private_files', 'project.id'] },
      });
      assert.equal(filesHook.status, 201, filesHook.text);
      const filesBefore = (await server.request('GET', apiPaths.project(1, PROJECT), { token })).json.private_files.length;
      const created = await createFile(server, token, 'watched', 'watched.txt', { project: String(PROJECT) });
      const [call] = await receiver.waitForCalls(1);
      assert.equal(call!.body.model, 'Project');
      assert.equal(call!.body.event, 'UPDATE');
      assert.equal(call!.body.fields.private_files.length, filesBefore + 1);
      assert.ok(call!.body.fields.private_files.at(-1).endsWith(apiPaths.privateFile(1, created.id)), 'the new file is in the payload');
      assert.equal(receiver.calls.length, 1, 'the notes webhook did not fire for a file');
    } finally {
      await server.engine.context.db.updateTable('webhooks').set({ enabled: 0 }).execute();
      await receiver.close();
    }
  });

  test('a PATCH answer still lists the project’s files and events that change capture left out (issue 18 with the kept snapshots)', async () => {
    // Two PATCHes in a row: the second's "before" and its answer come from the first's
    // kept snapshot, which holds no lists; the answer reads them for itself.
    for (const notes of ['first kept-snapshot note', 'second kept-snapshot note']) {
      const patched = await server.request('PATCH', apiPaths.project(1, PROJECT), { token, body: { notes } });
      assert.equal(patched.status, 200, patched.text);
      const detail = await server.request('GET', apiPaths.project(1, PROJECT), { token });
      const answer = patched.json as { notes: string; private_files: unknown[]; events: unknown[] };
      assert.equal(answer.notes, notes);
      assert.ok(answer.private_files.length > 0 && answer.events.length > 0, 'the answer lists the files and events');
      // Signed download links carry their expiry to the second, so two answers a second apart differ there only.
      const unsigned = (json: unknown) => JSON.parse(JSON.stringify(json).replace(/(\/downloads\/private_files\/\d+\/)\?[^"]*/g, '$1'));
      assert.deepEqual(unsigned(answer), unsigned(detail.json), 'the PATCH answer is the detail view');
    }
  });

  test('the project still hears of the new file: a file_added event, and an update on the change feed', async () => {
    const heard: RecordChangeEvent[] = [];
    const stop = server.engine.context.changes.subscribe((events) => heard.push(...events));
    try {
      const created = await createFile(server, token, 'feed', 'feed check.txt', { project: String(PROJECT) });
      assert.ok(heard.some((event) => event.model === 'private_file' && event.id === created.id && event.op === 'create'));
      assert.ok(heard.some((event) => event.model === 'project' && event.id === PROJECT && event.op === 'update'), JSON.stringify(heard));
    } finally {
      stop();
    }
    const events = (await server.request('GET', `${apiPaths.events(1)}?project=${PROJECT}`, { token })).json as Array<{ event_type: string; title: string }>;
    assert.equal(events[0]!.event_type, 'file_added');
    assert.equal(events[0]!.title, 'File added: feed check.txt');
  });
});

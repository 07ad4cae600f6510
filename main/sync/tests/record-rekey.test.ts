// Ids change in one place (issue 26, docs/sync.md "Ids change in one place"): when a
// record made offline takes the remote's id, `rekey` moves every reference the parts
// declare. record-id-columns.test.ts checks the declarations are complete; this checks
// the move itself, on a real SQLite store with the demo data, for every declared column
// that holds a reference to the record, including the three the old per-model list
// never moved: a project's shares, a template's logo and a webhook's deliveries.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { startTestServer, type TestServer } from '../../engine/testing/test-server.ts';
import { ENGINE_ID_COLUMNS } from '../../engine/store/id-columns.ts';
import { columnsHolding, type RecordIdModel } from '../../engine/store/table-ownership.ts';
import { projectFolderRecords } from '../../core/agent-folders.ts';
import { DEMO_ORGS } from '../../engine/seed/demo-accounts.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { rekey } from '../record-ids.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(async () => {
  await server.close();
});

const db = () => server.engine.context.db;

/** How many rows of each declared column hold `id` ("table.column" -> count), the record's own row included. */
async function referencesTo(model: RecordIdModel, id: number): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const { table, column } of columnsHolding(ENGINE_ID_COLUMNS, model)) {
    const row = await sql<{ count: number }>`select count(*) as count from ${sql.table(table)} where ${sql.ref(column)} = ${id}`.execute(db());
    counts.set(`${table}.${column}`, Number(row.rows[0]!.count));
  }
  return counts;
}

async function rekeyAndCompare(model: RecordIdModel, from: number, to: number, mustHold: string[]): Promise<void> {
  const before = await referencesTo(model, from);
  for (const reference of mustHold) assert.ok((before.get(reference) ?? 0) > 0, `${reference} is declared as holding ${model} ids, and a row of it holds ${from}`);
  await db()
    .transaction()
    .execute(async (trx) => {
      await rekey(trx, model as Parameters<typeof rekey>[1], from, to, projectFolderRecords);
    });
  const left = [...(await referencesTo(model, from)).entries()].filter(([, count]) => count > 0);
  assert.deepEqual(left, [], `nothing still holds ${model} ${from}`);
  assert.deepEqual(await referencesTo(model, to), before, `every reference to ${model} ${from} now holds ${to}, none lost`);
}

test('a re-keyed project, file and webhook take their new id in every declared column: shares, a template logo and deliveries too', async () => {
  const token = await server.tokenFor('admin@sunrise.example');
  const org = DEMO_ORGS.sunrise;
  const image = await db().selectFrom('private_files').select(['id', 'project_id']).where('org_id', '=', org).where('mime_type', 'like', 'image/%').where('project_id', 'is not', null).orderBy('id').executeTakeFirstOrThrow();
  const projectId = image.project_id!;

  // A share of the project with a partner org, as a connection would make it.
  const now = new Date().toISOString();
  await db().insertInto('project_shares').values({ project_id: projectId, org_id: DEMO_ORGS.basic, permission_role_id: null, is_shared: 1, position: 0, created_date: now, modified_date: now }).execute();
  // A template whose logo is the image, through the API.
  const template = await server.request('POST', apiPaths.documentTemplates(org), { token, body: { document_type: 'proposal', title: 'With logo', logo: image.id } });
  assert.equal(template.status, 201, JSON.stringify(template.json));
  // A webhook, and a change that queues a delivery for it.
  const webhook = await server.request('POST', apiPaths.webhooks(org), { token, body: { endpoint: 'http://127.0.0.1:9/never-answers', enabled: true, debug: false, trigger_fields: ['project.notes'] } });
  assert.equal(webhook.status, 201, JSON.stringify(webhook.json));
  const changed = await server.request('PATCH', apiPaths.project(org, projectId), { token, body: { notes: 'Changed, so the webhook has a delivery.' } });
  assert.equal(changed.status, 200);

  await rekeyAndCompare('private_file', image.id, 900_001, ['private_files.id', 'document_templates.logo_file_id']);
  await rekeyAndCompare('webhook', webhook.json.id as number, 900_002, ['webhooks.id', 'webhook_deliveries.webhook_id']);
  await rekeyAndCompare('project', projectId, 900_003, ['projects.id', 'project_shares.project_id', 'private_files.project_id']);
  const integrity = await sql<{ table: string }>`select "table" from pragma_foreign_key_check`.execute(db());
  assert.deepEqual(integrity.rows, [], 'no row refers to an id that is gone');
});

// The one id kept inside JSON (docs/tables.md "Record ids"): a saved document's input_data names its
// project, and its input_data_hash is of input_data (main/engine/documents/document-input-ids.ts).
test('a re-keyed project’s id inside a saved document’s input_data follows, and so does its hash; JSON that only holds the digits stays', async () => {
  const from = 1_000_000_000_777;
  const to = 990_777;
  const hashOf = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex');
  const now = new Date().toISOString();
  const fileWith = async (inputData: unknown, inputDataHash: string) =>
    (
      await db()
        .insertInto('private_files')
        .values({
          org_id: DEMO_ORGS.sunrise, project_id: null, user_id: 1, title: 'Proposal', file_name: 'proposal.pdf', mime_type: 'application/pdf', filesize: null, file_hash: null,
          system_uuid: null, input_data: JSON.stringify(inputData), input_data_hash: inputDataHash, status: 'created', status_message: null, show_customer: 0, temporary: 0,
          upload_id: '', parts: '[]', completed_on: now, created_date: now, modified_date: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
  const document = { document_type: 'proposal', project: from, language: 'en' };
  const saved = await fileWith(document, hashOf(document));
  const otherHash = await fileWith({ project: from }, 'a hash of something else');
  const digitsOnly = { note: `made after ${from}`, project: Number(`1${from}`) };
  const untouched = await fileWith(digitsOnly, hashOf(digitsOnly));
  await db().transaction().execute((trx) => rekey(trx, 'project', from, to, projectFolderRecords));
  const rows = new Map((await db().selectFrom('private_files').select(['id', 'input_data', 'input_data_hash']).where('id', 'in', [saved, otherHash, untouched]).execute()).map((row) => [row.id, row]));
  const moved = { document_type: 'proposal', project: to, language: 'en' };
  assert.deepEqual(rows.get(saved), { id: saved, input_data: JSON.stringify(moved), input_data_hash: hashOf(moved) }, 'the same keys in the same order, and the hash of them');
  assert.deepEqual(rows.get(otherHash), { id: otherHash, input_data: JSON.stringify({ project: to }), input_data_hash: 'a hash of something else' }, 'a hash that was not of input_data is not made one');
  assert.deepEqual(rows.get(untouched), { id: untouched, input_data: JSON.stringify(digitsOnly), input_data_hash: hashOf(digitsOnly) });
});

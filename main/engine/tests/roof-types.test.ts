// hosted-docs-facts.md section 2: the hosted roof type catalogue (ids 6 to 24), the
// project create that names one by URL, and store migration 0016, which moves the
// roof types of older stores (ids 1 to 8, other meanings) so nothing saved changes meaning.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { DEMO_USERS } from '../seed/demo-seed.ts';
import { apiPaths, parseRoofTypeReference } from '../../../shared/api-paths.ts';
import { buildPreCatalogueStore, OLD_ROOF_PROJECTS } from '../testing/pre-catalogue-store.ts';

/** The facts page's table, transcribed by hand so the test checks the engine against the document. */
const HOSTED_ROOF_TYPES: Record<number, string> = {
  6: 'Composition / Asphalt Shingle', 7: 'Flat Concrete', 8: 'Flat Foam', 9: 'Membrane EPDM', 10: 'Membrane PVC', 11: 'Membrane TPO',
  12: 'Metal Decramastic', 13: 'Metal Shingle', 14: 'Metal Standing Seam', 15: 'Metal Stone Coated', 16: 'Metal Tin',
  17: 'Tar and Gravel / Bitumen', 18: 'Thatched', 19: 'Tile Clay', 20: 'Tile Concrete', 21: 'Tile Slate', 22: 'Wood/Shake Shingle',
  23: 'Other', 24: 'Kliplock',
};

describe('roof types', () => {
  let server: TestServer;
  let token: string;
  before(async () => {
    server = await startTestServer();
    token = await server.tokenFor(DEMO_USERS.sunriseAdmin);
  });
  after(() => server.close());

  test('the catalogue is the hosted one: ids 6 to 24 with the documented titles, each with its URL', async () => {
    const response = await server.request('GET', '/api/roof_types/');
    assert.equal(response.status, 200);
    assert.deepEqual(
      response.json,
      Object.entries(HOSTED_ROOF_TYPES).map(([id, title]) => ({ id: Number(id), title, url: `${server.baseUrl}/api/roof_types/${id}/` })),
    );
  });

  test('each roof type URL resolves; ids outside 6 to 24 are 404', async () => {
    const clay = await server.request('GET', '/api/roof_types/19/');
    assert.equal(clay.status, 200);
    assert.deepEqual(clay.json, { id: 19, title: 'Tile Clay', url: `${server.baseUrl}/api/roof_types/19/` });
    for (const id of [1, 5, 25]) assert.equal((await server.request('GET', apiPaths.roofType(id))).status, 404, `roof type ${id}`);
  });

  test('a create that sends roof_type .../api/roof_types/19/ is 201 and keeps it', async () => {
    const response = await server.request('POST', apiPaths.projects(1), {
      token,
      body: { address: '19 Clay Street', country_iso2: 'AU', roof_type: `https://app.example/api/roof_types/19/` },
    });
    assert.equal(response.status, 201, response.text);
    assert.equal(response.json.roof_type, `${server.baseUrl}/api/roof_types/19/`);
    const read = await server.request('GET', apiPaths.project(1, response.json.id), { token });
    assert.equal(read.json.roof_type, `${server.baseUrl}/api/roof_types/19/`);
  });

  test('an unknown roof type id is a 400 naming the field, and nothing is saved', async () => {
    for (const roofType of ['/api/roof_types/5/', '/api/roof_types/25/', '/api/roof_types/x/']) {
      const created = await server.request('POST', apiPaths.projects(1), { token, body: { address: '5 Nowhere Road', roof_type: roofType } });
      assert.equal(created.status, 400, roofType);
      assert.deepEqual(created.json, { roof_type: ['Invalid hyperlink - Object does not exist.'] });
    }
    const before = (await server.request('GET', apiPaths.project(1, 2), { token })).json.roof_type;
    const patched = await server.request('PATCH', apiPaths.project(1, 2), { token, body: { roof_type: '/api/roof_types/3/' } });
    assert.equal(patched.status, 400);
    assert.equal((await server.request('GET', apiPaths.project(1, 2), { token })).json.roof_type, before);
  });

  test('the demo projects name hosted roof types only', async () => {
    const projects = (await server.request('GET', `${apiPaths.projects(1)}?limit=1000`, { token })).json as Array<{ id: number }>;
    const seen = new Set<number>();
    for (const { id } of projects.slice(0, 48)) {
      const roofType = (await server.request('GET', apiPaths.project(1, id), { token })).json.roof_type;
      if (roofType === null) continue;
      const roofId = parseRoofTypeReference(roofType)!;
      assert.ok(roofId in HOSTED_ROOF_TYPES, `project ${id}: ${roofType}`);
      seen.add(roofId);
    }
    assert.ok(seen.size > 1, 'the demo uses several roof types');
  });
});

describe('roof types: store migration 0016', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ dataDir: await buildPreCatalogueStore() });
  });
  after(() => server.close());

  test("an older store's project roof types move to the hosted id of the same roof", async () => {
    const rows = await server.engine.context.db.selectFrom('projects').select(['id', 'roof_type_id']).where('id', 'in', OLD_ROOF_PROJECTS).orderBy('id').execute();
    // Old: 1 Tile (concrete), 2 Tile (terracotta), 3 Metal (corrugated), 4 Metal (standing seam), 5 Asphalt shingle,
    // 6 Flat (membrane), 7 Slate, 8 Ground mount; 9 had none.
    assert.deepEqual(
      rows.map((row) => [Number(row.id), row.roof_type_id === null ? null : Number(row.roof_type_id)]),
      [[1, 20], [2, 19], [3, 16], [4, 14], [5, 6], [6, 9], [7, 21], [8, 23], [9, null]],
    );
    for (const [id, moved] of rows.map((row) => [Number(row.id), row.roof_type_id] as const)) {
      if (moved !== null) assert.equal((await server.request('GET', apiPaths.roofType(Number(moved)))).status, 200, `project ${id}`);
    }
  });

  test("sync's merge bases and open conflicts move with the records, so a replica sees no edit", async () => {
    const db = server.engine.context.db;
    const base = async (model: string, id: number) =>
      JSON.parse((await db.selectFrom('sync_records').select('base').where('model', '=', model).where('record_id', '=', id).executeTakeFirstOrThrow()).base);
    assert.deepEqual(await base('project', 3), { title: 'Project 3', roof_type: 16 });
    assert.deepEqual(await base('project', 9), { title: 'Project 9', roof_type: null });
    assert.deepEqual(await base('contact', 3), { first_name: 'Kept', roof_type: 3 }, 'only project bases hold roof types');
    const conflicts = await db.selectFrom('sync_conflicts').select(['field', 'local_value', 'remote_value', 'base_value']).where('model', '=', 'project').orderBy('field').execute();
    assert.deepEqual(conflicts, [
      { field: 'roof_type', local_value: '9', remote_value: '6', base_value: '20' },
      { field: 'title', local_value: '"6"', remote_value: '"5"', base_value: '"1"' },
    ]);
  });
});

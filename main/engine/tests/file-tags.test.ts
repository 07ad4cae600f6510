// hosted-docs-facts.md section 8: one file tag catalogue shared by every org, tag URLs
// /api/file_tags/<id>/ resolving to {url, title, type "private", id}, the file_tags
// filters taking exact catalogue titles, "Projects Export" as the export tag of the
// access rule; SolarDesk's extension of an org's own tags; and store migration 0016,
// which moves the per-org tags of older stores so no file loses a tag.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { DEMO_USERS } from '../seed/demo-seed.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { createFile } from '../testing/file-testing.ts';
import { buildPreCatalogueStore, OLD_FILE_TAGS } from '../testing/pre-catalogue-store.ts';
import { ensureTag } from '../files/file-tags.ts';

/** The facts page's catalogue, transcribed by hand (in its order) so the test checks the engine against the document. */
const CATALOGUE = `AC Disconnect Location; Accepted; Bill Calculations Report; Calculation Data; Change Order; Compliance - Assignment Form (CER-RET-016); Compliance - Compulsory
written statements (CER-RET-014); Compliance - Connection Form; Compliance - Electrical Compliance; Compliance - Onsite Verification (CER-RET-015); Compliance - Other
Document; Custom Form Image; Design Artifact; Design Backup; Energy Generation Report (Lite); Extra File; Financials Report; Horizon Shading Data; Interval Data; Inverter
Location; Mounting Plane Drawing; Mounting Plane Photo; Owner's Manual; Owner's Manual - Array Mounting Certificate; Owner's Manual - Connection Diagram; Owner's Manual -
Equipment Documentation; Owner's Manual - Extra File; Owner's Manual - Post-Install Photograph; Owner's Manual - Pre Commissioning Test; Owner's Manual - Test and
Commission; Owner's Manual Template - Cover Image; Owner's Manual Template - Symbols; Parcel Data; Project Thumbnail; Projects Export; Roof Plan; Sales Proposal; Sales
Proposal - Equipment Documentation; Sales Proposal - Extra File; Screenshot; Sent to Lender; Single Line Diagram; Site - Assessment Form; Site - Extra File; Site - Photo;
Site - Utility Bill; Site Model; Solar Panelboard Location; Solar Production 8760; System Contract; System Image; System Performance 8760; User Feedback`
  .replace(/\n/g, ' ')
  .split('; ');

type Tag = { url: string; title: string; type: string; id: number };

describe('file tags', () => {
  let server: TestServer;
  let admin: string;
  let member: string;
  let basicAdmin: string;
  let catalogue: Tag[];
  const byTitle = (title: string) => catalogue.find((tag) => tag.title === title)!;

  before(async () => {
    server = await startTestServer();
    admin = await server.tokenFor(DEMO_USERS.sunriseAdmin);
    member = await server.tokenFor(DEMO_USERS.sunriseMember);
    basicAdmin = await server.tokenFor(DEMO_USERS.basicAdmin);
    catalogue = (await server.request('GET', `${apiPaths.fileTagCatalogue()}?limit=1000`)).json;
  });
  after(() => server.close());

  test('GET /api/file_tags/ lists the catalogue: exactly the documented titles, each {url, title, type "private", id}', async () => {
    assert.equal(CATALOGUE.length, 53);
    assert.deepEqual(catalogue.map((tag) => tag.title), CATALOGUE);
    for (const tag of catalogue) {
      assert.deepEqual(Object.keys(tag).sort(), ['id', 'title', 'type', 'url']);
      assert.equal(tag.type, 'private');
      assert.equal(tag.url, `${server.baseUrl}/api/file_tags/${tag.id}/`);
    }
    const firstPage = await server.request('GET', apiPaths.fileTagCatalogue());
    assert.equal(firstPage.json.length, 20, 'a list pages like every list (page, limit)');
  });

  test('each tag URL resolves to its tag; an id that is no tag is 404', async () => {
    for (const tag of catalogue) {
      const response = await server.request('GET', new URL(tag.url).pathname);
      assert.equal(response.status, 200, tag.title);
      assert.deepEqual(response.json, tag);
    }
    assert.equal((await server.request('GET', apiPaths.fileTag(999))).status, 404);
  });

  test('the catalogue is shared: every org lists it and tags its files with the same URLs', async () => {
    for (const [orgId, token] of [[1, admin], [2, basicAdmin]] as const) {
      const listed = (await server.request('GET', `${apiPaths.fileTags(orgId)}?limit=1000`, { token })).json as Tag[];
      assert.deepEqual(listed.slice(0, catalogue.length), catalogue, `org ${orgId}`);
    }
    const proposal = byTitle('Sales Proposal');
    const sunrise = await createFile(server, admin, 'sunrise proposal', 'proposal-a.pdf', { file_tags: proposal.url });
    const basic = await createFile(server, basicAdmin, 'basic proposal', 'proposal-b.pdf', { file_tags: proposal.url }, 2);
    assert.deepEqual(sunrise.file_tags_data, [proposal]);
    assert.deepEqual(basic.file_tags_data, [proposal]);
  });

  test('file create and PATCH take tags by URL, relative path or id (and the org-scoped form older clients sent)', async () => {
    const [photo, roofPlan, bill] = [byTitle('Site - Photo'), byTitle('Roof Plan'), byTitle('Site - Utility Bill')];
    const created = await createFile(server, admin, 'jpeg-ish', 'north.jpg', { file_tags: `${photo.url},${roofPlan.id}` });
    assert.deepEqual(created.file_tags.sort(), [photo.url, roofPlan.url].sort());
    const path = apiPaths.privateFile(1, created.id);
    const patched = await server.request('PATCH', path, { token: admin, body: { file_tags: [apiPaths.fileTag(bill.id), photo.id, apiPaths.orgRecord(1, 'file_tags', roofPlan.id)] } });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(patched.json.file_tags_data.map((tag: Tag) => tag.title).sort(), ['Roof Plan', 'Site - Photo', 'Site - Utility Bill']);
    for (const wrong of [[apiPaths.fileTag(999)], ['Site - Photo'], [apiPaths.orgRecord(2, 'file_tags', photo.id)]]) {
      const refused = await server.request('PATCH', path, { token: admin, body: { file_tags: wrong } });
      assert.equal(refused.status, 400, JSON.stringify(wrong));
      assert.deepEqual(refused.json, { file_tags: ['Invalid hyperlink - Object does not exist.'] });
    }
  });

  test('the file_tags and file_tags_exclude filters take exact catalogue titles, URL encoded', async () => {
    const titles = ["Owner's Manual - Post-Install Photograph", 'Compliance - Assignment Form (CER-RET-016)', 'Energy Generation Report (Lite)'];
    const made: Array<{ id: number }> = [];
    for (const title of titles) made.push(await createFile(server, admin, `made for ${title}`, `${made.length}.txt`, { file_tags: byTitle(title).url }));
    for (const [index, title] of titles.entries()) {
      const listed = (await server.request('GET', `${apiPaths.privateFiles(1)}?limit=1000&file_tags=${encodeURIComponent(title)}`, { token: admin })).json as Array<{ id: number }>;
      assert.deepEqual(listed.map((file) => file.id), [made[index]!.id], title);
      const excluded = (await server.request('GET', `${apiPaths.privateFiles(1)}?limit=1000&file_tags_exclude=${encodeURIComponent(title)}`, { token: admin })).json as Array<{ id: number }>;
      assert.ok(excluded.length > 0 && !excluded.some((file) => file.id === made[index]!.id), title);
    }
  });

  test('files tagged "Projects Export" need projects_export: the member can neither tag one nor see the seeded ones', async () => {
    const exportTag = byTitle('Projects Export');
    const mine = await createFile(server, member, 'member notes', 'notes.txt');
    const refused = await server.request('PATCH', apiPaths.privateFile(1, mine.id), { token: member, body: { file_tags: [exportTag.url] } });
    assert.equal(refused.status, 400);
    assert.match(refused.json.file_tags[0], /Projects Export.*projects_export/);
    const adminSees = (await server.request('GET', `${apiPaths.privateFiles(1)}?limit=1000&file_tags=${encodeURIComponent('Projects Export')}`, { token: admin })).json as unknown[];
    assert.ok(adminSees.length > 0, 'the demo has Projects Export files');
    const memberSees = (await server.request('GET', `${apiPaths.privateFiles(1)}?limit=1000&file_tags=${encodeURIComponent('Projects Export')}`, { token: member })).json as unknown[];
    assert.deepEqual(memberSees, []);
  });

  test("an org's own tag gets an id past the catalogue and a URL of the same form, which answers only that org's members", async () => {
    const created = await server.request('POST', apiPaths.fileTags(1), { token: admin, body: { title: 'Warranty card' } });
    assert.equal(created.status, 201, created.text);
    assert.ok(created.json.id >= 1001, `id ${created.json.id}`);
    assert.deepEqual(created.json, { url: `${server.baseUrl}/api/file_tags/${created.json.id}/`, title: 'Warranty card', type: 'private', id: created.json.id });
    const path = apiPaths.fileTag(created.json.id);
    assert.deepEqual((await server.request('GET', path, { token: member })).json, created.json);
    assert.equal((await server.request('GET', path, { token: basicAdmin })).status, 404, "another org's member");
    assert.equal((await server.request('GET', path)).status, 404, 'no token');
    assert.ok(!((await server.request('GET', `${apiPaths.fileTagCatalogue()}?limit=1000`)).json as Tag[]).some((tag) => tag.id === created.json.id));
    const listed = (await server.request('GET', `${apiPaths.fileTags(1)}?limit=1000`, { token: admin })).json as Tag[];
    assert.deepEqual(listed.at(-1), created.json);
    const elsewhere = (await server.request('GET', `${apiPaths.fileTags(2)}?limit=1000`, { token: basicAdmin })).json as Tag[];
    assert.ok(!elsewhere.some((tag) => tag.id === created.json.id));
    const foreign = await createFile(server, basicAdmin, 'x', 'x.txt', {}, 2);
    const refused = await server.request('PATCH', apiPaths.privateFile(2, foreign.id), { token: basicAdmin, body: { file_tags: [created.json.url] } });
    assert.equal(refused.status, 400, "another org's tag is no tag there");
  });

  test('a catalogue title cannot be made again as an org tag, whatever its case', async () => {
    const again = await server.request('POST', apiPaths.fileTags(1), { token: admin, body: { title: 'site - PHOTO' } });
    assert.equal(again.status, 400);
    assert.ok(again.json.title);
  });
});

describe('file tags: store migration 0016', () => {
  let server: TestServer;
  const tagsOf = async (fileId: number) =>
    (
      await server.engine.context.db
        .selectFrom('private_file_tags')
        .innerJoin('file_tags', 'file_tags.id', 'private_file_tags.tag_id')
        .select(['file_tags.id', 'file_tags.title', 'file_tags.org_id'])
        .where('private_file_tags.file_id', '=', fileId)
        .orderBy('file_tags.title')
        .execute()
    ).map((tag) => ({ id: Number(tag.id), title: tag.title, org_id: tag.org_id === null ? null : Number(tag.org_id) }));
  const catalogueId = (title: string) => CATALOGUE.indexOf(title) + 1;

  before(async () => {
    server = await startTestServer({ dataDir: await buildPreCatalogueStore() });
  });
  after(() => server.close());

  test('the catalogue is there, and only the tags an org made that are not in it stay its own', async () => {
    const rows = await server.engine.context.db.selectFrom('file_tags').selectAll().orderBy('id').execute();
    const shared = rows.filter((row) => row.org_id === null);
    assert.deepEqual(shared.map((row) => [Number(row.id), row.title]), CATALOGUE.map((title, index) => [index + 1, title]));
    assert.deepEqual(
      rows.filter((row) => row.org_id !== null).map((row) => [Number(row.id), Number(row.org_id), row.title]),
      [[1006, 1, 'Warranty'], [1011, 2, 'Warranty']],
    );
  });

  test('every file keeps every tag it carried: Export -> Projects Export, Photo -> Site - Photo, Bill -> Site - Utility Bill, Contract -> System Contract, System Image stays', async () => {
    assert.equal(Object.keys(OLD_FILE_TAGS).length, 5);
    assert.deepEqual(await tagsOf(1), [{ id: catalogueId('Site - Photo'), title: 'Site - Photo', org_id: null }], '"Photo" and an own "Site - Photo" are one tag now');
    assert.deepEqual(await tagsOf(2), [
      { id: catalogueId('Projects Export'), title: 'Projects Export', org_id: null },
      { id: catalogueId('System Contract'), title: 'System Contract', org_id: null },
    ]);
    assert.deepEqual(await tagsOf(3), [
      { id: catalogueId('Roof Plan'), title: 'Roof Plan', org_id: null },
      { id: catalogueId('Site - Utility Bill'), title: 'Site - Utility Bill', org_id: null },
      { id: 1006, title: 'Warranty', org_id: 1 },
    ]);
    assert.deepEqual(await tagsOf(4), [
      { id: catalogueId('Site - Photo'), title: 'Site - Photo', org_id: null },
      { id: 1011, title: 'Warranty', org_id: 2 },
    ]);
    assert.deepEqual(await tagsOf(5), [{ id: catalogueId('System Image'), title: 'System Image', org_id: null }]);
  });

  test("sync's merge bases and open conflicts name the moved tag ids", async () => {
    const db = server.engine.context.db;
    const base = JSON.parse((await db.selectFrom('sync_records').select('base').where('model', '=', 'private_file').where('record_id', '=', 2).executeTakeFirstOrThrow()).base);
    assert.deepEqual(base, { title: 'File 2', file_tags: [catalogueId('Projects Export'), catalogueId('System Contract')].sort() });
    const conflict = await db.selectFrom('sync_conflicts').select(['local_value', 'remote_value', 'base_value']).where('field', '=', 'file_tags').executeTakeFirstOrThrow();
    assert.deepEqual(conflict, { local_value: '[1006]', remote_value: '[]', base_value: 'null' });
  });

  test('a tag an org makes after the move gets the next id past every other', async () => {
    const made = await ensureTag(server.engine.context, 1, 'Inspection sticker');
    assert.equal(Number(made.id), 1012);
    assert.equal((await ensureTag(server.engine.context, 2, 'projects export')).id, catalogueId('Projects Export'), 'a catalogue title names the catalogue tag');
  });
});

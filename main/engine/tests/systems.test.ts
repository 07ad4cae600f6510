// service.md 4.4 and 5.5, compatibility.md "Systems": systems details from the
// project's design, and the system image with the private file behind it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { DEMO_USERS } from '../seed/demo-seed.ts';
import { decodeDesign, encodeDesign } from '../../../shared/design-codec.ts';
import type { ProjectDesign } from '../../../shared/design-types.ts';
import { apiPaths } from '../../../shared/api-paths.ts';

const BASE_FIELDS = ['id', 'uuid', 'name', 'kw_stc', 'total_module_quantity'];
const PARTS = ['modules', 'inverters', 'batteries', 'other_components', 'adders', 'module_groups', 'incentives', 'data'];

describe('systems', () => {
  let server: TestServer;
  let admin: string;
  let member: string;
  let basicAdmin: string;

  const designOf = async (orgId: number, projectId: number, token: string) =>
    decodeDesign<ProjectDesign>((await server.request('GET', apiPaths.project(orgId, projectId), { token })).json.design);
  const details = (orgId: number, projectId: number, token: string, query = '') =>
    server.request('GET', `${apiPaths.systemDetails(orgId, projectId)}${query}`, { token });
  const image = async (projectId: number, uuid: string, query: string, token = admin) => {
    const response = await fetch(`${server.baseUrl}${apiPaths.systemImage(1, projectId, uuid)}${query}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: response.status, headers: response.headers, body: Buffer.from(await response.arrayBuffer()) };
  };
  const systemImageFiles = async (projectId: number) =>
    (await server.request('GET', `${apiPaths.privateFiles(1)}?project=${projectId}&file_tags=${encodeURIComponent('System Image')}`, { token: admin })).json as Array<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any -- file records

  before(async () => {
    server = await startTestServer();
    admin = await server.tokenFor(DEMO_USERS.sunriseAdmin);
    member = await server.tokenFor(DEMO_USERS.sunriseMember);
    basicAdmin = await server.tokenFor(DEMO_USERS.basicAdmin);
  });
  after(() => server.close());

  test('details: {systems: [...]}, one per system of the design, with every part and the custom data on Raw Data API Access', async () => {
    const design = await designOf(1, 1, admin);
    const response = await details(1, 1, admin);
    assert.equal(response.status, 200);
    assert.deepEqual(Object.keys(response.json), ['systems']);
    assert.equal(response.json.systems.length, design.systems.length);
    for (const [index, entry] of response.json.systems.entries()) {
      const system = design.systems[index]!;
      for (const field of [...BASE_FIELDS, ...PARTS]) assert.ok(field in entry, `${field} missing`);
      assert.ok(Number.isInteger(entry.id));
      assert.equal(entry.uuid, system.uuid);
      assert.equal(entry.kw_stc, system.kw_stc);
      assert.deepEqual(entry.modules, system.modules);
      assert.deepEqual(entry.other_components, system.others);
      assert.deepEqual(entry.incentives, system.incentives);
      assert.equal(entry.total_module_quantity, system.total_module_quantity);
      assert.deepEqual(entry.data, system.custom_data);
    }
  });

  test('details on API Access omit data and nothing else', async () => {
    const response = await details(2, 49, basicAdmin);
    assert.equal(response.status, 200);
    assert.ok(response.json.systems.length > 0);
    for (const entry of response.json.systems) {
      assert.ok(!('data' in entry));
      for (const field of [...BASE_FIELDS, ...PARTS.filter((part) => part !== 'data')]) assert.ok(field in entry, field);
    }
    const included = await details(2, 49, basicAdmin, '?include_parts=data,modules');
    for (const entry of included.json.systems) assert.ok(!('data' in entry), 'asking for it does not help');
  });

  test('include_parts and exclude_parts pick parts; both together or an unknown part are 400', async () => {
    const only = await details(1, 1, admin, '?include_parts=modules,inverters');
    for (const entry of only.json.systems) {
      assert.ok('modules' in entry && 'inverters' in entry);
      for (const part of PARTS.filter((candidate) => !['modules', 'inverters'].includes(candidate))) assert.ok(!(part in entry), part);
      for (const field of BASE_FIELDS) assert.ok(field in entry);
    }
    const without = await details(1, 1, admin, '?exclude_parts=data,incentives');
    for (const entry of without.json.systems) {
      assert.ok(!('data' in entry) && !('incentives' in entry));
      assert.ok('modules' in entry && 'adders' in entry);
    }
    const both = await details(1, 1, admin, '?include_parts=modules&exclude_parts=data');
    assert.equal(both.status, 400);
    assert.deepEqual(both.json, { non_field_errors: ['Use include_parts or exclude_parts, not both.'] });
    const unknown = await details(1, 1, admin, '?include_parts=modules,wheels');
    assert.equal(unknown.status, 400);
    assert.match(unknown.json.include_parts[0], /"wheels"/);
  });

  test('limit_to_sold keeps only the sold system', async () => {
    let withSold: { id: number; uuids: string[] } | undefined;
    for (let id = 1; id <= 48 && !withSold; id++) {
      const design = await designOf(1, id, admin);
      const sold = design.systems.filter((system) => system.is_sold);
      if (sold.length > 0 && sold.length < design.systems.length) withSold = { id, uuids: sold.map((system) => system.uuid) };
    }
    assert.ok(withSold, 'the demo data has a project with a sold and an unsold system');
    const response = await details(1, withSold.id, admin, '?limit_to_sold=true');
    assert.deepEqual(response.json.systems.map((entry: { uuid: string }) => entry.uuid), withSold.uuids);
    const all = await details(1, withSold.id, admin, '?limit_to_sold=false');
    assert.ok(all.json.systems.length > withSold.uuids.length);
  });

  test('a project without a design has no systems; a project the user cannot see is 403', async () => {
    const noDesign = await details(2, 56, basicAdmin);
    assert.deepEqual(noDesign.json, { systems: [] });
    assert.equal((await details(1, 2, member)).status, 403);
    assert.equal((await details(1, 999999, admin)).status, 404);
  });

  test('image: a PNG of exactly the size asked for, a real drawing, kept as one System Image file of the project', async () => {
    const [system] = (await designOf(1, 3, admin)).systems;
    const response = await image(3, system!.uuid, '?width=320&height=200');
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'image/png');
    const metadata = await sharp(response.body).metadata();
    assert.equal(metadata.format, 'png');
    assert.deepEqual([metadata.width, metadata.height], [320, 200]);
    const stats = await sharp(response.body).stats();
    assert.ok(stats.channels.some((channel) => channel.min !== channel.max), 'not a single flat colour');
    assert.ok(stats.entropy > 0.5, `a drawing, not a blank: entropy ${stats.entropy}`);

    const files = await systemImageFiles(3);
    assert.equal(files.length, 1);
    const [file] = files;
    assert.equal(response.headers.get('x-private-file'), file!.url);
    assert.equal(file!.system_uuid, system!.uuid);
    assert.equal(file!.project, `${server.baseUrl}${apiPaths.project(1, 3)}`);
    assert.deepEqual(file!.file_tags_data.map((tag: { title: string }) => tag.title), ['System Image']);
    const stored = await fetch(file!.file_contents);
    assert.deepEqual(Buffer.from(await stored.arrayBuffer()), response.body);
    const project = await server.request('GET', '/api/orgs/1/projects/3/', { token: admin });
    assert.ok(project.json.private_files.includes(file!.url));

    const again = await image(3, system!.uuid, '?width=320&height=200');
    assert.deepEqual(again.body, response.body);
    const reused = await systemImageFiles(3);
    assert.deepEqual(reused.map((each) => [each.id, each.file_hash, each.modified_date]), [[file!.id, file!.file_hash, file!.modified_date]], 'reused as it was');

    const resized = await image(3, system!.uuid, '?width=64&height=48');
    assert.deepEqual([(await sharp(resized.body).metadata()).width, (await sharp(resized.body).metadata()).height], [64, 48]);
    const afterResize = await systemImageFiles(3);
    assert.equal(afterResize.length, 1);
    assert.equal(afterResize[0]!.id, file!.id);
    assert.deepEqual(afterResize[0]!.input_data, { system_uuid: system!.uuid, width: 64, height: 48, format: 'png' });
  });

  test('image: a design change draws it again, in the same file', async () => {
    const design = await designOf(1, 6, admin);
    const system = design.systems[0]!;
    const first = await image(6, system.uuid, '?width=200&height=200');
    const [before] = await systemImageFiles(6);

    const fewerPanels: ProjectDesign = structuredClone(design);
    const panels = fewerPanels.site.auto_design_geojson.features;
    fewerPanels.site.auto_design_geojson.features = panels.filter((panel, index) => panel.properties.system_uuid !== system.uuid || index % 2 === 0);
    await server.engine.context.db.updateTable('projects').set({ design: encodeDesign(fewerPanels) }).where('id', '=', 6).execute();

    const second = await image(6, system.uuid, '?width=200&height=200');
    assert.notDeepEqual(second.body, first.body, 'drawn from the new design');
    const files = await systemImageFiles(6);
    assert.equal(files.length, 1);
    assert.equal(files[0]!.id, before!.id);
    assert.notEqual(files[0]!.input_data_hash, before!.input_data_hash);
    assert.notEqual(files[0]!.file_hash, before!.file_hash);
    assert.equal(files[0]!.filesize, second.body.length);
  });

  test('image: width and height are required and bounded; unknown systems and designless projects are 404', async () => {
    const [system] = (await designOf(1, 3, admin)).systems;
    const uuid = system!.uuid;
    const missing = await image(3, uuid, '?width=100');
    assert.equal(missing.status, 400);
    assert.deepEqual(JSON.parse(missing.body.toString()), { height: ['This field is required.'] });
    for (const query of ['?width=15&height=100', '?width=100&height=4097', '?width=abc&height=100', '?width=1.5&height=100']) {
      assert.equal((await image(3, uuid, query)).status, 400, query);
    }
    assert.equal((await image(3, '00000000-0000-4000-8000-000000000000', '?width=100&height=100')).status, 404);
    assert.equal((await image(2, uuid, '?width=100&height=100', member)).status, 403);
    const basicNoDesign = await fetch(`${server.baseUrl}${apiPaths.systemImage(2, 56, uuid)}?width=100&height=100`, { headers: { authorization: `Bearer ${basicAdmin}` } });
    assert.equal(basicNoDesign.status, 404);
  });
});

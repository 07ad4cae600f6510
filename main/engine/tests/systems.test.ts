// service.md 4.4 and 5.5, compatibility.md "Systems", hosted-docs-facts.md sections 1
// and 5: systems details from the project's design in the hosted part shapes, the
// systems resource (list and detail), and the system image with the private file behind it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { DEMO_USERS } from '../seed/demo-seed.ts';
import { decodeDesign, encodeDesign } from '../../../shared/design-codec.ts';
import type { ProjectDesign } from '../../../shared/design-types.ts';
import { apiPaths } from '../../../shared/api-paths.ts';

// compatibility.md "Systems": the keys every entry has (data only on Raw Data API Access).
const BASE_FIELDS = ['id', 'uuid', 'name', 'kw_stc', 'total_module_quantity'];
const PARTS = ['modules', 'inverters', 'batteries', 'other_components', 'adders', 'module_groups', 'incentives', 'data'];
const TOP_LEVEL = [...BASE_FIELDS, ...PARTS.filter((part) => part !== 'data')];
// hosted-docs-facts.md section 1: the row fields of the list fieldset.
const ROW_FIELDS = [
  'id', 'url', 'name', 'uuid', 'order', 'system_lifetime', 'inverter_range', 'dc_optimizer_active', 'dc_optimizer_efficiency', 'show_customer',
  'is_current', 'auto_string', 'discount', 'adders_per_system', 'adders_per_panel', 'adders_per_watt', 'kw_stc', 'battery_total_kwh',
  'price_including_tax', 'price_excluding_tax', 'net_profit', 'module_quantity', 'co2_tons_lifetime', 'project', 'org', 'pricing_scheme',
  'output_annual_kwh', 'consumption_offset_percentage', 'modules', 'inverters', 'batteries', 'others',
];

/** What the hosted shapes of section 5 make of a design system's parts. */
function hostedParts(design: ProjectDesign, system: ProjectDesign['systems'][number]) {
  const layoutOf = (groupId: string) => design.site.auto_design_geojson.features.find((panel) => panel.properties.module_group_id === groupId)?.properties.orientation ?? 'portrait';
  return {
    incentives: [
      ...system.incentives.incentive_to_customer.map((line) => ({ paid_to_customer: true, value: line.amount, title: line.title })),
      ...system.incentives.incentive_to_installer.map((line) => ({ paid_to_customer: false, value: line.amount, title: line.title })),
    ],
    adders: system.adders.map((adder) => ({
      label: adder.title,
      total_value: adder.price,
      total_cost: adder.cost ?? 0,
      show_customer: adder.show_customer ?? true,
      quantity: adder.quantity ?? 1,
    })),
    module_groups: system.module_groups.map((group) => ({ module_quantity: group.module_quantity, azimuth: group.azimuth, slope: group.pitch, layout: layoutOf(group.id) })),
  };
}

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

  test('details: {systems: [...]}, one per system of the design, parts in the hosted shapes, data on Raw Data API Access', async () => {
    const design = await designOf(1, 1, admin);
    const project = (await server.request('GET', apiPaths.project(1, 1), { token: admin })).json;
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
      const hosted = hostedParts(design, system);
      assert.deepEqual(entry.incentives, hosted.incentives);
      assert.deepEqual(entry.adders, hosted.adders);
      assert.deepEqual(entry.module_groups, hosted.module_groups);
      assert.equal(entry.total_module_quantity, system.total_module_quantity);
      const { mcs, ...custom } = entry.data;
      assert.deepEqual(custom, system.custom_data);
      assert.ok(mcs, 'data carries mcs');
      assert.ok(String(mcs.postcode_region).includes(project.zip));
    }
  });

  test('part shapes: incentives to customer and installer, adders with a discount and a pure cost, module groups with a layout', async () => {
    const seen = { toCustomer: 0, toInstaller: 0, discount: 0, pureCost: 0, charged: 0, groups: 0 };
    for (let id = 1; id <= 48; id++) {
      for (const entry of (await details(1, id, admin)).json.systems) {
        for (const incentive of entry.incentives) {
          assert.deepEqual(Object.keys(incentive).sort(), ['paid_to_customer', 'title', 'value']);
          assert.equal(typeof incentive.value, 'number');
          if (incentive.paid_to_customer) seen.toCustomer++;
          else seen.toInstaller++;
        }
        for (const adder of entry.adders) {
          assert.deepEqual(Object.keys(adder).sort(), ['label', 'quantity', 'show_customer', 'total_cost', 'total_value']);
          if (adder.total_value < 0) seen.discount++;
          else if (adder.total_value === 0) {
            assert.ok(adder.total_cost > 0, 'an adder of no value is a pure cost');
            seen.pureCost++;
          } else {
            assert.ok(adder.total_cost >= 0 && adder.total_cost < adder.total_value);
            seen.charged++;
          }
        }
        for (const group of entry.module_groups) {
          assert.deepEqual(Object.keys(group), ['module_quantity', 'azimuth', 'slope', 'layout']);
          assert.ok(['portrait', 'landscape'].includes(group.layout));
          seen.groups++;
        }
      }
    }
    for (const [kind, count] of Object.entries(seen)) assert.ok(count > 0, `the demo data has ${kind}`);
  });

  test('details on API Access omit data and nothing else', async () => {
    const response = await details(2, 49, basicAdmin);
    assert.equal(response.status, 200);
    assert.ok(response.json.systems.length > 0);
    for (const entry of response.json.systems) {
      assert.ok(!('data' in entry));
      for (const field of TOP_LEVEL) assert.ok(field in entry, field);
    }
    const included = await details(2, 49, basicAdmin, '?include_parts=mcs');
    for (const entry of included.json.systems) assert.ok(!('data' in entry), 'asking for it does not help');
  });

  test('include_parts=mcs returns data.mcs alone; the top-level fields stay', async () => {
    const design = await designOf(1, 1, admin);
    const response = await details(1, 1, admin, '?include_parts=mcs');
    assert.equal(response.status, 200);
    for (const [index, entry] of response.json.systems.entries()) {
      const system = design.systems[index]!;
      for (const field of TOP_LEVEL) assert.ok(field in entry, `${field} stays`);
      assert.deepEqual(Object.keys(entry.data), ['mcs']);
      const { mcs } = entry.data;
      assert.deepEqual(Object.keys(mcs).sort(), ['occupancy', 'panel_groups', 'postcode_region', 'shading_factor', 'specific_yield']);
      for (const value of [mcs.postcode_region, mcs.specific_yield, mcs.shading_factor, mcs.occupancy]) assert.equal(typeof value, 'string');
      assert.deepEqual(
        mcs.panel_groups,
        system.module_groups.map((group) => ({ module_quantity: String(group.module_quantity), azimuth: group.azimuth.toFixed(0), tilt: group.pitch.toFixed(0) })),
      );
      assert.equal(mcs.specific_yield, (system.output.annual_kwh / system.kw_stc).toFixed(0));
    }
  });

  test('exclude_parts leaves those parts of data out; the top-level fields stay', async () => {
    const design = await designOf(1, 1, admin);
    const response = await details(1, 1, admin, '?exclude_parts=mcs,preferred');
    assert.equal(response.status, 200);
    for (const [index, entry] of response.json.systems.entries()) {
      for (const field of TOP_LEVEL) assert.ok(field in entry, `${field} stays`);
      const { preferred: _preferred, ...rest } = design.systems[index]!.custom_data;
      assert.deepEqual(entry.data, rest);
    }
    const topLevelNamed = await details(1, 1, admin, '?exclude_parts=modules,incentives');
    for (const entry of topLevelNamed.json.systems) for (const field of TOP_LEVEL) assert.ok(field in entry, `${field} stays`);
  });

  test('include_parts and exclude_parts together, or a malformed part name, are 400', async () => {
    const both = await details(1, 1, admin, '?include_parts=mcs&exclude_parts=preferred');
    assert.equal(both.status, 400);
    assert.deepEqual(both.json, { non_field_errors: ['Use include_parts or exclude_parts, not both.'] });
    const malformed = await details(1, 1, admin, `?include_parts=${encodeURIComponent('mcs,<b>')}`);
    assert.equal(malformed.status, 400);
    assert.match(malformed.json.include_parts[0], /"<b>"/);
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

  // The systems resource (hosted-docs-facts.md section 1).
  const systemsList = (orgId: number, token: string, query = '?fieldset=list') => server.request('GET', `${apiPaths.systems(orgId)}${query}`, { token });
  const systemDetail = (orgId: number, id: number, token: string, query = '?fieldset=list') => server.request('GET', `${apiPaths.system(orgId, id)}${query}`, { token });

  test('systems list: a bare array of rows with every documented field; project, org and pricing_scheme are absolute URLs or null', async () => {
    const response = await systemsList(1, admin, '?fieldset=list&limit=50');
    assert.equal(response.status, 200);
    assert.ok(Array.isArray(response.json));
    assert.equal(response.json.length, 50);
    for (const row of response.json) {
      assert.deepEqual(Object.keys(row), ROW_FIELDS);
      assert.equal(row.url, `${server.baseUrl}${apiPaths.system(1, row.id)}`);
      assert.match(row.project, /^http:\/\/127\.0\.0\.1:\d+\/api\/orgs\/1\/projects\/\d+\/$/);
      assert.equal(row.org, `${server.baseUrl}${apiPaths.org(1)}`);
      assert.equal(row.pricing_scheme, null);
      for (const module of row.modules) assert.deepEqual(Object.keys(module), ['module_activation_id', 'code', 'manufacturer_name', 'quantity']);
      for (const part of [...row.inverters, ...row.batteries, ...row.others]) for (const key of ['manufacturer_name', 'code', 'quantity']) assert.ok(key in part);
    }
    const first = response.json[0];
    const design = await designOf(1, 1, admin);
    const system = design.systems[0]!;
    assert.equal(first.project, `${server.baseUrl}${apiPaths.project(1, 1)}`);
    assert.equal(first.uuid, system.uuid);
    assert.equal(first.kw_stc, system.kw_stc);
    assert.equal(first.module_quantity, system.total_module_quantity);
    assert.equal(first.price_including_tax, system.pricing.system_price_including_tax);
    assert.equal(first.price_excluding_tax, system.pricing.system_price_excluding_tax);
    assert.equal(first.output_annual_kwh, system.output.annual_kwh);
    assert.equal(first.discount, system.pricing.discount);
  });

  test('systems list: ordered by project, then by place in the design', async () => {
    const rows = (await systemsList(1, admin, '?fieldset=list&limit=1000')).json as Array<{ project: string; order: number; uuid: string }>;
    const projectId = (row: { project: string }) => Number(/projects\/(\d+)\/$/.exec(row.project)![1]);
    const expected: string[] = [];
    for (let id = 1; id <= 48; id++) expected.push(...(await designOf(1, id, admin)).systems.map((system) => system.uuid));
    assert.deepEqual(rows.map((row) => row.uuid), expected, 'every system of the org, in order');
    for (let index = 1; index < rows.length; index++) {
      const [before, row] = [rows[index - 1]!, rows[index]!];
      assert.ok(projectId(before) < projectId(row) || (projectId(before) === projectId(row) && before.order + 1 === row.order));
    }
  });

  test('systems: the id and uuid are those of systems/details, the uuid names the image, ids are unique in the org', async () => {
    const rows = (await systemsList(1, admin, '?fieldset=list&limit=1000')).json as Array<{ id: number; uuid: string; project: string }>;
    assert.equal(new Set(rows.map((row) => row.id)).size, rows.length, 'unique ids');
    for (const projectId of [1, 3, 17]) {
      const fromDetails = (await details(1, projectId, admin)).json.systems.map((entry: { id: number; uuid: string }) => [entry.id, entry.uuid]);
      const fromList = rows.filter((row) => row.project.endsWith(apiPaths.project(1, projectId))).map((row) => [row.id, row.uuid]);
      assert.deepEqual(fromList, fromDetails);
    }
    const row = rows.find((candidate) => candidate.project.endsWith(apiPaths.project(1, 3)))!;
    assert.equal((await image(3, row.uuid, '?width=64&height=48')).status, 200);
    const again = (await systemsList(1, admin, '?fieldset=list&limit=1000')).json as Array<{ id: number }>;
    assert.deepEqual(again.map((each) => each.id), rows.map((each) => each.id), 'the same ids on every read');
  });

  test('systems list: the project filter takes an id, a project URL or a relative path', async () => {
    const design = await designOf(1, 5, admin);
    const uuids = design.systems.map((system) => system.uuid);
    for (const reference of ['5', `${server.baseUrl}${apiPaths.project(1, 5)}`, apiPaths.project(1, 5), 'https://api.example.com/api/orgs/1/projects/5']) {
      const response = await systemsList(1, admin, `?fieldset=list&project=${encodeURIComponent(reference)}`);
      assert.equal(response.status, 200, reference);
      assert.deepEqual(response.json.map((row: { uuid: string }) => row.uuid), uuids, reference);
    }
    assert.deepEqual((await systemsList(1, admin, `?fieldset=list&project=${encodeURIComponent(apiPaths.project(2, 5))}`)).json, [], "another org's project: no rows");
    assert.deepEqual((await systemsList(1, admin, '?fieldset=list&project=999999')).json, []);
    const bad = await systemsList(1, admin, '?fieldset=list&project=not-a-project');
    assert.equal(bad.status, 400);
    assert.match(bad.json.project[0], /valid project/);
  });

  test('systems: fieldset=list is required, on the list and the detail', async () => {
    const firstId = (await systemsList(1, admin)).json[0].id as number;
    for (const response of [await systemsList(1, admin, ''), await systemsList(1, admin, '?fieldset=studio'), await systemDetail(1, firstId, admin, '')]) {
      assert.equal(response.status, 400);
      assert.match(response.json.fieldset[0], /fieldset=list/);
    }
  });

  test('systems list: page and limit; a page past the end is an empty array', async () => {
    const ten = (await systemsList(1, admin, '?fieldset=list&limit=10')).json as Array<{ id: number }>;
    const pageOne = (await systemsList(1, admin, '?fieldset=list&limit=5&page=1')).json as Array<{ id: number }>;
    const pageTwo = (await systemsList(1, admin, '?fieldset=list&limit=5&page=2')).json as Array<{ id: number }>;
    assert.deepEqual([...pageOne, ...pageTwo].map((row) => row.id), ten.map((row) => row.id));
    const all = (await systemsList(1, admin, '?fieldset=list&limit=1000')).json as Array<{ id: number }>;
    for (const limit of [3, 7]) {
      const paged: number[] = [];
      for (let page = 1; ; page++) {
        const rows = (await systemsList(1, admin, `?fieldset=list&limit=${limit}&page=${page}`)).json as Array<{ id: number }>;
        paged.push(...rows.map((row) => row.id));
        if (rows.length < limit) break;
      }
      assert.deepEqual(paged, all.map((row) => row.id), `limit ${limit}: every row once, in order`);
    }
    assert.deepEqual((await systemsList(1, admin, '?fieldset=list&limit=20&page=999')).json, []);
  });

  test('systems detail: the same row as the list; unknown ids are 404', async () => {
    const rows = (await systemsList(1, admin, '?fieldset=list&limit=30')).json as Array<{ id: number }>;
    for (const row of [rows[0]!, rows[29]!]) {
      const response = await systemDetail(1, row.id, admin);
      assert.equal(response.status, 200);
      assert.deepEqual(response.json, row);
    }
    assert.equal((await systemDetail(1, rows[0]!.id + 999 - (rows[0]!.id % 1000) + 1000 * 1000, admin)).status, 404, 'no such project');
    const unusedSlot = rows[0]!.id - (rows[0]!.id % 1000) + ((rows[0]!.id % 1000) + 500) % 1000;
    assert.equal((await systemDetail(1, unusedSlot, admin)).status, 404, 'a project with no such system');
    assert.equal((await systemDetail(1, 5, admin)).status, 404);
  });

  test('systems: a member sees only the systems of projects they hold a role on; other orgs are 403', async () => {
    const visible = new Set(((await server.request('GET', `${apiPaths.projects(1)}?limit=1000`, { token: member })).json as Array<{ id: number }>).map((project) => project.id));
    assert.ok(visible.size > 0 && visible.size < 48);
    const rows = (await systemsList(1, member, '?fieldset=list&limit=1000')).json as Array<{ id: number; project: string }>;
    assert.ok(rows.length > 0);
    for (const row of rows) assert.ok(visible.has(Number(/projects\/(\d+)\/$/.exec(row.project)![1])), row.project);
    const hidden = [...Array(48).keys()].map((index) => index + 1).find((id) => !visible.has(id))!;
    assert.deepEqual((await systemsList(1, member, `?fieldset=list&project=${hidden}`)).json, []);
    const hiddenSystem = (await details(1, hidden, admin)).json.systems[0].id as number;
    assert.equal((await systemDetail(1, hiddenSystem, member)).status, 403);
    assert.equal((await systemDetail(1, hiddenSystem, admin)).status, 200);
    assert.equal((await systemsList(1, basicAdmin)).status, 403);
    assert.equal((await systemDetail(1, hiddenSystem, basicAdmin)).status, 403);
    assert.equal((await systemDetail(2, hiddenSystem, basicAdmin)).status, 404, "another org's system id in one's own org");
    const basicRows = (await systemsList(2, basicAdmin, '?fieldset=list&limit=1000')).json as Array<{ org: string }>;
    assert.ok(basicRows.length > 0, 'API Access includes the systems resource');
    for (const row of basicRows) assert.equal(row.org, `${server.baseUrl}${apiPaths.org(2)}`);
  });

  test('systems: systems with the same id in a design still get ids of their own, each resolving to its system; a changed design is counted again', async () => {
    const design = await designOf(1, 7, admin);
    const twin: ProjectDesign = structuredClone(design);
    const [first] = twin.systems;
    assert.ok(design.systems.length < 3);
    twin.systems = [
      first!,
      { ...structuredClone(first!), uuid: '11111111-2222-4333-8444-555555555555', name: 'Twin' },
      { ...structuredClone(first!), uuid: '11111111-2222-4333-8444-666666666666', name: 'Triplet' },
    ];
    await server.engine.context.db.updateTable('projects').set({ design: encodeDesign(twin) }).where('id', '=', 7).execute();
    // A page that starts past project 7 comes first: its count of systems is read again from the changed design.
    const later = (await systemsList(1, admin, '?fieldset=list&limit=10&page=3')).json as Array<{ uuid: string }>;
    const paged: string[] = [];
    for (let page = 1; ; page++) {
      const rows = (await systemsList(1, admin, `?fieldset=list&limit=4&page=${page}`)).json as Array<{ uuid: string }>;
      paged.push(...rows.map((row) => row.uuid));
      if (rows.length < 4) break;
    }
    const whole = (await systemsList(1, admin, '?fieldset=list&limit=1000')).json as Array<{ uuid: string }>;
    assert.deepEqual(paged, whole.map((row) => row.uuid));
    assert.ok(whole.findIndex((row) => row.uuid === '11111111-2222-4333-8444-666666666666') < 20, 'project 7 is before page 3');
    assert.deepEqual(later.map((row) => row.uuid), whole.slice(20, 30).map((row) => row.uuid));
    assert.ok(paged.includes('11111111-2222-4333-8444-555555555555'), 'the new system is listed');
    const entries = (await details(1, 7, admin)).json.systems as Array<{ id: number; uuid: string }>;
    assert.equal(entries.length, 3);
    assert.equal(new Set(entries.map((entry) => entry.id)).size, 3);
    for (const entry of entries) assert.equal((await systemDetail(1, entry.id, admin)).json.uuid, entry.uuid);
    const listed = (await systemsList(1, admin, '?fieldset=list&project=7')).json as Array<{ id: number; uuid: string }>;
    assert.deepEqual(listed.map((row) => [row.id, row.uuid]), entries.map((entry) => [entry.id, entry.uuid]), 'a changed design is read again');
  });

  test('answers are kept only while nothing they are built from changes: an edit of the project shows at once, and each viewer gets their own page (issue 36)', async () => {
    const mcsRegion = async (token: string) =>
      ((await details(1, 2, token)).json.systems as Array<{ data: { mcs: { postcode_region: string } } }>).map((system) => system.data.mcs.postcode_region);
    const first = await mcsRegion(admin);
    assert.deepEqual(await mcsRegion(admin), first, 'asked again, the same answer');
    const { zip } = (await server.request('GET', apiPaths.project(1, 2), { token: admin })).json as { zip: string };
    const patched = await server.request('PATCH', apiPaths.project(1, 2), { token: admin, body: { zip: '7777' } });
    assert.equal(patched.status, 200);
    try {
      const after = await mcsRegion(admin);
      assert.ok(after.length > 0 && after.every((region) => region.startsWith('7777')), `after the PATCH: ${JSON.stringify(after)} (before: ${JSON.stringify(first)})`);
    } finally {
      await server.request('PATCH', apiPaths.project(1, 2), { token: admin, body: { zip } });
    }
    // The admin's full page is kept; the member asking the same page gets theirs, not the admin's.
    const adminRows = (await systemsList(1, admin, '?fieldset=list&limit=1000')).json as unknown[];
    const memberRows = (await systemsList(1, member, '?fieldset=list&limit=1000')).json as unknown[];
    assert.ok(memberRows.length > 0 && memberRows.length < adminRows.length, `member ${memberRows.length} rows, admin ${adminRows.length}`);
    assert.equal(((await systemsList(1, admin, '?fieldset=list&limit=1000')).json as unknown[]).length, adminRows.length);
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

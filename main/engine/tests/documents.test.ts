// Generated documents (issue 29; hosted docs "Generating Project Files"): POST
// .../generate_document/<type>/ and the legacy generate_document_pdf/<type>/. Each
// PDF's text, read back by pdf.js, holds the figures the Design tab shows (the same
// shared/design-figures.ts functions); the CSVs parse and add up; action=save makes
// one private file, answers it again for the same inputs and a new one after a design
// change; bad input is 400 with what to send; access follows the project's rules.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { DEMO_USERS } from '../seed/demo-seed.ts';
import { decodeDesign, encodeDesign } from '../../../shared/design-codec.ts';
import type { DesignSystem, ProjectDesign } from '../../../shared/design-types.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { chosenPaymentOption, chosenSystem, customerPriceLines, formatKw, formatMoney, formatNumber, paybackText, systemFigures } from '../../../shared/design-figures.ts';
import { DOCUMENT_TYPE_NAMES, DOCUMENT_TYPES, type DocumentType } from '../../../shared/documents.ts';
import { loadPdfJs } from '../../core/pdf-render.ts';
import { parseCsv } from '../../../shared/csv-parse.ts';
import { createFile, uploadFile } from '../testing/file-testing.ts';

/** The text of every page of a PDF, as pdf.js extracts it (a line per text line). */
async function pdfText(bytes: Buffer): Promise<string> {
  const { getDocument } = await loadPdfJs();
  const task = getDocument({ data: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), verbosity: 0 });
  const document = await task.promise;
  const pages: string[] = [];
  for (let number = 1; number <= document.numPages; number++) {
    const content = await (await document.getPage(number)).getTextContent();
    pages.push(content.items.map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : '')).join(''));
  }
  await task.destroy();
  return pages.join('\n');
}


/** What each PDF type prints of the headline figures. The installation pack is for installers: no price, no payback. */
const PRINTS: Record<'price' | 'payback', ReadonlySet<DocumentType>> = {
  price: new Set(['proposal', 'proposal_only', 'contract', 'contract_only', 'financials_report', 'global_bom', 'pv_site_plan']),
  payback: new Set(['proposal', 'proposal_only', 'contract', 'contract_only', 'financials_report', 'global_bom', 'pv_site_plan']),
};

const PDF_TYPES = DOCUMENT_TYPE_NAMES.filter((type) => (DOCUMENT_TYPES[type].formats as readonly string[]).includes('pdf'));

describe('generated documents', () => {
  let server: TestServer;
  let admin: string;
  let member: string;
  let basicAdmin: string;

  const generate = async (projectId: number, type: string, query = '', token = admin, legacy = false) => {
    const path = legacy ? apiPaths.generateDocumentPdf(1, projectId, type) : apiPaths.generateDocument(1, projectId, type);
    const response = await fetch(`${server.baseUrl}${path}${query}`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    const body = Buffer.from(await response.arrayBuffer());
    const text = body.toString('utf8');
    let json: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- error and file bodies
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, body, text, json };
  };
  const projectOf = async (projectId: number) => (await server.request('GET', apiPaths.project(1, projectId), { token: admin })).json;
  const designOf = async (projectId: number) => decodeDesign<ProjectDesign>((await projectOf(projectId)).design);
  /** Designs come from the design tool, not this API: written to the store as the other design tests do. */
  const storeDesign = (projectId: number, design: ProjectDesign | null) =>
    server.engine.context.db.updateTable('projects').set({ design: design && encodeDesign(design) }).where('id', '=', projectId).execute();

  /** The figures the Design tab shows for the project's chosen system and payment option. */
  const designTabFigures = async (projectId: number) => {
    const project = await projectOf(projectId);
    const system = chosenSystem(decodeDesign<ProjectDesign>(project.design))!;
    const option = chosenPaymentOption(system);
    return { system, option, figures: systemFigures(system, option, project.usage_annual_or_guess), customer: `${project.contacts_data[0].first_name} ${project.contacts_data[0].family_name}` };
  };

  before(async () => {
    server = await startTestServer();
    admin = await server.tokenFor(DEMO_USERS.sunriseAdmin);
    member = await server.tokenFor(DEMO_USERS.sunriseMember);
    basicAdmin = await server.tokenFor(DEMO_USERS.basicAdmin);
  });
  after(() => server.close());

  test('each PDF type: its text holds the customer, system size, module count, price and payback the Design tab shows', async () => {
    const { system, option, figures, customer } = await designTabFigures(1);
    for (const type of PDF_TYPES) {
      const response = await generate(1, type);
      assert.equal(response.status, 200, `${type}: ${response.text.slice(0, 300)}`);
      assert.equal(response.headers.get('content-type'), 'application/pdf');
      assert.match(response.headers.get('content-disposition')!, new RegExp(`^attachment; filename="${type.replaceAll('_', '-')}-[\\w-]+\\.pdf"$`));
      const text = await pdfText(response.body);
      assert.ok(text.includes(customer), `${type}: no customer "${customer}"`);
      assert.ok(text.includes(formatKw(figures.kwStc, 'en')), `${type}: no size ${formatKw(figures.kwStc, 'en')}`);
      assert.ok(text.includes(`${figures.moduleCount} panels`), `${type}: no module count ${figures.moduleCount}`);
      const price = formatMoney(figures.priceIncludingTax, figures.currency, 'en');
      assert.equal(text.includes(price), PRINTS.price.has(type), `${type}: price ${price}`);
      assert.equal(text.includes(`Payback\n${paybackText(option!)}`), PRINTS.payback.has(type), `${type}: payback ${paybackText(option!)}`);
    }
    assert.equal(figures.moduleCount, system.total_module_quantity);
  });

  test('the proposal holds every component with its quantity, the price lines, the payment option and the bill savings', async () => {
    const { system, option, figures } = await designTabFigures(1);
    const text = await pdfText((await generate(1, 'proposal')).body);
    for (const part of [...system.modules, ...system.inverters, ...system.batteries]) assert.ok(text.includes(`${part.quantity} ${part.manufacturer_name} ${part.code}`), `${part.code} with its quantity: ${text.slice(text.indexOf('Components'), text.indexOf('Components') + 300)}`);
    for (const adder of system.pricing.adders.filter((each) => each.price !== 0)) assert.equal(text.includes(adder.title), adder.show_customer !== false, adder.title);
    assert.ok(!/\bMargin\b|Dealer fee/.test(text), "the installer's margin and costs are not printed for the customer");
    for (const line of customerPriceLines(system)) assert.ok(text.includes(`${line.title} ${formatMoney(line.amount, figures.currency, 'en')}`), line.title);
    assert.ok(text.includes(`Payment: ${option!.title}`));
    assert.ok(text.includes(formatMoney(figures.billSavingsYearOne, figures.currency, 'en')));
    assert.ok(text.includes('Roof plan') && text.includes(`${figures.moduleCount} panels on`));
  });

  test('the legacy generate_document_pdf path answers the same document', async () => {
    const legacy = await generate(1, 'proposal', '', admin, true);
    assert.equal(legacy.status, 200);
    assert.equal(await pdfText(legacy.body), await pdfText((await generate(1, 'proposal')).body));
  });

  test('the contract adds terms and signature blocks with names; the installation pack its site, contacts with phones, BOM and photo list', async () => {
    const { customer } = await designTabFigures(1);
    const contract = await pdfText((await generate(1, 'contract_only')).body);
    assert.ok(contract.includes('Terms') && contract.includes(`Customer: ${customer}`) && contract.includes('Date'));
    assert.ok(!contract.includes('{'), 'every placeholder is filled');
    const project = await projectOf(1);
    const pack = await pdfText((await generate(1, 'installation_instructions')).body);
    for (const heading of ['Site', 'Contacts', 'Roof plan', 'Bill of materials', 'Inverter and battery placement', 'Photos required']) assert.ok(pack.includes(heading), heading);
    assert.ok(pack.includes(project.contacts_data[0].phone));
    assert.match(pack, /Roof face 1 \(/);
  });

  test('a name with letters beyond Latin-1 prints and extracts back intact', async () => {
    const project = await projectOf(1);
    const contactId = project.contacts_data[0].id;
    const renamed = await server.request('PATCH', apiPaths.contact(1, contactId), { token: admin, body: { first_name: 'Zoë Ngô', family_name: 'Đặng Ødegård' } });
    assert.equal(renamed.status, 200, renamed.text);
    try {
      for (const type of ['proposal', 'contract_only', 'installation_instructions']) {
        const text = await pdfText((await generate(1, type)).body);
        assert.ok(text.includes('Zoë Ngô Đặng Ødegård'), `${type}: ${text.slice(0, 200)}`);
      }
    } finally {
      await server.request('PATCH', apiPaths.contact(1, contactId), { token: admin, body: { first_name: project.contacts_data[0].first_name, family_name: project.contacts_data[0].family_name } });
    }
  });

  test('the CSVs parse and their total rows add up; financials match the payment option', async () => {
    const { system, option } = await designTabFigures(1);
    const financials = await generate(1, 'financials_report', '?file_format=csv');
    assert.equal(financials.status, 200);
    assert.equal(financials.headers.get('content-type'), 'text/csv; charset=utf-8');
    const [header, ...rows] = parseCsv(financials.text);
    assert.deepEqual(header, ['year', 'utility_bill_savings', 'cash_flow', 'running_total']);
    const total = rows.pop()!;
    assert.equal(total[0], 'Total');
    assert.equal(rows.length, option!.cash_flows.length);
    const sum = (column: number) => rows.reduce((value, row) => value + Number(row[column]), 0);
    assert.ok(Math.abs(Number(total[2]) - sum(2)) < 0.01);
    assert.ok(Math.abs(Number(rows.at(-1)![3]) - option!.cash_flows.reduce((value, flow) => value + flow, 0)) < 0.01, 'the last running total is the sum of the cash flows');

    const bom = parseCsv((await generate(1, 'global_bom', '?file_format=csv')).text);
    const bomTotal = bom.pop()!;
    const parts = [...system.modules, ...system.inverters, ...system.batteries, ...system.others];
    assert.equal(bom.length - 1, parts.length);
    assert.equal(Number(bomTotal[4]), parts.reduce((value, part) => value + part.quantity, 0));

    const bills = parseCsv((await generate(1, 'bill_calculations_csv')).text);
    const billTotal = bills.pop()!;
    assert.equal(bills.length - 1, 12);
    assert.ok(Math.abs(Number(billTotal[1]) - system.output.annual_kwh) < 0.5, `output ${billTotal[1]} vs ${system.output.annual_kwh}`);
    assert.ok(Math.abs(Number(billTotal[3]) - system.bills.annual_bill_before) < 0.5);
    assert.ok(Math.abs(Number(billTotal[4]) - system.bills.annual_bill_after) < 0.5);
  });

  test('system_performance_8760: the hourly output when the design holds it; 400 saying so when it does not', async () => {
    const without = await generate(1, 'system_performance_8760');
    assert.equal(without.status, 400);
    assert.match(without.json.non_field_errors[0], /holds no hourly output.*bill_calculations_csv/);

    const design = await designOf(3);
    const system = chosenSystem(design)!;
    const hourly = Array.from({ length: 8760 }, (_, hour): number => (hour % 24 >= 7 && hour % 24 <= 17 ? 0.5 : 0));
    const withHourly: ProjectDesign = { ...design, systems: design.systems.map((candidate): DesignSystem => (candidate.uuid === system.uuid ? { ...candidate, hourly_output_kwh: hourly } : candidate)) };
    await storeDesign(3, withHourly);
    const response = await generate(3, 'system_performance_8760', `?system_uuid=${system.uuid}`);
    assert.equal(response.status, 200, response.text);
    const csv = parseCsv(response.text);
    const total = csv.pop()!;
    assert.equal(csv.length - 1, 8760);
    assert.equal(Number(total[4]), hourly.reduce((sum, kwh) => sum + kwh, 0));
  });

  test('action=save: one private file with the documented fields; the same inputs answer it again; a changed design makes a new one', async () => {
    const { system, option } = await designTabFigures(4);
    const tag = (await server.request('POST', apiPaths.fileTags(1), { token: admin, body: { title: 'Sent to customer' } })).json;
    const query = `?action=save&file_tags=${tag.id}&language=en`;
    const first = await generate(4, 'proposal', query);
    assert.equal(first.status, 201, first.text);
    const file = first.json;
    assert.equal(file.project, `${server.baseUrl}${apiPaths.project(1, 4)}`);
    assert.equal(file.system_uuid, system.uuid);
    assert.equal(file.status, 'created');
    assert.match(file.input_data_hash, /^[0-9a-f]{64}$/);
    assert.match(file.file_hash, /^[0-9a-f]{64}$/);
    assert.ok('document_template' in file);
    assert.deepEqual(
      { ...file.input_data, design_version: undefined, prices_version: undefined, project_version: undefined },
      {
        document_type: 'proposal', file_format: 'pdf', project: 4, system_uuid: system.uuid, payment_option_id: option!.id, document_template: null, template_version: null, language: 'en',
        design_version: undefined, prices_version: undefined, project_version: undefined,
      },
    );
    for (const version of ['design_version', 'prices_version', 'project_version']) assert.match(file.input_data[version], /^[0-9a-f]{64}$/);
    assert.deepEqual(file.file_tags_data.map((each: { title: string }) => each.title).sort(), ['Generated Document', 'Sent to customer']);
    const download = await fetch(file.file_contents);
    assert.equal(download.headers.get('content-type'), 'application/pdf');
    assert.ok((await pdfText(Buffer.from(await download.arrayBuffer()))).includes(formatKw(system.kw_stc, 'en')));

    const again = await generate(4, 'proposal', query);
    assert.equal(again.status, 200);
    assert.equal(again.json.id, file.id);
    const generatedFiles = async () =>
      ((await server.request('GET', `${apiPaths.privateFiles(1)}?project=4&limit=1000`, { token: admin })).json as Array<{ id: number; input_data: { document_type?: string } | null }>).filter(
        (each) => each.input_data?.document_type === 'proposal',
      );
    assert.equal((await generatedFiles()).length, 1);

    const design = await designOf(4);
    const cheaper: ProjectDesign = {
      ...design,
      systems: design.systems.map((candidate): DesignSystem =>
        candidate.uuid === system.uuid ? { ...candidate, pricing: { ...candidate.pricing, discount: candidate.pricing.discount + 100, system_price_excluding_tax: candidate.pricing.system_price_excluding_tax - 100, system_price_including_tax: candidate.pricing.system_price_including_tax - 100 } } : candidate,
      ),
    };
    await storeDesign(4, cheaper);
    const changed = await generate(4, 'proposal', query);
    assert.equal(changed.status, 201);
    assert.notEqual(changed.json.id, file.id);
    assert.notEqual(changed.json.input_data_hash, file.input_data_hash);
    assert.notEqual(changed.json.input_data.design_version, file.input_data.design_version);
    assert.ok((await pdfText(Buffer.from(await (await fetch(changed.json.file_contents)).arrayBuffer()))).includes(formatMoney(system.pricing.system_price_including_tax - 100, system.bills.currency, 'en')));
    assert.equal((await generatedFiles()).length, 2);
  });

  // How sync sends a document saved on a replica (main/sync/models/private-file.ts): the bytes
  // with the document's fields as multipart parts. The server keeps them, and a save of
  // the same inputs here answers that file rather than making a second.
  test('a document uploaded with its fields keeps them, and saving the same inputs answers it; a wrong hash or bad JSON is 400', async () => {
    const query = '?action=save&language=en';
    const made = await generate(1, 'proposal_only', query);
    assert.equal(made.status, 201, made.text);
    const bytes = Buffer.from(await (await fetch(made.json.file_contents)).arrayBuffer());
    assert.equal((await server.request('DELETE', apiPaths.privateFile(1, made.json.id), { token: admin })).status, 204);
    const fields = {
      title: made.json.title,
      project: '1',
      system_uuid: made.json.system_uuid,
      input_data: JSON.stringify(made.json.input_data),
      input_data_hash: made.json.input_data_hash,
      status: 'created',
    };
    const refused = [
      [{ ...fields, input_data: '{not json' }, 'input_data', /valid JSON/],
      [{ ...fields, input_data_hash: '0'.repeat(64) }, 'input_data_hash', /sha256 of input_data/],
      [{ ...fields, input_data: undefined }, 'input_data_hash', /Send input_data/],
    ] as const;
    for (const [sent, field, message] of refused) {
      const answer = await uploadFile(server, admin, bytes, 'proposal.pdf', Object.fromEntries(Object.entries(sent).filter(([, value]) => value !== undefined)) as Record<string, string>);
      assert.equal(answer.status, 400, JSON.stringify(answer.json));
      assert.match(String((answer.json as Record<string, string[]>)[field]), message);
    }
    const uploaded = await createFile(server, admin, bytes, 'proposal.pdf', fields);
    assert.deepEqual(
      { system_uuid: uploaded.system_uuid, input_data: uploaded.input_data, input_data_hash: uploaded.input_data_hash, status: uploaded.status, document_template: uploaded.document_template },
      { system_uuid: made.json.system_uuid, input_data: made.json.input_data, input_data_hash: made.json.input_data_hash, status: 'created', document_template: null },
    );
    const again = await generate(1, 'proposal_only', query);
    assert.equal(again.status, 200, again.text);
    assert.equal(again.json.id, uploaded.id);
  });

  /** A chunked upload of `bytes` in two parts, started with `fields` (main/sync/push-chunked.ts sends a big document so): the start's answer, and the completion's. */
  const uploadInParts = async (bytes: Buffer, fields: Record<string, unknown>) => {
    const started = await server.request('POST', apiPaths.fileUploads(1), { token: admin, body: { filename: 'pack.pdf', size: bytes.length, ...fields } });
    if (started.status !== 201) return { started, completed: null };
    const half = Math.ceil(bytes.length / 2);
    for (const [index, part] of [bytes.subarray(0, half), bytes.subarray(half)].entries()) {
      const sent = await fetch(`${server.baseUrl}${apiPaths.fileUploadPart(1, started.json.upload_id, index + 1)}`, { method: 'PUT', headers: { authorization: `Bearer ${admin}` }, body: part });
      assert.equal(sent.status, 200, await sent.text());
    }
    return { started, completed: await server.request('POST', apiPaths.fileUploadComplete(1, started.json.upload_id), { token: admin }) };
  };

  // A document above the chunk size goes up in parts (main/sync/push-chunked.ts): the upload's
  // start carries the same fields as the multipart create, checked the same way.
  test('a document sent in parts, its fields given at the start, keeps them, and saving the same inputs answers it; a wrong hash or bad JSON at the start is 400', async () => {
    const query = '?action=save&language=en-GB';
    const made = await generate(1, 'installation_instructions', query);
    assert.equal(made.status, 201, made.text);
    const bytes = Buffer.from(await (await fetch(made.json.file_contents)).arrayBuffer());
    assert.equal((await server.request('DELETE', apiPaths.privateFile(1, made.json.id), { token: admin })).status, 204);
    const fields = {
      title: made.json.title,
      project: 1,
      system_uuid: made.json.system_uuid,
      input_data: JSON.stringify(made.json.input_data),
      input_data_hash: made.json.input_data_hash,
      status: 'created',
    };
    const refused = [
      [{ ...fields, input_data: '{not json' }, 'input_data', 'Value must be valid JSON.'],
      [{ ...fields, input_data_hash: '0'.repeat(64) }, 'input_data_hash', 'This is not the sha256 of input_data as JSON: send the hash of the input_data sent, or leave it out to have it computed.'],
      [{ ...fields, input_data: undefined }, 'input_data_hash', 'Send input_data with input_data_hash: the hash is the sha256 of input_data as JSON.'],
    ] as const;
    for (const [sent, field, sentence] of refused) {
      const { started } = await uploadInParts(bytes, sent);
      assert.equal(started.status, 400, started.text);
      assert.deepEqual(started.json[field], [sentence]);
    }
    const { started, completed } = await uploadInParts(bytes, fields);
    assert.equal(started.status, 201, started.text);
    assert.deepEqual(started.json.document_fields, { system_uuid: made.json.system_uuid, input_data: made.json.input_data, input_data_hash: made.json.input_data_hash, status: 'created' });
    assert.equal(completed!.status, 201, completed!.text);
    const file = completed!.json;
    assert.equal(file.upload_id, started.json.upload_id, 'the file came through the chunked upload');
    assert.equal(file.file_hash, made.json.file_hash);
    assert.deepEqual(
      { system_uuid: file.system_uuid, input_data: file.input_data, input_data_hash: file.input_data_hash, status: file.status },
      { system_uuid: made.json.system_uuid, input_data: made.json.input_data, input_data_hash: made.json.input_data_hash, status: 'created' },
    );
    const again = await generate(1, 'installation_instructions', query);
    assert.equal(again.status, 200, again.text);
    assert.equal(again.json.id, file.id, 'the file the upload made, not a second');

    // A plain upload is as before: no document fields, status "created".
    const plain = await uploadInParts(Buffer.from('plain bytes, not a document'), { title: 'Plain' });
    assert.equal(plain.started.json.document_fields, null);
    assert.deepEqual([plain.completed!.json.input_data, plain.completed!.json.input_data_hash, plain.completed!.json.status], [null, '', 'created']);

    // The OpenAPI document says the start takes them (it is generated from the route's schema).
    const start = (await server.request('GET', '/api/schema/')).json.paths['/api/orgs/{org_id}/private_files/uploads/'].post;
    const properties = start.requestBody.content['application/json'].schema.properties;
    for (const name of ['system_uuid', 'input_data', 'input_data_hash', 'status']) assert.ok(properties[name]?.description, `${name} in ${Object.keys(properties).join(' ')}`);
  });

  test('bad input is 400 with a sentence saying what to send', async () => {
    const cases: Array<[number, string, string, string, RegExp]> = [
      [1, 'owners_brochure', '', 'document_type', /no document type "owners_brochure".*proposal/],
      [1, 'proposal', '?system_uuid=not-a-system', 'system_uuid', /No system of this project has the uuid not-a-system\. Send one of/],
      [1, 'proposal', '?payment_option_id=999999999', 'payment_option_id', /no payment option 999999999\. Send one of/],
      [1, 'proposal', '?file_format=csv', 'file_format', /made as pdf; send file_format=pdf/],
      [1, 'proposal', '?file_format=docx', 'file_format', /file_format=pdf or file_format=csv/],
      [1, 'proposal', '?action=email', 'action', /only action is save/],
      [1, 'proposal', '?document_template_id=5', 'document_template_id', /No document template has the id 5/],
      [1, 'proposal', '?action=save&file_tags=987654', 'file_tags', /tag URLs or ids/],
    ];
    for (const [projectId, type, query, field, message] of cases) {
      const response = await generate(projectId, type, query);
      assert.equal(response.status, 400, `${type}${query}: ${response.status} ${response.text.slice(0, 200)}`);
      assert.match(String(response.json[field]), message, `${type}${query}: ${response.text}`);
    }
    // A project not designed yet.
    await storeDesign(5, null);
    const noDesign = await generate(5, 'proposal');
    assert.equal(noDesign.status, 400);
    assert.match(noDesign.json.non_field_errors[0], /no design.*Design a system first/);
  });

  test('access: a user who cannot see the project cannot generate for it; another org is refused; only Pro users save; no token 401', async () => {
    const visible = new Set(((await server.request('GET', `${apiPaths.projects(1)}?limit=1000`, { token: member })).json as Array<{ id: number }>).map((project) => project.id));
    const all = (await server.request('GET', `${apiPaths.projects(1)}?limit=1000`, { token: admin })).json as Array<{ id: number }>;
    let hidden: number | undefined;
    for (const project of all) if (!hidden && !visible.has(project.id) && (await projectOf(project.id)).design) hidden = project.id;
    assert.ok(hidden, 'the member has a designed project they cannot see');
    assert.equal((await generate(hidden!, 'proposal', '', member)).status, 403);
    assert.equal((await generate(hidden!, 'proposal', '?action=save', member)).status, 403);
    assert.equal((await generate(1, 'proposal', '', basicAdmin)).status, 403, "another org's user, through this org's path");
    // The viewer sees the project but is not a Pro user: the bytes, yes; a private file, no.
    const viewer = await server.tokenFor(DEMO_USERS.sunriseViewer);
    assert.equal((await generate(1, 'proposal', '', viewer)).status, 200);
    const save = await generate(1, 'proposal', '?action=save', viewer);
    assert.equal(save.status, 403);
    assert.match(save.json.detail, /Pro users.*Leave action=save out/);
    const anonymous = await fetch(`${server.baseUrl}${apiPaths.generateDocument(1, 1, 'proposal')}`, { method: 'POST' });
    assert.equal(anonymous.status, 401);
  });

  test('org document templates: admins write one per type, members read; a contract is made with its name, logo, intro and terms', async () => {
    const paths = { list: apiPaths.documentTemplates(1), one: (id: number) => apiPaths.documentTemplate(1, id) };
    const files = (await server.request('GET', `${apiPaths.privateFiles(1)}?limit=1000`, { token: admin })).json as Array<{ id: number; url: string; title: string; file_contents: string }>;
    const photo = files.find((file) => /\.jpe?g$/i.test(new URL(file.file_contents).pathname) || file.title === 'Roof, north face')!;
    const text = files.find((file) => file.id !== photo.id && !/photo|roof|switchboard/i.test(file.title))!;
    const body = {
      document_type: 'contract_only',
      title: 'Our contract',
      org_display_name: 'Sunrise Solar Pty Ltd',
      logo: photo.url,
      primary_colour: '#0a7d44',
      intro_text: 'Dear {customer_name}, thank you for choosing us for your {system_kw} kW system.',
      terms_text: 'A. We install {module_count} panels for {price}.\n\nB. Payback is expected in {payback}.',
    };
    assert.equal((await server.request('POST', paths.list, { token: member, body })).status, 403, 'members do not write templates');
    const unknown = await server.request('POST', paths.list, { token: admin, body: { ...body, intro_text: 'Hello {customer}' } });
    assert.equal(unknown.status, 400);
    assert.match(JSON.stringify(unknown.json), /Unknown placeholder \{customer\}/);
    const created = await server.request('POST', paths.list, { token: admin, body });
    assert.equal(created.status, 201, created.text);
    const template = created.json;
    assert.equal(template.logo, `${server.baseUrl}${apiPaths.privateFile(1, photo.id)}`);
    const second = await server.request('POST', paths.list, { token: admin, body: { ...body, title: 'Another' } });
    assert.equal(second.status, 400);
    assert.match(second.json.document_type[0], new RegExp(`already has a contract_only template \\(id ${template.id}\\)`));
    if (text) {
      const badLogo = await server.request('PATCH', paths.one(template.id), { token: admin, body: { logo: text.id } });
      assert.equal(badLogo.status, 400, badLogo.text);
    }
    assert.deepEqual(((await server.request('GET', paths.list, { token: member })).json as Array<{ id: number }>).map((each) => each.id), [template.id]);

    const { figures, customer, option } = await designTabFigures(1);
    const saved = await generate(1, 'contract_only', '?action=save');
    assert.equal(saved.status, 201, saved.text);
    assert.equal(saved.json.document_template, template.url);
    assert.equal(saved.json.input_data.document_template, template.id);
    const contract = await pdfText(Buffer.from(await (await fetch(saved.json.file_contents)).arrayBuffer()));
    assert.ok(contract.includes('Sunrise Solar Pty Ltd'));
    assert.ok(contract.includes(`Dear ${customer}, thank you for choosing us for your ${formatNumber(figures.kwStc, 2, 'en')} kW system.`), contract.slice(0, 400));
    assert.ok(contract.includes(`A. We install ${figures.moduleCount} panels for ${formatMoney(figures.priceIncludingTax, figures.currency, 'en')}.`));
    assert.ok(contract.includes(`B. Payback is expected in ${paybackText(option!)}.`));
    assert.ok(!contract.includes('cooling-off'), "the org's terms replace the standard ones");

    // Another type's template cannot be picked; a changed template makes a new document.
    const wrongType = await generate(1, 'proposal', `?document_template_id=${template.id}`);
    assert.equal(wrongType.status, 400);
    assert.match(wrongType.json.document_template_id[0], /is for contract_only documents, not proposal/);
    assert.equal((await server.request('PATCH', paths.one(template.id), { token: admin, body: { terms_text: 'C. New terms for {customer_name}.' } })).status, 200);
    const again = await generate(1, 'contract_only', `?action=save&document_template_id=${template.id}`);
    assert.equal(again.status, 201);
    assert.notEqual(again.json.id, saved.json.id);
    assert.ok((await pdfText(Buffer.from(await (await fetch(again.json.file_contents)).arrayBuffer()))).includes(`C. New terms for ${customer}.`));

    assert.equal((await server.request('DELETE', paths.one(template.id), { token: member })).status, 403);
    assert.equal((await server.request('DELETE', paths.one(template.id), { token: admin })).status, 204);
    assert.equal((await generate(1, 'contract_only', '?action=save')).json.document_template, null, 'the standard layout again');
  });
});

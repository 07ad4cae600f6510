// Stale documents (issue 29, docs/documents.md "Stale documents"): GET
// .../projects/<id>/generated_documents/ says, for each saved document, whether the
// same choices would make the same document now (its input_data_hash against the
// hash of the current inputs), and what changed: the design, its prices, the
// project's printed facts or the template. Regenerating (the same query with
// action=save) makes a new file and the old one stays. Runs on PostgreSQL too.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { DEMO_USERS } from '../seed/demo-seed.ts';
import { decodeDesign, encodeDesign } from '../../../shared/design-codec.ts';
import type { DesignSystem, ProjectDesign } from '../../../shared/design-types.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import type { GeneratedDocumentState } from '../../../shared/documents.ts';

describe('stale documents: generated_documents says which saved documents are current', () => {
  let server: TestServer;
  let admin: string;
  const PROJECT = 3;

  const states = async (token = admin, projectId = PROJECT) => {
    const response = await server.request('GET', apiPaths.generatedDocuments(1, projectId), { token });
    return { status: response.status, json: response.json as GeneratedDocumentState[] & { detail?: string } };
  };
  const save = async (type: string, query: Record<string, string | number | null> = {}) => {
    const params = new URLSearchParams({ action: 'save' });
    for (const [key, value] of Object.entries(query)) if (value !== null) params.set(key, String(value));
    const response = await fetch(`${server.baseUrl}${apiPaths.generateDocument(1, PROJECT, type)}?${params}`, { method: 'POST', headers: { authorization: `Bearer ${admin}` } });
    const json = await response.json();
    assert.ok(response.status === 201 || response.status === 200, JSON.stringify(json));
    return json as { id: number; input_data_hash: string };
  };
  const design = async () => decodeDesign<ProjectDesign>((await server.request('GET', apiPaths.project(1, PROJECT), { token: admin })).json.design);
  /** Designs come from the design tool, not this API: written to the store as the other document tests do. */
  const storeDesign = (next: ProjectDesign) => server.engine.context.db.updateTable('projects').set({ design: encodeDesign(next) }).where('id', '=', PROJECT).execute();
  const stateOf = async (fileId: number) => (await states()).json.find((state) => state.file === fileId);

  before(async () => {
    server = await startTestServer();
    admin = await server.tokenFor(DEMO_USERS.sunriseAdmin);
  });
  after(() => server.close());

  test('a document just saved is current; a price change marks it, naming what changed; Regenerate makes a new current one and the old stays', async () => {
    const proposal = await save('proposal', { language: 'en' });
    const bom = await save('global_bom', { file_format: 'csv' });
    const fresh = await stateOf(proposal.id);
    assert.ok(fresh, 'the saved proposal is listed');
    assert.equal(fresh.is_current, true);
    assert.deepEqual(fresh.changed, []);
    assert.equal(fresh.document_type, 'proposal');
    assert.equal(fresh.query.file_format, 'pdf');
    assert.equal((await stateOf(bom.id))?.is_current, true);
    // Files that are not saved documents are not listed.
    const listed = new Set((await states()).json.map((state) => state.file));
    assert.deepEqual([...listed].sort(), [proposal.id, bom.id].sort());

    const before = await design();
    const system = before.systems.find((candidate) => candidate.uuid === fresh.query.system_uuid)!;
    await storeDesign({
      ...before,
      systems: before.systems.map((candidate): DesignSystem =>
        candidate.uuid === system.uuid ? { ...candidate, pricing: { ...candidate.pricing, discount: candidate.pricing.discount + 250, system_price_including_tax: candidate.pricing.system_price_including_tax - 250 } } : candidate,
      ),
    });
    const stale = await stateOf(proposal.id);
    assert.equal(stale?.is_current, false);
    assert.deepEqual(stale.changed, ['design', 'prices']);
    assert.equal(stale.problem, null, 'it can be made again with the same choices');

    // Regenerate: the same query again, with action=save.
    const { payment_option_id, document_template_id, ...rest } = stale.query;
    const regenerated = await save('proposal', { ...rest, payment_option_id, document_template_id });
    assert.notEqual(regenerated.id, proposal.id);
    assert.notEqual(regenerated.input_data_hash, proposal.input_data_hash);
    assert.equal((await stateOf(regenerated.id))?.is_current, true);
    assert.equal((await stateOf(proposal.id))?.is_current, false, 'the old file stays, still marked');
  });

  test("the project's printed facts and a new template each mark it; a system that is gone says Regenerate cannot repeat it", async () => {
    const proposal = await save('contract_only');
    assert.equal((await stateOf(proposal.id))?.is_current, true);

    const renamed = await server.request('PATCH', apiPaths.project(1, PROJECT), { token: admin, body: { title: 'Renamed for the freshness test' } });
    assert.equal(renamed.status, 200, renamed.text);
    assert.deepEqual((await stateOf(proposal.id))?.changed, ['project']);

    const again = await save('contract_only');
    const template = await server.request('POST', apiPaths.documentTemplates(1), { token: admin, body: { document_type: 'contract_only', title: 'Our contract', intro_text: 'Dear {customer_name},' } });
    assert.equal(template.status, 201, template.text);
    const withTemplate = await stateOf(again.id);
    assert.equal(withTemplate?.is_current, false);
    assert.deepEqual(withTemplate.changed, ['template']);

    const current = await design();
    const uuid = withTemplate.query.system_uuid;
    // The designer replaced the system: the document's system_uuid is no longer in the design.
    await storeDesign({ ...current, systems: current.systems.map((candidate) => (candidate.uuid === uuid ? { ...candidate, uuid: `${uuid}-replaced` } : candidate)) });
    const orphan = await stateOf(again.id);
    assert.equal(orphan?.is_current, false);
    assert.equal(orphan.problem, 'The system it was made from is no longer in the design. Make a new one from the Documents menu.');
  });

  test("access follows the project: someone who cannot see it gets 403, and so does another org's user", async () => {
    const member = await server.tokenFor(DEMO_USERS.sunriseMember);
    const visible = new Set(((await server.request('GET', `${apiPaths.projects(1)}?limit=1000`, { token: member })).json as Array<{ id: number }>).map((project) => project.id));
    const hidden = ((await server.request('GET', `${apiPaths.projects(1)}?limit=1000`, { token: admin })).json as Array<{ id: number }>).find((project) => !visible.has(project.id))!;
    assert.equal((await states(member, hidden.id)).status, 403);
    const other = await server.tokenFor(DEMO_USERS.basicAdmin);
    assert.equal((await server.request('GET', apiPaths.generatedDocuments(1, PROJECT), { token: other })).status, 403);
  });
});

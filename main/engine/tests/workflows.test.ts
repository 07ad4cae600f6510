// Workflows as the hosted API documents them (hosted-docs-facts.md 3), with
// SolarDesk's rules for what the pages leave open (docs/http-api.md "Workflows").
// Runs on SQLite, and on PostgreSQL under `npm run test:postgres`.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { DEMO_USERS } from '../seed/demo-seed.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { workflowJsonSchema } from '../../../shared/schemas/workflow.ts';
import { STARTER_STAGES } from '../workflows/workflow-service.ts';

const ORG = 1;
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- response bodies

describe('workflows', () => {
  let server: TestServer;
  let admin: string;
  let member: string;
  let viewer: string;
  let basicAdmin: string;

  before(async () => {
    server = await startTestServer();
    admin = await server.tokenFor(DEMO_USERS.sunriseAdmin);
    member = await server.tokenFor(DEMO_USERS.sunriseMember);
    viewer = await server.tokenFor(DEMO_USERS.sunriseViewer);
    basicAdmin = await server.tokenFor(DEMO_USERS.basicAdmin);
  });
  after(() => server.close());

  const create = async (body: Json, token = admin) => server.request('POST', apiPaths.workflows(ORG), { token, body });
  const put = async (id: number, body: Json, token = admin) => server.request('PUT', apiPaths.workflow(ORG, id), { token, body });
  const get = async (id: number, token = admin) => server.request('GET', apiPaths.workflow(ORG, id), { token });
  const list = async (query = '', token = admin) => server.request('GET', `${apiPaths.workflows(ORG)}${query}`, { token });
  const defaultWorkflow = async (): Promise<Json> => (await list('?is_default=true')).json[0];
  /** The PUT body that keeps a workflow as it is. */
  const keepAll = (workflow: Json): Json => ({
    title: workflow.title,
    description: workflow.description,
    workflow_stages: workflow.workflow_stages.map((stage: Json) => ({
      id: stage.id,
      title: stage.title,
      milestone: stage.milestone,
      order: stage.order,
      is_archived: stage.is_archived,
      actions: stage.actions.map((action: Json) => ({ id: action.id, title: action.title })),
    })),
  });

  test('the record has the documented shape: url, org URL, dates, sharing arrays, workflow_stages with order and actions', async () => {
    const created = await create({ title: 'Shape check', description: 'every field' });
    assert.equal(created.status, 201, created.text);
    const workflow = created.json;
    assert.deepEqual(Object.keys(workflow).sort(), [
      'created_date', 'description', 'id', 'is_archived', 'is_default', 'modified_date', 'org', 'org_id', 'org_shared_time', 'share_with_orgs', 'title', 'url', 'workflow_stages',
    ]);
    assert.ok(workflow.url.endsWith(apiPaths.workflow(ORG, workflow.id)));
    assert.ok(workflow.org.endsWith(apiPaths.org(ORG)));
    assert.deepEqual(workflow.share_with_orgs, []);
    assert.deepEqual(workflow.org_shared_time, []);
    assert.match(workflow.created_date, /^\d{4}-\d{2}-\d{2}T/);
    assert.equal(workflow.created_date, workflow.modified_date);
    const stage = workflow.workflow_stages[0];
    assert.deepEqual(Object.keys(stage).sort(), ['actions', 'id', 'is_archived', 'milestone', 'order', 'title']);
    const withAction = await put(workflow.id, { ...keepAll(workflow), workflow_stages: [{ ...keepAll(workflow).workflow_stages[0], actions: [{ id: 'newAction-0', title: 'Call the customer' }] }] });
    assert.equal(withAction.status, 200, withAction.text);
    const action = withAction.json.workflow_stages[0].actions[0];
    assert.deepEqual(Object.keys(action).sort(), ['id', 'share_with_orgs', 'title', 'url']);
    assert.ok(action.url.endsWith(apiPaths.workflowAction(ORG, action.id)));
    workflowJsonSchema.parse(withAction.json);
  });

  test('the demo store keeps its workflow: same stages in the same order, now with dates and no actions', async () => {
    const workflow = await defaultWorkflow();
    assert.equal(workflow.title, 'Residential solar');
    assert.equal(workflow.is_archived, false);
    assert.ok(workflow.created_date.length > 0);
    assert.deepEqual(workflow.workflow_stages.map((stage: Json) => stage.order), workflow.workflow_stages.map((_: Json, index: number) => index));
    assert.ok(workflow.workflow_stages.every((stage: Json) => stage.is_archived === false && stage.actions.length === 0));
  });

  test('POST answers 201 with the starter stages, covering every milestone 0..4', async () => {
    const created = await create({ title: 'Commercial', description: 'Larger roofs', is_default: false });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.title, 'Commercial');
    assert.equal(created.json.description, 'Larger roofs');
    assert.equal(created.json.is_default, false);
    const stages = created.json.workflow_stages as Json[];
    assert.deepEqual(stages.map((stage) => [stage.title, stage.milestone]), STARTER_STAGES.map((stage) => [stage.title, stage.milestone]));
    assert.deepEqual([...new Set(stages.map((stage) => stage.milestone))].sort(), [0, 1, 2, 3, 4]);
    assert.deepEqual(stages.map((stage) => stage.order), stages.map((_, index) => index));
  });

  test('POST without a title is a 400 naming the field', async () => {
    const missing = await create({ description: 'no title' });
    assert.equal(missing.status, 400);
    assert.ok(Array.isArray(missing.json.title), missing.text);
    const blank = await create({ title: '   ' });
    assert.equal(blank.status, 400);
    assert.match(blank.json.title[0], /needs a title/);
  });

  test('GET detail answers the workflow; an unknown id is 404', async () => {
    const created = (await create({ title: 'Detail' })).json;
    const detail = await get(created.id);
    assert.equal(detail.status, 200);
    assert.deepEqual(detail.json, created);
    assert.equal((await get(99999999)).status, 404);
  });

  test('the list filters by is_default and is_archived (true or false); other values are a 400', async () => {
    const archived = (await create({ title: 'To archive' })).json;
    assert.equal((await put(archived.id, { ...keepAll(archived), is_archived: true })).status, 200);
    const defaults = (await list('?is_default=true')).json as Json[];
    assert.equal(defaults.length, 1);
    assert.equal(defaults[0]!.is_default, true);
    assert.ok(((await list('?is_default=false')).json as Json[]).every((workflow) => !workflow.is_default));
    const archivedList = (await list('?is_archived=true')).json as Json[];
    assert.ok(archivedList.some((workflow) => workflow.id === archived.id));
    assert.ok(archivedList.every((workflow) => workflow.is_archived));
    assert.ok(!((await list('?is_archived=false&limit=1000')).json as Json[]).some((workflow) => workflow.id === archived.id));
    for (const bad of ['?is_default=yes', '?is_archived=2']) {
      const answer = await list(bad);
      assert.equal(answer.status, 400, bad);
      assert.match(JSON.stringify(answer.json), /true or false/);
    }
  });

  test('the list pages by page and limit, in id order', async () => {
    await create({ title: 'Page A' });
    await create({ title: 'Page B' });
    const all = (await list('?limit=1000')).json as Json[];
    assert.ok(all.length >= 3);
    assert.deepEqual(all.map((workflow) => workflow.id), [...all.map((workflow) => workflow.id)].sort((a, b) => a - b));
    const second = (await list('?limit=1&page=2')).json as Json[];
    assert.deepEqual(second.map((workflow) => workflow.id), [all[1]!.id]);
  });

  test('PUT replaces the workflow: kept stages and actions keep their ids, newAction-N adds one, new stages come without an id', async () => {
    const workflow = (await create({ title: 'Replace me' })).json;
    const body = keepAll(workflow);
    body.title = 'Replaced';
    body.description = 'new words';
    body.workflow_stages[0].title = 'First contact';
    body.workflow_stages[0].actions = [{ id: 'newAction-0', title: 'Phone the lead' }];
    body.workflow_stages.push({ title: 'Warranty', milestone: 4 }, { id: 'newStage-9', title: 'Audit', milestone: 3 });
    const replaced = await put(workflow.id, body);
    assert.equal(replaced.status, 200, replaced.text);
    const stages = replaced.json.workflow_stages as Json[];
    assert.equal(replaced.json.title, 'Replaced');
    assert.equal(replaced.json.description, 'new words');
    assert.deepEqual(stages.slice(0, workflow.workflow_stages.length).map((stage) => stage.id), workflow.workflow_stages.map((stage: Json) => stage.id));
    assert.equal(stages[0]!.title, 'First contact');
    assert.equal(stages[0]!.actions.length, 1);
    assert.equal(stages[0]!.actions[0].title, 'Phone the lead');
    assert.equal(typeof stages[0]!.actions[0].id, 'number');
    assert.deepEqual(stages.slice(-2).map((stage) => [stage.title, stage.milestone]), [['Warranty', 4], ['Audit', 3]]);
    assert.ok(replaced.json.modified_date >= workflow.modified_date);

    // The action kept by its id keeps it; a second newAction-1 is added after it.
    const again = keepAll(replaced.json);
    again.workflow_stages[0].actions.push({ id: 'newAction-1', title: 'Email the brochure' });
    const twice = await put(workflow.id, again);
    assert.equal(twice.status, 200, twice.text);
    assert.deepEqual(twice.json.workflow_stages[0].actions.map((action: Json) => action.title), ['Phone the lead', 'Email the brochure']);
    assert.equal(twice.json.workflow_stages[0].actions[0].id, stages[0]!.actions[0].id);
    assert.deepEqual((await get(workflow.id)).json, twice.json);
  });

  test('PUT removes the stages and actions it does not send', async () => {
    const workflow = (await create({ title: 'Shrink me' })).json;
    const withActions = keepAll(workflow);
    withActions.workflow_stages[0].actions = [{ id: 'newAction-0', title: 'One' }, { id: 'newAction-1', title: 'Two' }];
    const grown = (await put(workflow.id, withActions)).json;
    const shrunk = keepAll(grown);
    shrunk.workflow_stages = shrunk.workflow_stages.slice(0, 2);
    shrunk.workflow_stages[0].actions = shrunk.workflow_stages[0].actions.slice(1);
    const answer = await put(workflow.id, shrunk);
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.json.workflow_stages.map((stage: Json) => stage.id), grown.workflow_stages.slice(0, 2).map((stage: Json) => stage.id));
    assert.deepEqual(answer.json.workflow_stages[0].actions.map((action: Json) => action.title), ['Two']);
  });

  test('PUT: a new action without a title, a bad new id, or no workflow_stages is a 400 that says what to send', async () => {
    const workflow = (await create({ title: 'Strict' })).json;
    const noTitle = keepAll(workflow);
    noTitle.workflow_stages[0].actions = [{ id: 'newAction-0' }];
    const missing = await put(workflow.id, noTitle);
    assert.equal(missing.status, 400);
    assert.match(JSON.stringify(missing.json.workflow_stages), /needs a title/);
    const badId = keepAll(workflow);
    badId.workflow_stages[0].actions = [{ id: 'action-0', title: 'x' }];
    const bad = await put(workflow.id, badId);
    assert.equal(bad.status, 400);
    assert.match(JSON.stringify(bad.json), /newAction-N/);
    const noStages = await put(workflow.id, { title: 'Strict' });
    assert.equal(noStages.status, 400);
    assert.match(JSON.stringify(noStages.json.workflow_stages), /every stage to keep/);
    const foreignStage = keepAll(workflow);
    foreignStage.workflow_stages[0].id = (await defaultWorkflow()).workflow_stages[0].id;
    const foreign = await put(workflow.id, foreignStage);
    assert.equal(foreign.status, 400);
    assert.match(JSON.stringify(foreign.json), /not a stage of this workflow/);
    // Nothing was changed by the refused writes.
    assert.deepEqual((await get(workflow.id)).json, workflow);
  });

  test('one default per org: making a workflow the default moves the flag; the default cannot be unset, archived or deleted', async () => {
    const before = await defaultWorkflow();
    const next = (await create({ title: 'New default', is_default: true })).json;
    assert.equal(next.is_default, true);
    const defaults = (await list('?is_default=true')).json as Json[];
    assert.deepEqual(defaults.map((workflow) => workflow.id), [next.id]);
    assert.equal((await get(before.id)).json.is_default, false);
    const unset = await put(next.id, { ...keepAll(next), is_default: false });
    assert.equal(unset.status, 400);
    assert.match(unset.json.is_default[0], /make another workflow the default/);
    const archive = await put(next.id, { ...keepAll(next), is_archived: true });
    assert.equal(archive.status, 400);
    assert.match(archive.json.is_archived[0], /default workflow cannot be archived/);
    const remove = await server.request('DELETE', apiPaths.workflow(ORG, next.id), { token: admin });
    assert.equal(remove.status, 400);
    assert.match(remove.json.non_field_errors[0], /default workflow cannot be deleted/);
    // Back as it was, by a PUT of the old default.
    const restored = await put(before.id, { ...keepAll((await get(before.id)).json), is_default: true });
    assert.equal(restored.status, 200, restored.text);
    assert.equal((await get(next.id)).json.is_default, false);
  });

  test('a stage or workflow projects are at cannot be removed, archived or deleted: 400 says to move the projects', async () => {
    const workflow = (await create({ title: 'In use' })).json;
    const stage = workflow.workflow_stages[1];
    const project = await server.request('POST', apiPaths.projects(ORG), { token: admin, body: { title: 'At a stage', workflow: { workflow_id: workflow.id, active_stage_id: stage.id } } });
    assert.equal(project.status, 201, project.text);
    const withoutStage = keepAll(workflow);
    withoutStage.workflow_stages.splice(1, 1);
    const removed = await put(workflow.id, withoutStage);
    assert.equal(removed.status, 400);
    assert.match(removed.json.workflow_stages.join(' '), /has 1 project at it: move them to another stage first/);
    const archivedStage = keepAll(workflow);
    archivedStage.workflow_stages[1].is_archived = true;
    assert.match((await put(workflow.id, archivedStage)).json.workflow_stages.join(' '), /cannot be archived/);
    const archivedWorkflow = await put(workflow.id, { ...keepAll(workflow), is_archived: true });
    assert.equal(archivedWorkflow.status, 400);
    assert.match(archivedWorkflow.json.is_archived[0], /1 project is in this workflow: move/);
    const deleted = await server.request('DELETE', apiPaths.workflow(ORG, workflow.id), { token: admin });
    assert.equal(deleted.status, 400);
    assert.match(deleted.json.non_field_errors[0], /move them to another workflow before deleting it/);

    // Once the project has moved on, the stage may go.
    const moved = await server.request('PATCH', apiPaths.project(ORG, project.json.id), { token: admin, body: { active_stage_id: workflow.workflow_stages[0].id } });
    assert.equal(moved.status, 200, moved.text);
    assert.equal((await put(workflow.id, withoutStage)).status, 200);
  });

  test('a project cannot be moved onto an archived stage or workflow', async () => {
    const workflow = (await create({ title: 'Archived parts' })).json;
    const body = keepAll(workflow);
    body.workflow_stages[2].is_archived = true;
    const archived = (await put(workflow.id, body)).json;
    const archivedStage = archived.workflow_stages[2];
    const onto = await server.request('PATCH', apiPaths.project(ORG, 7), { token: admin, body: { workflow: { workflow_id: workflow.id, active_stage_id: archivedStage.id } } });
    assert.equal(onto.status, 400);
    assert.match(onto.json.active_stage_id[0], /archived/);
    const first = await server.request('PATCH', apiPaths.project(ORG, 7), { token: admin, body: { workflow: { workflow_id: workflow.id, active_stage_id: archived.workflow_stages[0].id } } });
    assert.equal(first.status, 200, first.text);
    const home = await defaultWorkflow();
    const back = await server.request('PATCH', apiPaths.project(ORG, 7), { token: admin, body: { workflow: { workflow_id: home.id, active_stage_id: home.workflow_stages[0].id } } });
    assert.equal(back.status, 200, back.text);
    const archivedWorkflow = await put(workflow.id, { ...keepAll(archived), is_archived: true });
    assert.equal(archivedWorkflow.status, 200, archivedWorkflow.text);
    const ontoWorkflow = await server.request('PATCH', apiPaths.project(ORG, 7), {
      token: admin,
      body: { workflow: { workflow_id: workflow.id, active_stage_id: archived.workflow_stages[0].id } },
    });
    assert.equal(ontoWorkflow.status, 400);
    assert.match(ontoWorkflow.json.workflow[0], /archived/);
  });

  test('a stage\'s new milestone becomes the project stage of the projects at it, and their change is recorded', async () => {
    const workflow = (await create({ title: 'Milestones' })).json;
    const stage = workflow.workflow_stages[0];
    const project = (await server.request('POST', apiPaths.projects(ORG), { token: admin, body: { title: 'Milestone follower', workflow: { workflow_id: workflow.id, active_stage_id: stage.id } } })).json;
    assert.equal(project.stage, stage.milestone);
    const cursor = (await server.request('GET', apiPaths.changes(ORG), { token: admin })).json.next_cursor;
    const body = keepAll(workflow);
    body.workflow_stages[0].milestone = 2;
    assert.equal((await put(workflow.id, body)).status, 200);
    const after = (await server.request('GET', apiPaths.project(ORG, project.id), { token: admin })).json;
    assert.equal(after.stage, 2);
    assert.ok(after.modified_date > project.modified_date);
    const changes = (await server.request('GET', `${apiPaths.changes(ORG)}?after=${cursor}`, { token: admin })).json.changes as Json[];
    assert.ok(changes.some((change) => change.model === 'project' && change.id === project.id && change.op === 'update'), JSON.stringify(changes));
  });

  test('DELETE removes a workflow with no project in it: 204, then 404', async () => {
    const workflow = (await create({ title: 'Delete me' })).json;
    const withAction = keepAll(workflow);
    withAction.workflow_stages[0].actions = [{ id: 'newAction-0', title: 'Gone too' }];
    assert.equal((await put(workflow.id, withAction)).status, 200);
    const deleted = await server.request('DELETE', apiPaths.workflow(ORG, workflow.id), { token: admin });
    assert.equal(deleted.status, 204);
    assert.equal((await get(workflow.id)).status, 404);
    assert.ok(!((await list('?limit=1000')).json as Json[]).some((candidate) => candidate.id === workflow.id));
  });

  test('every role reads workflows; only admins create, replace or delete them (403 says so)', async () => {
    const workflow = (await create({ title: 'Admins only' })).json;
    for (const token of [member, viewer]) {
      assert.equal((await list('', token)).status, 200);
      assert.equal((await get(workflow.id, token)).status, 200);
      const refused = await create({ title: 'Not mine' }, token);
      assert.equal(refused.status, 403);
      assert.match(refused.json.detail, /Only an admin/);
      assert.equal((await put(workflow.id, keepAll(workflow), token)).status, 403);
      assert.equal((await server.request('DELETE', apiPaths.workflow(ORG, workflow.id), { token })).status, 403);
    }
    assert.deepEqual((await get(workflow.id)).json, workflow);
  });

  test('another org\'s workflow is not found: GET, PUT and DELETE answer 404 and change nothing', async () => {
    const foreign = (await server.request('POST', apiPaths.workflows(2), { token: basicAdmin, body: { title: 'Basic only' } })).json;
    assert.equal((await get(foreign.id)).status, 404);
    assert.equal((await put(foreign.id, keepAll(foreign))).status, 404);
    assert.equal((await server.request('DELETE', apiPaths.workflow(ORG, foreign.id), { token: admin })).status, 404);
    assert.equal((await server.request('GET', apiPaths.workflows(2), { token: admin })).status, 403);
    assert.deepEqual((await server.request('GET', apiPaths.workflow(2, foreign.id), { token: basicAdmin })).json, foreign);
  });
});

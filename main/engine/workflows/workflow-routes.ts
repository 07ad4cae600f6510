// /api/orgs/<org>/workflows/ (hosted-docs-facts.md 3; docs/http-api.md "Workflows"):
// every member reads them (a project's stage picker needs them); only admins
// create, replace or delete one.
import { z } from 'zod';
import type { TypedApp } from '../http/app.ts';
import type { EngineContext } from '../context.ts';
import { actorOf } from '../auth/actor.ts';
import { notFound } from '../http/errors.ts';
import { idParam, pageOffset, pagingQuery } from '../http/list-query.ts';
import { versionTag } from '../http/preconditions.ts';
import { findWorkflow, listWorkflows, serializeWorkflowRows } from './workflows.ts';
import { createWorkflow, deleteWorkflow, replaceWorkflow } from './workflow-service.ts';
import { workflowCreateSchema, workflowJsonSchema, workflowListQuerySchema, workflowReplaceSchema } from '../../../shared/schemas/workflow.ts';

const params = z.object({ org_id: z.string(), id: idParam });
const tags = ['workflows'];

export function registerWorkflowRoutes(app: TypedApp, context: EngineContext): void {
  const answer = async (workflow: Parameters<typeof serializeWorkflowRows>[2][number]) => (await serializeWorkflowRows(context, context.db, [workflow]))[0]!;

  app.get(
    '/workflows/',
    {
      schema: {
        tags,
        summary: 'List workflows with their stages and actions',
        description: '`is_default` and `is_archived` filter by true or false; anything else is a 400.',
        querystring: z.object({ ...pagingQuery, ...workflowListQuerySchema }),
        response: { 200: z.array(workflowJsonSchema) },
      },
    },
    async (request) => {
      const { org } = actorOf(request);
      const { page, limit, is_default, is_archived } = request.query;
      return listWorkflows(context, context.db, org.id, { is_default, is_archived }, { limit, offset: pageOffset({ page, limit }) });
    },
  );

  app.post(
    '/workflows/',
    {
      schema: {
        tags,
        summary: 'Create a workflow (admins); it comes with starter stages',
        body: workflowCreateSchema,
        response: { 201: workflowJsonSchema },
      },
    },
    async (request, reply) => {
      const workflow = await createWorkflow(context, actorOf(request), request.body);
      return reply.code(201).header('etag', versionTag(workflow.modified_date)).send(await answer(workflow));
    },
  );

  app.get('/workflows/:id/', { schema: { tags, summary: 'Get a workflow', params, response: { 200: workflowJsonSchema } } }, async (request, reply) => {
    const workflow = await findWorkflow(context.db, actorOf(request).org.id, request.params.id);
    if (!workflow) throw notFound();
    reply.header('etag', versionTag(workflow.modified_date));
    return answer(workflow);
  });

  app.put(
    '/workflows/:id/',
    {
      schema: {
        tags,
        summary: 'Replace a workflow, its stages and actions (admins)',
        description:
          'Send every stage and action to keep: those left out are removed. A new stage has no id (or "newStage-N"); a new action has the id "newAction-N" and a title.',
        params,
        body: workflowReplaceSchema,
        response: { 200: workflowJsonSchema },
      },
    },
    async (request, reply) => {
      const workflow = await replaceWorkflow(context, actorOf(request), request.params.id, request.body);
      reply.header('etag', versionTag(workflow.modified_date));
      return answer(workflow);
    },
  );

  app.delete('/workflows/:id/', { schema: { tags, summary: 'Delete a workflow (admins): not the default, and no project in it', params } }, async (request, reply) => {
    await deleteWorkflow(context, actorOf(request), request.params.id);
    return reply.code(204).send();
  });
}

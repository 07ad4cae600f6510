// GET .../projects/<id>/systems/details/ and .../projects/<id>/systems/<uuid>/image/
// (service.md 4.4, compatibility.md "Systems"), and the systems resource GET
// .../systems/ and .../systems/<id>/ (hosted-docs-facts.md 1): read from the designs.
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import type { TypedApp } from '../http/app.ts';
import { absoluteUrl, type EngineContext } from '../context.ts';
import { actorOf } from '../auth/actor.ts';
import { notFound } from '../http/errors.ts';
import { idParam } from '../http/list-query.ts';
import { getVisibleProject } from '../projects/project-service.ts';
import { sendStoredFile } from '../files/blob-response.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { API_PLANS } from '../../../shared/plans.ts';
import { integerField } from '../../../shared/schemas/coercing-fields.ts';
import { projectOfSystemId, systemDetails, systemDetailsQuery } from './system-details.ts';
import { projectDigest } from '../designs/design-cache.ts';
import { designRows, listSystems, systemDetailQuery, systemListQuery } from './system-list.ts';
import { systemDetailsJsonSchema, systemListJsonSchema, type SystemDetailsJson } from '../../../shared/schemas/system.ts';
import { documentedResponse, JSON_TEXT_TYPE } from '../http/response-schemas.ts';
import { readGeneration } from '../projects/project-json-cache.ts';
import { systemsAnswerText } from './systems-answer-cache.ts';
import { systemImageFile } from './system-image-file.ts';
import { MAX_IMAGE_SIDE, MIN_IMAGE_SIDE } from './system-image.ts';

const tags = ['systems'];
const projectParams = z.object({ org_id: z.string(), id: idParam });
const imageSide = () =>
  integerField().refine(
    (side) => side >= MIN_IMAGE_SIDE && side <= MAX_IMAGE_SIDE,
    `Ensure this value is between ${MIN_IMAGE_SIDE} and ${MAX_IMAGE_SIDE} pixels.`,
  );

export function registerSystemRoutes(app: TypedApp, context: EngineContext): void {
  app.get(
    '/projects/:id/systems/details/',
    {
      config: { throttle: 'system_details' },
      schema: {
        tags,
        summary: "The systems of a project's design; `data` (custom data) only on Raw Data API Access",
        params: projectParams,
        querystring: systemDetailsQuery,
        // Documented only (http/response-schemas.ts): designs are free-form, as a client wrote them.
        response: { 200: documentedResponse(systemDetailsJsonSchema) },
      },
    },
    async (request, reply) => {
      // Before any read: a write after this point makes the kept answer stale (systems-answer-cache.ts).
      const generation = readGeneration(context);
      const actor = actorOf(request);
      const project = await getVisibleProject(context, actor, request.params.id);
      // Only projects the org owns (hosted-docs-facts.md 5), never ones shared in through
      // Teams: project visibility may come to include those, so this says it here too.
      if (project.org_id !== actor.org.id) throw notFound();
      const includesDesignData = API_PLANS[actor.plan].includesDesignData;
      const key = `details|${context.publicUrl}|${project.id}|${includesDesignData ? 1 : 0}|${JSON.stringify(request.query)}`;
      const text = await systemsAnswerText(context, key, generation, async () =>
        systemDetails(context, project, await projectDigest(context, project), request.query, includesDesignData) as SystemDetailsJson,
      );
      // Sent as written: the typed reply would take only the answer's object.
      return (reply as FastifyReply).type(JSON_TEXT_TYPE).send(text);
    },
  );

  app.get(
    '/systems/',
    {
      schema: {
        tags,
        summary: "The org's systems (fieldset=list required), from its projects' designs, by project then design order; `project` filters",
        querystring: systemListQuery,
        response: { 200: documentedResponse(z.array(systemListJsonSchema)) },
      },
    },
    async (request, reply) => {
      const generation = readGeneration(context);
      const actor = actorOf(request);
      // What the page may show depends on who asks (their role's visibility) and on the query.
      const key = `list|${context.publicUrl}|${actor.org.id}|${actor.user.id}|${actor.plan}|${JSON.stringify(request.query)}`;
      const text = await systemsAnswerText(context, key, generation, () => listSystems(context, actor, request.query));
      // Sent as written: the typed reply would take only the answer's object.
      return (reply as FastifyReply).type(JSON_TEXT_TYPE).send(text);
    },
  );

  app.get(
    '/systems/:id/',
    {
      schema: {
        tags,
        summary: 'One system of the org, by the id systems/details gives (fieldset=list required)',
        params: z.object({ org_id: z.string(), id: idParam }),
        querystring: systemDetailQuery,
        response: { 200: documentedResponse(systemListJsonSchema) },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const projectId = projectOfSystemId(request.params.id);
      if (projectId < 1) throw notFound('No system with this id.');
      // 404 when the project is not the org's; 403 when it is but this user may not see it.
      const project = await getVisibleProject(context, actor, projectId);
      const row = designRows(context, project, await projectDigest(context, project)).find((candidate) => candidate.id === request.params.id);
      if (!row) throw notFound('No system with this id.');
      return row;
    },
  );

  app.get(
    '/projects/:id/systems/:uuid/image/',
    {
      config: { throttle: 'system_image' },
      schema: {
        tags,
        summary: 'A PNG plan of the system (roof facets and panels) at exactly width x height; kept as a "System Image" private file',
        params: projectParams.extend({ uuid: z.string().max(64) }),
        querystring: z.object({ width: imageSide(), height: imageSide() }),
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const project = await getVisibleProject(context, actor, request.params.id);
      const design = await projectDigest(context, project);
      if (!design || !project.design) throw notFound('This project has no design, so it has no systems to draw.');
      const system = design.systems.find((candidate) => candidate.uuid === request.params.uuid);
      if (!system) throw notFound("No system with this uuid in the project's design.");
      const file = await systemImageFile(context, actor, { ...project, design: project.design }, system, request.query);
      reply.header('x-private-file', absoluteUrl(context, apiPaths.privateFile(file.org_id, file.id)));
      return sendStoredFile(context, request, reply, file);
    },
  );
}

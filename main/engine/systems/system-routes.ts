// GET .../projects/<id>/systems/details/ and .../projects/<id>/systems/<uuid>/image/
// (service.md 4.4, compatibility.md "Systems"): read from the project's design.
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
import { projectDesign, systemDetails, systemDetailsQuery } from './system-details.ts';
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
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const project = await getVisibleProject(context, actor, request.params.id);
      return systemDetails(context, project, projectDesign(project), request.query, API_PLANS[actor.plan].includesDesignData);
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
      const design = projectDesign(project);
      if (!design || !project.design) throw notFound('This project has no design, so it has no systems to draw.');
      const system = design.systems.find((candidate) => candidate.uuid === request.params.uuid);
      if (!system) throw notFound("No system with this uuid in the project's design.");
      const file = await systemImageFile(context, actor, { ...project, design: project.design }, design, system, request.query);
      reply.header('x-private-file', absoluteUrl(context, apiPaths.privateFile(file.org_id, file.id)));
      return sendStoredFile(context, request, reply, file);
    },
  );
}

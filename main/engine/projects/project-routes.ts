// /api/orgs/<org>/projects/ (service.md 4.1).
import { z } from 'zod';
import type { TypedApp } from '../http/app.ts';
import type { EngineContext } from '../context.ts';
import { actorOf } from '../auth/actor.ts';
import { idParam, pageOffset, pagingQuery, readOrdering, searchParam } from '../http/list-query.ts';
import { projectWriteSchema } from '../../../shared/schemas/project-write.ts';
import { integerField } from '../../../shared/schemas/coercing-fields.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { showsField, viewFor } from './project-serializer.ts';
import { ifNoneMatchHits, listTag, projectJsonTexts, readGeneration } from './project-json-cache.ts';
import { answerNotModified } from '../throttle/throttle-hook.ts';
import { PROJECT_COLUMNS_BUT_DESIGN } from './project-columns.ts';
import { documentedResponse, JSON_TEXT_TYPE } from '../http/response-schemas.ts';
import { projectDetailJsonSchema, projectListJsonSchema, projectStudioJsonSchema } from '../../../shared/schemas/project.ts';
import { sql } from 'kysely';
import { PRECONDITION_DESCRIPTION, conditionalWriteSchema, readIfMatch, versionTag } from '../http/preconditions.ts';
import {
  applyProjectSearch,
  createProject,
  deleteProject,
  checkVisible,
  getReadableProjectHead,
  getWritableProject,
  projectReadOf,
  revokeShareLinks,
  updateProject,
} from './project-service.ts';
import { SOLARDESK_EXTENSION_TAG, extensionDescription } from '../http/extensions.ts';
import { contentTag } from '../http/conditional-get.ts';
import { visibleTo } from './project-access.ts';
import { hasSharesTo, partnerPermissions, seesSharedProjects, sharedProjectIdsFor } from '../sharing/project-shares.ts';
import type { Actor } from '../auth/actor.ts';
import type { ProjectRow } from '../store/tables.ts';
import { notFound } from '../http/errors.ts';
import type { Fieldset, ProjectView } from './project-serializer.ts';
import { type ProjectJson, type ProjectVersion } from './project-json-cache.ts';

/** Answers are JSON text built (or kept) by project-json-cache.ts, sent as they are. */

const PROJECT_ORDERING_FIELDS = ['id', 'title', 'created_date', 'modified_date', 'priority', 'address', 'identifier'] as const;

const listQuery = z.object({
  ...pagingQuery,
  fieldset: z.enum(['list', 'studio']).optional().catch(undefined),
  search: searchParam(),
  stage: integerField().optional(),
  active_stage_id: integerField().optional(),
  owner_org_id: integerField().optional().describe('only projects this organisation owns'),
  visible_to: integerField().optional().describe("only projects shared with this organisation (this organisation's id: the projects partners share with it)"),
});
const projectParams = z.object({ org_id: z.string(), id: idParam });
const tags = ['projects'];
// Documented, not enforced: main/engine/http/response-schemas.ts says why.
const projectAnswer = documentedResponse(projectDetailJsonSchema);
const projectListAnswer = documentedResponse(
  z.array(z.union([projectListJsonSchema, projectStudioJsonSchema])).describe('list rows (the default), or studio rows with fieldset=studio'),
);

export function registerProjectRoutes(app: TypedApp, context: EngineContext): void {
  /**
   * `created`: the project this request has just made. A user who sees only the
   * projects they hold a role on may create one they hold none on; the create is
   * done, so it answers 201 with it (it used to answer 403 after committing, and a
   * client that believed it would make it again).
   */
  const respond = async (
    request: Parameters<typeof actorOf>[0],
    reply: FastifyReply,
    id: number,
    options: { created?: boolean; written?: boolean; notModifiedFor?: string | string[] } = {},
  ) => {
    const actor = actorOf(request);
    const generation = readGeneration(context);
    // A write's answer is built from what its change capture read last, when nothing has been written since.
    const written = options.written ? await projectReadOf(context, id) : null;
    // A read reads only the version and what decides visibility; the whole row only when its JSON is not cached (loadRow).
    const { head: row, whole } = written
      ? { head: options.created ? written.row : checkVisible(actor, written.row), whole: written.row }
      : options.created
        ? await context.db.selectFrom('projects').selectAll().where('id', '=', id).where('org_id', '=', actor.org.id).executeTakeFirstOrThrow().then((full) => ({ head: full, whole: full }))
        : await getReadableProjectHead(context, actor, id).then(({ head, shared }) => ({ head, whole: shared }));
    // Deleted since the head was read: no row, and the answer is 404 below.
    const loadRow = async (): Promise<ProjectRow[]> => (whole ? [whole] : await context.db.selectFrom('projects').selectAll().where('id', '=', row.id).execute());
    // The version a later If-Match names (main/engine/http/preconditions.ts).
    const version = versionTag(row.modified_date);
    // A connected org's answer depends on more than the project's version: whether it
    // is still shared, and the permissions role in force, which the owner changes
    // without touching the project. Its tag is therefore the answer's own (issue 25,
    // item 6), so a narrowing is seen at the next conditional GET; it cannot write the
    // project, so it needs no version for If-Match.
    const isPartnerView = row.org_id !== actor.org.id;
    if (!isPartnerView && options.notModifiedFor !== undefined && ifNoneMatchHits(options.notModifiedFor, version)) {
      return answerNotModified(context.throttle, request as FastifyRequest, reply, version);
    }
    const [answer] = await projectJsonsFor(context, actor, [{ ...row }], 'detail', generation, loadRow, written?.relations);
    if (!answer) throw notFound();
    const etag = isPartnerView ? contentTag(context, answer.json).tag : version;
    if (isPartnerView && options.notModifiedFor !== undefined && ifNoneMatchHits(options.notModifiedFor, etag)) {
      return answerNotModified(context.throttle, request as FastifyRequest, reply, etag);
    }
    return reply.header('etag', etag).type(JSON_TEXT_TYPE).send(answer.json);
  };

  app.get('/projects/', { schema: { tags, summary: 'List projects', querystring: listQuery, response: { 200: projectListAnswer } } }, async (request, reply) => {
    const actor = actorOf(request);
    const generation = readGeneration(context);
    const { page, limit, ordering, fieldset, search, stage, active_stage_id: activeStageId, owner_org_id: ownerOrgId, visible_to: visibleToOrg } = request.query;
    const order = readOrdering(ordering, PROJECT_ORDERING_FIELDS, { field: 'modified_date', direction: 'desc' });
    const shown = fieldset ?? 'list';
    // The page's ids and versions first: rows whose JSON is cached for this version are not read again.
    // Projects connected orgs share with this one are listed too (docs/access.md "Teams"), when there are any.
    const sharedIn = seesSharedProjects(actor) && (await hasSharesTo(context.db, actor.org.id));
    let query = context.db
      .selectFrom('projects')
      .select(['projects.id', 'projects.modified_date', 'projects.org_id'])
      .where(sharedIn ? (builder) => builder.or([visibleTo(actor)(builder), builder('projects.id', 'in', sharedProjectIdsFor(actor.org.id))]) : visibleTo(actor));
    if (ownerOrgId !== undefined) query = query.where('projects.org_id', '=', ownerOrgId);
    if (visibleToOrg !== undefined) {
      query =
        visibleToOrg === actor.org.id
          ? query.where('projects.org_id', '!=', actor.org.id)
          : query.where('projects.id', 'in', (builder) =>
              builder.selectFrom('project_shares').select('project_shares.project_id').where('project_shares.org_id', '=', visibleToOrg).where('project_shares.is_shared', '=', 1),
            );
    }
    if (search) query = applyProjectSearch(query, search, actor.org.id);
    if (activeStageId !== undefined) query = query.where('projects.active_stage_id', '=', activeStageId);
    if (stage !== undefined) {
      query = query.where('projects.active_stage_id', 'in', (builder) =>
        builder.selectFrom('workflow_stages').select('workflow_stages.id').where('workflow_stages.milestone', '=', stage),
      );
    }
    // Titles sort naturally ("75 Macquarie" before "249 Hill"), by the key stored beside them (shared/natural-sort.ts).
    const orderColumn = order.field === 'title' ? 'title_sort' : order.field;
    const versions = await query
      .orderBy(`projects.${orderColumn}`, order.direction)
      .orderBy('projects.id', order.direction)
      .limit(limit)
      .offset(pageOffset({ page, limit }))
      .execute();
    const loadRows = (ids: number[]) =>
      context.db
        .selectFrom('projects')
        .select(PROJECT_COLUMNS_BUT_DESIGN.map((column) => `projects.${column}` as const))
        // The design is read only where the fieldset shows it.
        .select(showsField(shown, 'design') ? sql<string | null>`projects.design`.as('design') : sql<string | null>`null`.as('design'))
        // The ids come from the visibility query above: the org's own, and those shared to it.
        .where('projects.id', 'in', ids)
        .execute();
    const answers = await projectJsonsFor(context, actor, versions, shown, generation, loadRows);
    const etag = listTag(request.url, answers);
    if (ifNoneMatchHits(request.headers['if-none-match'], etag)) return answerNotModified(context.throttle, request, reply, etag);
    // Sent as text: the rows' JSON is already built (the route's schema types objects).
    return (reply as FastifyReply).header('etag', etag).type(JSON_TEXT_TYPE).send(`[${answers.map((answer) => answer.json).join(',')}]`);
  });

  app.post('/projects/', { config: { throttle: 'project_create' }, schema: { tags, summary: 'Create a project', body: projectWriteSchema, response: { 201: projectAnswer } } }, async (request, reply) => {
    const id = await createProject(context, actorOf(request), request.body);
    return respond(request, reply.code(201), id, { created: true, written: true });
  });

  app.get('/projects/:id/', { config: { throttle: 'project_detail' }, schema: { tags, summary: 'Get a project', params: projectParams, response: { 200: projectAnswer } } }, (request, reply) =>
    respond(request, reply, request.params.id, { notModifiedFor: request.headers['if-none-match'] }),
  );

  const update = async (
    request: { params: { id: number }; body: z.output<typeof projectWriteSchema>; headers: { 'if-match'?: string } } & Parameters<typeof actorOf>[0],
    reply: FastifyReply,
  ) => {
    const actor = actorOf(request);
    const existing = await getWritableProject(context, actor, request.params.id);
    await updateProject(context, actor, existing, request.body, readIfMatch(request.headers['if-match']));
    return respond(request, reply, existing.id, { written: true });
  };
  const writeSchema = { tags, params: projectParams, body: projectWriteSchema, ...conditionalWriteSchema, response: { 200: projectAnswer } };
  app.patch('/projects/:id/', { config: { throttle: 'project_partial_update' }, schema: { ...writeSchema, summary: 'Update some fields of a project' } }, update);
  app.put('/projects/:id/', { config: { throttle: 'project_update' }, schema: { ...writeSchema, summary: 'Update a project' } }, update);

  app.post(
    '/projects/:id/share_link/revoke/',
    {
      config: { throttle: 'project_partial_update' },
      schema: {
        tags: [...tags, SOLARDESK_EXTENSION_TAG],
        summary: "Revoke the project's share links",
        description: extensionDescription(
          "Ends every share link of the project at once: the one in the owner's `share_link`, each connected org's, and any copy handed on. " +
            'The answer is the project with its new `share_link`; the project gets a new version (ETag), as for any change. ' +
            'Only someone who may edit the project can revoke: a connected org the project is shared with gets 403. ' +
            PRECONDITION_DESCRIPTION,
        ),
        params: projectParams,
        headers: conditionalWriteSchema.headers,
        response: { 200: projectAnswer },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const existing = await getWritableProject(context, actor, request.params.id);
      await revokeShareLinks(context, actor, existing, readIfMatch(request.headers['if-match']));
      return respond(request, reply, existing.id, { written: true });
    },
  );

  app.delete('/projects/:id/', { schema: { tags, summary: 'Delete a project', params: projectParams } }, async (request, reply) => {
    const actor = actorOf(request);
    const project = await getWritableProject(context, actor, request.params.id);
    await deleteProject(context, actor, project);
    return reply.code(204).send();
  });
}

/**
 * The JSON of each row, in order: the org's own projects as its view; projects a
 * connected org shares with it as the owner's, narrowed by the permissions role in
 * force (project-serializer.ts narrowForPartner), with only this org's `shared_with` entry.
 */
async function projectJsonsFor(
  context: EngineContext,
  actor: Actor,
  versions: ReadonlyArray<ProjectVersion & { org_id: number }>,
  fieldset: Fieldset,
  generation: number,
  loadRows: (ids: number[]) => Promise<readonly ProjectRow[]>,
  knownRelations?: Parameters<typeof projectJsonTexts>[7],
): Promise<ProjectJson[]> {
  const byOrg = new Map<number, Array<ProjectVersion & { org_id: number }>>();
  for (const version of versions) {
    const orgVersions = byOrg.get(version.org_id);
    if (orgVersions) orgVersions.push(version);
    else byOrg.set(version.org_id, [version]);
  }
  const answers = new Map<number, ProjectJson>();
  for (const [orgId, orgVersions] of byOrg) {
    let view: ProjectView = viewFor(actor);
    if (orgId !== actor.org.id) {
      const owner = await context.db.selectFrom('orgs').select('name').where('id', '=', orgId).executeTakeFirstOrThrow();
      const permissions = await partnerPermissions(context.db, actor.org.id, orgVersions.map((version) => version.id));
      // Its users' download links name this org, the one they see the files through (files/download-links.ts).
      const fileViewer = view.fileViewer && { ...view.fileViewer, viaOrgId: actor.org.id };
      view = { ...view, orgName: owner.name, fileViewer, partner: { orgId: actor.org.id, permissions } };
    }
    for (const answer of await projectJsonTexts(context, orgId, view, orgVersions, fieldset, generation, loadRows, knownRelations)) answers.set(answer.id, answer);
  }
  return versions.flatMap((version) => answers.get(version.id) ?? []);
}

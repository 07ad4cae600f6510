// /api/orgs/<org>/private_files/ and /file_tags/ (service.md 2.2, 4.2; compatibility.md
// "Private files"). Every route checks the actor is a Pro user, then applies the
// access rule of file-access.ts.
import { z } from 'zod';
import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { TypedApp } from '../http/app.ts';
import type { EngineContext } from '../context.ts';
import { type Actor, actorOf } from '../auth/actor.ts';
import { drfFieldErrors, fieldError, validationError, type FieldErrors } from '../http/errors.ts';
import { idParam, pageOffset, pagingQuery } from '../http/list-query.ts';
import {
  documentFileFieldsSchema,
  fileTagCreateSchema,
  fileTagJsonSchema,
  privateFileCreateFormSchema,
  privateFileJsonSchema,
  privateFilePatchSchema,
} from '../../../shared/schemas/private-file.ts';
import { booleanField } from '../../../shared/schemas/coercing-fields.ts';
import { fileVisibleTo, getVisibleFile, requireFilesUser } from './file-access.ts';
import { applyFileFilters, fileListQuery, projectFilterId } from './file-list.ts';
import { downloadUrlsFor, fileJson, serializeFile, serializeFileTag, withTags } from './file-serializer.ts';
import { byUser } from '../changes/change-feed.ts';
import { deleteFile, type NewFileRecord, resolveProjectReference, storeNewFile, updateFile } from './file-service.ts';
import { createFileTag, resolveTagReferences, tagsOfOrg } from './file-tags.ts';
import { conditionalWriteSchema, readIfMatch, versionTag } from '../http/preconditions.ts';
import { cleanFileName, contentTypeFor } from './file-types.ts';
import { type MultipartFile, receiveMultipartFile, recogniseMultipartSentAsJson } from './multipart-receive.ts';
import { registerUploadRoutes } from './upload-routes.ts';
import { registerVersionRoutes } from './version-routes.ts';
import { extensionDescription, SOLARDESK_EXTENSION_TAG } from '../http/extensions.ts';
import { documentFieldsOf } from './document-fields.ts';

const fileParams = z.object({ org_id: z.string(), id: idParam });
const tags = ['private files'];

const createFields = z.object({
  title: z.string().max(255, 'Ensure this field has no more than 255 characters.').optional(),
  project: z.string().optional(),
  show_customer: booleanField().optional(),
  file_tags: z.string().optional(),
  // A generated document's fields (service.md 2.2), so a document saved on a replica
  // keeps them on the remote (docs/documents.md "Offline"). None is required.
  ...documentFileFieldsSchema.shape,
});

/** The multipart text parts -> the new file's record, with every reference checked (one 400 for all problems). */
async function describeNewFile(context: EngineContext, actor: Actor, upload: MultipartFile): Promise<NewFileRecord> {
  const parsed = createFields.safeParse(upload.fields);
  if (!parsed.success) {
    throw validationError(drfFieldErrors(parsed.error.issues.map((issue) => ({ instancePath: `/${issue.path.join('/')}`, message: issue.message }))));
  }
  const fields = parsed.data;
  const fileName = cleanFileName(upload.fileName, 'file');
  const errors: FieldErrors = {};
  let projectId: number | null = null;
  if (fields.project) {
    const resolved = await resolveProjectReference(context.db, actor, fields.project);
    if ('error' in resolved) errors.project = [resolved.error];
    else projectId = resolved.id;
  }
  let tagIds: number[] = [];
  if (fields.file_tags) {
    const resolved = await resolveTagReferences(context.db, actor, fields.file_tags.split(',').map((tag) => tag.trim()).filter(Boolean));
    if ('error' in resolved) errors.file_tags = [resolved.error];
    else tagIds = resolved.ids;
  }
  const documentFields = documentFieldsOf(fields, errors);
  if (Object.keys(errors).length > 0) throw validationError(errors);
  return {
    ...documentFields,
    orgId: actor.org.id,
    userId: actor.user.id,
    projectId,
    title: fields.title?.trim() || fileName,
    fileName,
    mimeType: contentTypeFor(fileName, upload.received.head),
    tagIds,
    showCustomer: fields.show_customer ?? false,
  };
}

export function registerPrivateFileRoutes(app: TypedApp, context: EngineContext): void {
  // Its own scope, so multipart bodies are understood here and nowhere else.
  void app.register(async (plainScope) => {
    const scope = plainScope.withTypeProvider<ZodTypeProvider>();
    await scope.register(multipart, { throwFileSizeLimit: false });
    registerFileRoutes(scope, context);
    registerFileTagRoutes(scope, context);
    registerUploadRoutes(scope, context);
    registerVersionRoutes(scope, context);
  });
}

function registerFileRoutes(app: TypedApp, context: EngineContext): void {
  app.get(
    '/private_files/',
    {
      config: { throttle: 'private_file_list' },
      schema: { tags, summary: 'List private files', querystring: fileListQuery, response: { 200: z.array(privateFileJsonSchema) } },
    },
    async (request) => {
      const actor = actorOf(request);
      requireFilesUser(actor);
      const { query } = request;
      let projectId: number | undefined;
      if (query.project) {
        const id = projectFilterId(actor, query.project);
        if (id === 'invalid') throw fieldError('project', 'Select a valid project: an id, a project URL or /api/orgs/<org_id>/projects/<id>/.');
        if (id === null) return [];
        projectId = id;
      }
      const rows = await applyFileFilters(context.db.selectFrom('private_files').selectAll('private_files').where(fileVisibleTo(actor)), query, projectId)
        .limit(query.limit)
        .offset(pageOffset(query))
        .execute();
      const downloadUrl = downloadUrlsFor(context, actor);
      return (await withTags(context.db, rows)).map((file) => serializeFile(context, file, downloadUrl));
    },
  );

  app.post(
    '/private_files/',
    {
      config: { throttle: 'private_file_create' },
      preParsing: recogniseMultipartSentAsJson,
      schema: {
        tags,
        summary: 'Upload a private file (multipart/form-data)',
        consumes: ['multipart/form-data'],
        body: privateFileCreateFormSchema.nullish(),
        response: { 201: privateFileJsonSchema },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      requireFilesUser(actor);
      const upload = await receiveMultipartFile(request as FastifyRequest, context.store.fileRoot, context.files.maxUploadBytes, context.blobs);
      let id: number;
      try {
        id = await storeNewFile(context, upload.received, await describeNewFile(context, actor, upload));
      } finally {
        // Adopted bytes have moved into the blob store; anything still here is not wanted.
        await upload.discard();
      }
      return reply.code(201).send(await fileJson(context, actor, id));
    },
  );

  app.get(
    '/private_files/:id/',
    { config: { throttle: 'private_file_detail' }, schema: { tags, summary: 'Get a private file', params: fileParams, response: { 200: privateFileJsonSchema } } },
    async (request, reply) => {
      const actor = actorOf(request);
      const file = await getVisibleFile(context.db, actor, request.params.id);
      const json = await fileJson(context, actor, file.id);
      reply.header('etag', versionTag(json.modified_date));
      return json;
    },
  );

  app.patch(
    '/private_files/:id/',
    {
      config: { throttle: 'private_file_partial_update' },
      schema: {
        tags,
        summary: 'Change a private file',
        params: fileParams,
        body: privateFilePatchSchema,
        ...conditionalWriteSchema,
        response: { 200: privateFileJsonSchema },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const file = await getVisibleFile(context.db, actor, request.params.id);
      await updateFile(context, actor, file, request.body ?? {}, readIfMatch(request.headers['if-match']));
      const json = await fileJson(context, actor, file.id);
      reply.header('etag', versionTag(json.modified_date));
      return json;
    },
  );

  app.delete(
    '/private_files/:id/',
    { config: { throttle: 'private_file_delete' }, schema: { tags, summary: 'Delete a private file', params: fileParams } },
    async (request, reply) => {
      const actor = actorOf(request);
      const file = await getVisibleFile(context.db, actor, request.params.id);
      await deleteFile(context, file, byUser(actor.user.id));
      return reply.code(204).send();
    },
  );
}

function registerFileTagRoutes(app: TypedApp, context: EngineContext): void {
  const tagTags = ['file tags'];
  app.get(
    '/file_tags/',
    {
      config: { throttle: 'default' },
      schema: {
        tags: tagTags,
        summary: "The tags this org's files may carry: the shared catalogue (ids under 1001), then the org's own tags",
        querystring: z.object(pagingQuery),
        response: { 200: z.array(fileTagJsonSchema) },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      requireFilesUser(actor);
      const { page, limit } = request.query;
      const rows = await tagsOfOrg(context.db, actor.org.id)
        .orderBy('id')
        .limit(limit)
        .offset(pageOffset({ page, limit }))
        .execute();
      return rows.map((tag) => serializeFileTag(context, tag));
    },
  );

  app.post(
    '/file_tags/',
    {
      config: { throttle: 'default' },
      schema: {
        tags: [...tagTags, SOLARDESK_EXTENSION_TAG],
        summary: "Make a tag of this org's own, beside the catalogue",
        description: extensionDescription('The hosted service has only the shared catalogue. The new tag gets an id from 1001 up and a URL of the same form, /api/file_tags/<id>/.'),
        body: fileTagCreateSchema,
        response: { 201: fileTagJsonSchema },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      requireFilesUser(actor);
      return reply.code(201).send(serializeFileTag(context, await createFileTag(context, actor, request.body)));
    },
  );
}

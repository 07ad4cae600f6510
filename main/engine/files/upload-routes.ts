// Chunked, resumable uploads (issue 3, "Chunked, resumable uploads"):
//   POST .../private_files/uploads/                          start: {title, filename, project?, size?}
//   PUT  .../private_files/uploads/<upload_id>/parts/<n>/    raw bytes of part n (1-based), idempotent
//   GET  .../private_files/uploads/<upload_id>/              which parts arrived
//   POST .../private_files/uploads/<upload_id>/complete/     assemble -> 201 private file
//   DELETE .../private_files/uploads/<upload_id>/            cancel: parts and session removed (SolarDesk extension)
import { Readable } from 'node:stream';
import { z } from 'zod';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { TypedApp } from '../http/app.ts';
import type { EngineContext } from '../context.ts';
import { actorOf } from '../auth/actor.ts';
import { privateFileJsonSchema, uploadCreateSchema, uploadJsonSchema, uploadPartJsonSchema } from '../../../shared/schemas/private-file.ts';
import { requireFilesUser } from './file-access.ts';
import { fileJson } from './file-serializer.ts';
import { extensionDescription, SOLARDESK_EXTENSION_TAG } from '../http/extensions.ts';
import { asCutOffUpload, refuseDeclaredOversize } from './multipart-receive.ts';
import { alreadyCompleted, cancelUpload, completeUpload, createUpload, getOwnUpload, MAX_PART_NUMBER, receivePart, uploadJson } from './uploads.ts';

const tags = ['private files'];
const uploadParams = z.object({ org_id: z.string(), upload_id: z.string().regex(/^[0-9a-f]{32}$/) });
const partParams = uploadParams.extend({
  part: z
    .string()
    .regex(/^\d{1,5}$/)
    .transform(Number)
    .refine((part) => part >= 1 && part <= MAX_PART_NUMBER),
});

export function registerUploadRoutes(app: TypedApp, context: EngineContext): void {
  app.post(
    '/private_files/uploads/',
    {
      config: { throttle: 'private_file_upload' },
      schema: { tags, summary: 'Start a chunked, resumable upload', body: uploadCreateSchema, response: { 201: uploadJsonSchema } },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      requireFilesUser(actor);
      const upload = await createUpload(context, actor, request.body);
      return reply.code(201).send(await uploadJson(context, upload));
    },
  );

  app.get(
    '/private_files/uploads/:upload_id/',
    {
      config: { throttle: 'private_file_upload' },
      schema: { tags, summary: 'Show which parts of an upload arrived', params: uploadParams, response: { 200: uploadJsonSchema } },
    },
    async (request) => {
      const actor = actorOf(request);
      requireFilesUser(actor);
      return uploadJson(context, await getOwnUpload(context, actor, request.params.upload_id));
    },
  );

  app.delete(
    '/private_files/uploads/:upload_id/',
    {
      config: { throttle: 'private_file_upload' },
      schema: {
        tags: [...tags, SOLARDESK_EXTENSION_TAG],
        summary: 'Cancel an open upload',
        description: extensionDescription('Removes the parts at once and the upload can no longer be completed; 409 once it is completed (its file exists: delete the file).'),
        params: uploadParams,
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      requireFilesUser(actor);
      await cancelUpload(context, await getOwnUpload(context, actor, request.params.upload_id));
      return reply.code(204).send();
    },
  );

  app.post(
    '/private_files/uploads/:upload_id/complete/',
    {
      config: { throttle: 'private_file_create' },
      schema: {
        tags,
        summary: 'Assemble the parts into a private file (201; 200 when already completed)',
        params: uploadParams,
        response: { 200: privateFileJsonSchema, 201: privateFileJsonSchema },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      requireFilesUser(actor);
      const upload = await getOwnUpload(context, actor, request.params.upload_id);
      const { fileId, created } = await completeUpload(context, actor, upload);
      return reply.code(created ? 201 : 200).send(await fileJson(context, actor, fileId));
    },
  );

  // Part bodies are raw bytes of any content type, streamed to disk as they come:
  // this scope reads every body as a stream and parses none.
  void app.register(async (plainScope) => {
    const scope = plainScope.withTypeProvider<ZodTypeProvider>();
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    scope.put(
      '/private_files/uploads/:upload_id/parts/:part/',
      {
        config: { throttle: 'private_file_upload' },
        schema: {
          tags,
          summary: 'Send part n (1-based) of an upload as raw bytes; sending it again replaces it',
          consumes: ['application/octet-stream'],
          params: partParams,
          response: { 200: uploadPartJsonSchema },
        },
      },
      async (request) => {
        const actor = actorOf(request);
        requireFilesUser(actor);
        const upload = await getOwnUpload(context, actor, request.params.upload_id);
        if (upload.completed_file_id !== null) throw alreadyCompleted();
        refuseDeclaredOversize(request, context.files.maxUploadBytes);
        const body = request.body instanceof Readable ? request.body : Readable.from([]);
        try {
          return await receivePart(context, upload, request.params.part, body);
        } catch (error) {
          throw asCutOffUpload(request, error);
        }
      },
    );
  });
}

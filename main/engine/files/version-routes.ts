// SolarDesk's contents and versions extension of the private files API (issue 14,
// docs/files.md "Versions"; not the hosted service's, and marked so in OpenAPI):
//   PUT  .../private_files/<id>/contents/                      new contents, same id
//   GET  .../private_files/<id>/versions/                      earlier contents kept here, newest first
//   GET  .../private_files/<id>/versions/<version>/contents/   one version's bytes
//   POST .../private_files/<id>/versions/<version>/restore/    that version becomes the contents again
// Access is that of PATCH on the file (file-access.ts); every route counts in the
// private files quota.
import { z } from 'zod';
import type { FastifyRequest } from 'fastify';
import type { TypedApp } from '../http/app.ts';
import { absoluteUrl, type EngineContext } from '../context.ts';
import { actorOf } from '../auth/actor.ts';
import { notFound } from '../http/errors.ts';
import { idParam } from '../http/list-query.ts';
import { extensionDescription, SOLARDESK_EXTENSION_TAG } from '../http/extensions.ts';
import { ifMatchHeaders, PRECONDITION_DESCRIPTION, readIfMatch, versionTag } from '../http/preconditions.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import {
  privateFileContentsFormSchema,
  privateFileJsonSchema,
  privateFileVersionJsonSchema,
  type PrivateFileVersionJson,
} from '../../../shared/schemas/private-file.ts';
import type { PrivateFileRow, PrivateFileVersionRow } from '../store/tables.ts';
import { byUser } from '../changes/change-feed.ts';
import { discardTempFile } from './blob-store.ts';
import { sendBlob } from './blob-response.ts';
import { getVisibleFile } from './file-access.ts';
import { fileJson } from './file-serializer.ts';
import { replaceFileContents } from './file-service.ts';
import { cleanFileName } from './file-types.ts';
import { getFileVersion, listFileVersions } from './file-versions.ts';
import { receiveMultipartFile, recogniseMultipartSentAsJson } from './multipart-receive.ts';

const tags = ['private files', SOLARDESK_EXTENSION_TAG];
const fileParams = z.object({ org_id: z.string(), id: idParam });
const versionParams = z.object({ org_id: z.string(), id: idParam, version_id: idParam });

/** A replica's version whose bytes only the remote has: fetched first (docs/sync.md "Files on demand"). A server has no such versions. */
async function fetchVersionIfMissing(context: EngineContext, file: PrivateFileRow, version: PrivateFileVersionRow): Promise<void> {
  if (!context.fetchMissingVersionBlob || (await context.blobs.size(version.file_hash)) !== null) return;
  await context.fetchMissingVersionBlob(file, version);
}

const RETENTION = 'Versions are kept on this computer only (they are not synced): the 10 newest of each file, and every one younger than 30 days.';

async function serializeVersions(context: EngineContext, rows: readonly PrivateFileVersionRow[]): Promise<PrivateFileVersionJson[]> {
  const userIds = [...new Set(rows.map((row) => row.replaced_by_user_id).filter((id): id is number => id !== null))];
  const users =
    userIds.length === 0 ? [] : await context.db.selectFrom('users').select(['id', 'email', 'first_name', 'family_name']).where('id', 'in', userIds).execute();
  const nameOf = new Map(users.map((user) => [user.id, `${user.first_name} ${user.family_name}`.trim() || user.email]));
  return rows.map((row) => ({
    id: row.id,
    file: absoluteUrl(context, apiPaths.privateFile(row.org_id, row.file_id)),
    file_id: row.file_id,
    file_name: row.file_name,
    content_type: row.mime_type,
    filesize: row.filesize,
    file_hash: row.file_hash,
    replaced_at: row.replaced_at,
    replaced_by: row.replaced_by_user_id === null ? null : absoluteUrl(context, apiPaths.user(row.replaced_by_user_id)),
    replaced_by_name: row.replaced_by_user_id === null ? null : (nameOf.get(row.replaced_by_user_id) ?? null),
    contents: absoluteUrl(context, apiPaths.privateFileVersionContents(row.org_id, row.file_id, row.id)),
    restore: absoluteUrl(context, apiPaths.privateFileVersionRestore(row.org_id, row.file_id, row.id)),
  }));
}

export function registerVersionRoutes(app: TypedApp, context: EngineContext): void {
  app.put(
    '/private_files/:id/contents/',
    {
      config: { throttle: 'private_file_contents_update' },
      preParsing: recogniseMultipartSentAsJson,
      schema: {
        tags,
        summary: 'Replace the contents of a private file, which keeps its id (multipart/form-data)',
        description: extensionDescription(
          'The file part `file_contents` becomes the file\'s contents; its size, hash, content type (and file name, when the part names one) follow. ' +
            `The contents it replaces become a version (GET .../versions/). ${RETENTION} Sending the current contents again changes nothing. ` +
            PRECONDITION_DESCRIPTION,
        ),
        consumes: ['multipart/form-data'],
        params: fileParams,
        headers: ifMatchHeaders,
        body: privateFileContentsFormSchema.nullish(),
        response: { 200: privateFileJsonSchema },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const file = await getVisibleFile(context.db, actor, request.params.id);
      const upload = await receiveMultipartFile(request as FastifyRequest, context.store.fileRoot, context.files.maxUploadBytes, context.blobs);
      try {
        await replaceFileContents(context, {
          orgId: file.org_id,
          fileId: file.id,
          received: upload.received,
          by: byUser(actor.user.id),
          fileName: upload.fileName === '' ? undefined : cleanFileName(upload.fileName, file.file_name),
          ifMatch: readIfMatch(request.headers['if-match']),
        });
      } finally {
        // Adopted bytes have moved into the blob store; anything still here is not wanted.
        await upload.discard();
      }
      const json = await fileJson(context, actor, file.id);
      reply.header('etag', versionTag(json.modified_date));
      return json;
    },
  );

  app.get(
    '/private_files/:id/versions/',
    {
      config: { throttle: 'private_file_versions' },
      schema: {
        tags,
        summary: "A private file's earlier contents, kept on this computer, newest first",
        description: extensionDescription(RETENTION),
        params: fileParams,
        response: { 200: z.array(privateFileVersionJsonSchema) },
      },
    },
    async (request) => {
      const file = await getVisibleFile(context.db, actorOf(request), request.params.id);
      return serializeVersions(context, await listFileVersions(context.db, file.id));
    },
  );

  app.get(
    '/private_files/:id/versions/:version_id/contents/',
    {
      config: { throttle: 'private_file_versions' },
      schema: {
        tags,
        summary: 'Download one earlier version of a private file; supports Range',
        description: extensionDescription('Needs the Authorization header (versions have no signed links). Named and typed as the file was then.'),
        params: versionParams,
      },
    },
    async (request, reply) => {
      const file = await getVisibleFile(context.db, actorOf(request), request.params.id);
      const version = await getFileVersion(context.db, file.id, request.params.version_id);
      if (!version) throw notFound('No such version of this file: it may have aged out (docs/files.md "Versions").');
      await fetchVersionIfMissing(context, file, version);
      return sendBlob(context, request, reply, {
        file_hash: version.file_hash,
        mime_type: version.mime_type,
        file_name: version.file_name,
        modified_date: version.replaced_at,
        logId: { fileId: file.id, versionId: version.id },
      });
    },
  );

  app.post(
    '/private_files/:id/versions/:version_id/restore/',
    {
      config: { throttle: 'private_file_contents_update' },
      schema: {
        tags,
        summary: 'Make an earlier version the contents of a private file again',
        description: extensionDescription(
          'The version\'s bytes, name and type become the file\'s (same id, like PUT .../contents/); the contents they replace become a version in turn, ' +
            `so a restore can itself be undone. ${PRECONDITION_DESCRIPTION}`,
        ),
        params: versionParams,
        headers: ifMatchHeaders,
        response: { 200: privateFileJsonSchema },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const file = await getVisibleFile(context.db, actor, request.params.id);
      const version = await getFileVersion(context.db, file.id, request.params.version_id);
      if (!version) throw notFound('No such version of this file: it may have aged out (docs/files.md "Versions").');
      await fetchVersionIfMissing(context, file, version);
      const received = await context.blobs.receiveStored(version.file_hash, version.filesize);
      if (!received) throw notFound('The contents of this version are missing on this server.');
      try {
        await replaceFileContents(context, {
          orgId: file.org_id,
          fileId: file.id,
          received,
          by: byUser(actor.user.id),
          fileName: version.file_name,
          contentType: version.mime_type,
          ifMatch: readIfMatch(request.headers['if-match']),
        });
      } finally {
        await discardTempFile(received.tempPath);
      }
      const json = await fileJson(context, actor, file.id);
      reply.header('etag', versionTag(json.modified_date));
      return json;
    },
  );
}

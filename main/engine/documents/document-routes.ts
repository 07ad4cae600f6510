// POST /api/orgs/<org>/projects/<id>/generate_document/<type>/ and the legacy
// generate_document_pdf/<type>/ (issue 29; hosted docs "Generating Project Files";
// docs/documents.md). Without action=save the answer is the document's bytes; with
// it, a private file of the project that records what it was made from, and the
// same inputs again answer the file already made.
//
// In order: 401 without a token, 400 for a malformed query, 404/403 for a project
// the caller cannot see (as every project route), then 400 for an unknown type,
// system or payment option or a project with no system; saving needs a Pro user
// (private files are theirs, 403). Counted in the generate_document quota.
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import type { TypedApp } from '../http/app.ts';
import type { EngineContext } from '../context.ts';
import { actorOf } from '../auth/actor.ts';
import { fieldError, forbidden } from '../http/errors.ts';
import { isFilesUser } from '../files/file-access.ts';
import { idParam } from '../http/list-query.ts';
import { getVisibleProject } from '../projects/project-service.ts';
import { DOCUMENT_CONTENT_TYPES, DOCUMENT_TYPE_NAMES, generateDocumentQuerySchema, isDocumentType } from '../../../shared/documents.ts';
import { documentFileName, documentInputs, type DocumentInputs } from './document-inputs.ts';
import { renderDocument, saveDocument } from './document-files.ts';

const tags = ['documents'];
const params = z.object({ org_id: z.string(), id: idParam, document_type: z.string().max(100) });

export function registerDocumentRoutes(app: TypedApp, context: EngineContext): void {
  for (const [segment, legacy] of [['generate_document', false], ['generate_document_pdf', true]] as const) {
    app.post(
      `/projects/:id/${segment}/:document_type/`,
      {
        config: { throttle: 'generate_document' },
        schema: {
          tags,
          summary: legacy
            ? 'The legacy spelling of generate_document/<type>/, answered the same'
            : "Makes a document of the project from its design: the bytes, or with action=save a private file of the project (the same inputs answer the file already made)",
          description: `Types: ${DOCUMENT_TYPE_NAMES.join(', ')}. Made on this computer, with no network (docs/documents.md).`,
          params,
          querystring: generateDocumentQuerySchema,
        },
      },
      async (request, reply) => {
        const actor = actorOf(request);
        const project = await getVisibleProject(context, actor, request.params.id);
        const type = request.params.document_type;
        if (!isDocumentType(type)) {
          throw fieldError('document_type', `There is no document type "${type}". Send one of: ${DOCUMENT_TYPE_NAMES.join(', ')}.`);
        }
        const inputs = await documentInputs(context, actor.org, project, type, request.query);
        if (request.query.action === 'save') {
          if (!isFilesUser(actor.role)) {
            throw forbidden('Saving a document makes a private file, and private files are only for Pro users of this organisation. Leave action=save out to download the document instead.');
          }
          const saved = await saveDocument(context, actor, inputs, request.query);
          return (reply as FastifyReply).code(saved.created ? 201 : 200).send(saved.json);
        }
        return sendDocument(reply as FastifyReply, inputs, await renderDocument(context, inputs));
      },
    );
  }
}

function sendDocument(reply: FastifyReply, inputs: DocumentInputs, bytes: Buffer): FastifyReply {
  return reply
    .type(DOCUMENT_CONTENT_TYPES[inputs.format])
    .header('content-disposition', `attachment; filename="${documentFileName(inputs)}"`)
    .header('cache-control', 'no-store')
    .send(bytes);
}

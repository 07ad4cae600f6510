// /api/orgs/<org>/document_templates/ (issue 29, item 5; a SolarDesk extension,
// docs/documents.md "Templates"): every member of the org reads them, admins write.
// One per document type; generate_document's document_template_id picks one, and
// without it the org's template of the type is used when there is one.
import type { FastifyReply } from 'fastify';
import type { Readable } from 'node:stream';
import { z } from 'zod';
import type { TypedApp } from '../http/app.ts';
import { absoluteUrl, type EngineContext } from '../context.ts';
import { actorOf, type Actor } from '../auth/actor.ts';
import { fieldError, forbidden, notFound } from '../http/errors.ts';
import { idParam } from '../http/list-query.ts';
import { extensionDescription } from '../http/extensions.ts';
import { nowIso } from '../clock.ts';
import type { DocumentTemplateRow } from '../store/tables.ts';
import { apiPaths, parseOrgReference } from '../../../shared/api-paths.ts';
import type { DocumentType } from '../../../shared/documents.ts';
import {
  DEFAULT_TEMPLATE_COLOURS,
  documentTemplateJsonSchema,
  documentTemplatePatchSchema,
  documentTemplateWriteSchema,
  type DocumentTemplateJson,
  type DocumentTemplatePatch,
} from '../../../shared/schemas/document-template.ts';

const tags = ['documents'];
const LOGO_TYPES = new Set(['image/png', 'image/jpeg']);
/** A logo larger than this is not embedded (a PDF of a proposal should stay small). */
const MAX_LOGO_BYTES = 2 * 1024 * 1024;

export function serializeTemplate(context: EngineContext, row: DocumentTemplateRow): DocumentTemplateJson {
  return {
    id: row.id,
    url: absoluteUrl(context, apiPaths.documentTemplate(row.org_id, row.id)),
    org: absoluteUrl(context, apiPaths.org(row.org_id)),
    document_type: row.document_type,
    title: row.title,
    org_display_name: row.org_display_name,
    logo: row.logo_file_id === null ? null : absoluteUrl(context, apiPaths.privateFile(row.org_id, row.logo_file_id)),
    primary_colour: row.primary_colour,
    accent_colour: row.accent_colour,
    intro_text: row.intro_text,
    terms_text: row.terms_text,
    created_date: row.created_date,
    modified_date: row.modified_date,
  };
}

function requireAdmin(actor: Actor): void {
  if (actor.role.is_admin !== 1) throw forbidden("Only an admin of the organisation may change its document templates. Ask an admin.");
}

async function findTemplate(context: EngineContext, orgId: number, id: number): Promise<DocumentTemplateRow> {
  const row = await context.db.selectFrom('document_templates').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('No document template with this id.');
  return row;
}

/** A logo reference -> an image private file of the org (its id), null for none, or a 400. */
async function logoFileId(context: EngineContext, orgId: number, reference: unknown): Promise<number | null> {
  if (reference === null || reference === '') return null;
  const parsed = parseOrgReference(reference, 'private_files');
  if (!parsed || (parsed.orgId !== null && parsed.orgId !== orgId)) throw fieldError('logo', 'Send logo as the URL or id of a PNG or JPEG private file of this organisation, or null.');
  const file = await context.db.selectFrom('private_files').select(['id', 'mime_type']).where('org_id', '=', orgId).where('id', '=', parsed.id).executeTakeFirst();
  if (!file) throw fieldError('logo', `No private file ${parsed.id} in this organisation. Upload the logo as a private file first.`);
  if (!LOGO_TYPES.has(file.mime_type)) throw fieldError('logo', `The logo must be a PNG or JPEG image; file ${file.id} is ${file.mime_type}.`);
  return file.id;
}

/** The template a document of `type` is made with: the one asked for (400 if not the org's or not of the type), else the org's of the type, else none. */
export async function templateFor(context: EngineContext, orgId: number, type: DocumentType, id: number | undefined): Promise<DocumentTemplateRow | null> {
  if (id === undefined) {
    return (await context.db.selectFrom('document_templates').selectAll().where('org_id', '=', orgId).where('document_type', '=', type).executeTakeFirst()) ?? null;
  }
  const row = await context.db.selectFrom('document_templates').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
  if (!row) throw fieldError('document_template_id', `No document template has the id ${id} in this organisation. Leave document_template_id out to use the standard layout, or send one from ${apiPaths.documentTemplates(orgId)}.`);
  if (row.document_type !== type) throw fieldError('document_template_id', `Template ${id} is for ${row.document_type} documents, not ${type}. Send a ${type} template's id.`);
  return row;
}

/** The template's logo bytes, or null when it has none or its contents are not on this computer (the document prints without it). */
export async function templateLogo(context: EngineContext, template: DocumentTemplateRow | null): Promise<Buffer | null> {
  if (!template?.logo_file_id) return null;
  const file = await context.db.selectFrom('private_files').select(['file_hash', 'filesize']).where('id', '=', template.logo_file_id).executeTakeFirst();
  if (!file?.file_hash || (file.filesize ?? 0) > MAX_LOGO_BYTES) return null;
  try {
    const chunks: Buffer[] = [];
    for await (const chunk of (await context.blobs.read(file.file_hash)) as Readable) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  } catch {
    return null;
  }
}

export function registerDocumentTemplateRoutes(app: TypedApp, context: EngineContext): void {
  const describe = (text: string) => extensionDescription(text);
  app.get(
    '/document_templates/',
    { schema: { tags, summary: "The org's document templates, one per document type", description: describe('Every member of the organisation reads them.'), response: { 200: z.array(documentTemplateJsonSchema) } } },
    async (request) => {
      const actor = actorOf(request);
      const rows = await context.db.selectFrom('document_templates').selectAll().where('org_id', '=', actor.org.id).orderBy('id').execute();
      return rows.map((row) => serializeTemplate(context, row));
    },
  );

  app.post(
    '/document_templates/',
    { schema: { tags, summary: 'Make a document template (admins)', description: describe('One per document type: a second for the same type is a 400.'), body: documentTemplateWriteSchema, response: { 201: documentTemplateJsonSchema } } },
    async (request, reply) => {
      const actor = actorOf(request);
      requireAdmin(actor);
      const body = request.body;
      const existing = await context.db.selectFrom('document_templates').select('id').where('org_id', '=', actor.org.id).where('document_type', '=', body.document_type).executeTakeFirst();
      if (existing) throw fieldError('document_type', `This organisation already has a ${body.document_type} template (id ${existing.id}). Change that one instead.`);
      const now = nowIso(context.clock);
      const row = await context.db
        .insertInto('document_templates')
        .values({
          org_id: actor.org.id,
          document_type: body.document_type,
          title: body.title,
          org_display_name: body.org_display_name ?? '',
          logo_file_id: body.logo === undefined ? null : await logoFileId(context, actor.org.id, body.logo),
          primary_colour: body.primary_colour ?? DEFAULT_TEMPLATE_COLOURS.primary,
          accent_colour: body.accent_colour ?? DEFAULT_TEMPLATE_COLOURS.accent,
          intro_text: body.intro_text ?? '',
          terms_text: body.terms_text ?? '',
          created_date: now,
          modified_date: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return (reply as FastifyReply).code(201).send(serializeTemplate(context, row));
    },
  );

  const params = z.object({ org_id: z.string(), id: idParam });
  app.get(
    '/document_templates/:id/',
    { schema: { tags, summary: 'One document template', description: describe('Every member of the organisation reads it.'), params, response: { 200: documentTemplateJsonSchema } } },
    async (request) => serializeTemplate(context, await findTemplate(context, actorOf(request).org.id, request.params.id)),
  );

  app.patch(
    '/document_templates/:id/',
    { schema: { tags, summary: 'Change a document template (admins)', description: describe('Documents saved before keep the inputs they were made from; the Files tab can tell them apart.'), params, body: documentTemplatePatchSchema, response: { 200: documentTemplateJsonSchema } } },
    async (request) => {
      const actor = actorOf(request);
      requireAdmin(actor);
      const row = await findTemplate(context, actor.org.id, request.params.id);
      const patch: DocumentTemplatePatch = request.body;
      const { logo, ...fields } = patch;
      const updated = await context.db
        .updateTable('document_templates')
        .set({
          ...Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)),
          ...(logo === undefined ? {} : { logo_file_id: await logoFileId(context, actor.org.id, logo) }),
          modified_date: nowIso(context.clock),
        })
        .where('id', '=', row.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return serializeTemplate(context, updated);
    },
  );

  app.delete(
    '/document_templates/:id/',
    { schema: { tags, summary: 'Delete a document template (admins)', description: describe('Documents of its type are then made with the standard layout.'), params } },
    async (request, reply) => {
      const actor = actorOf(request);
      requireAdmin(actor);
      const row = await findTemplate(context, actor.org.id, request.params.id);
      await context.db.deleteFrom('document_templates').where('id', '=', row.id).execute();
      return (reply as FastifyReply).code(204).send();
    },
  );
}

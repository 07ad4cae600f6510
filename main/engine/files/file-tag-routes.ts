// /api/file_tags/ and /api/file_tags/<id>/ (hosted-docs-facts.md section 8): the tag
// catalogue every org shares. Public, like /api/roof_types/: the catalogue holds no
// org's data. An org's own tag (SolarDesk's extension, POST /api/orgs/<org>/file_tags/)
// has a URL of the same form; it answers only a member of that org, and 404 to
// anyone else, so other orgs' tag titles never leak. Both count per client address,
// as every route outside the org scope does (routes.ts).
import { z } from 'zod';
import type { TypedApp } from '../http/app.ts';
import type { EngineContext } from '../context.ts';
import { authenticate } from '../auth/actor.ts';
import { findMemberRole } from '../orgs/org-service.ts';
import { notFound } from '../http/errors.ts';
import { idParam, pageOffset, pagingQuery } from '../http/list-query.ts';
import { fileTagJsonSchema } from '../../../shared/schemas/private-file.ts';
import { serializeFileTag } from './file-serializer.ts';

const tags = ['file tags'];

export function registerFileTagCatalogueRoutes(app: TypedApp, context: EngineContext): void {
  app.get(
    '/api/file_tags/',
    {
      schema: { tags, security: [], summary: 'The file tag catalogue every org shares', querystring: z.object(pagingQuery), response: { 200: z.array(fileTagJsonSchema) } },
    },
    async (request) => {
      const rows = await context.db
        .selectFrom('file_tags')
        .selectAll()
        .where('org_id', 'is', null)
        .orderBy('id')
        .limit(request.query.limit)
        .offset(pageOffset(request.query))
        .execute();
      return rows.map((tag) => serializeFileTag(context, tag));
    },
  );

  app.get(
    '/api/file_tags/:id/',
    {
      schema: {
        tags,
        security: [],
        summary: "One file tag: a catalogue tag (public), or an org's own tag (its members only)",
        params: z.object({ id: idParam }),
        response: { 200: fileTagJsonSchema },
      },
    },
    async (request) => {
      const tag = await context.db.selectFrom('file_tags').selectAll().where('id', '=', request.params.id).executeTakeFirst();
      if (!tag) throw notFound();
      if (tag.org_id !== null) {
        const user = await authenticate(context, request).catch(() => null);
        if (!user || !(await findMemberRole(context.db, tag.org_id, user.id))) throw notFound();
      }
      return serializeFileTag(context, tag);
    },
  );
}

// Every route of the engine, in one place: the public ones, then the org scope,
// whose hook resolves the caller (token, membership, plan) before anything else.
import { z } from 'zod';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { TypedApp } from './http/app.ts';
import type { EngineContext } from './context.ts';
import { resolveActor } from './auth/actor.ts';
import { registerAuthRoutes } from './auth/auth-routes.ts';
import { registerOrgRoutes } from './orgs/org-routes.ts';
import { registerProjectRoutes } from './projects/project-routes.ts';
import { registerContactRoutes } from './contacts/contact-routes.ts';
import { registerRoleRoutes } from './roles/role-routes.ts';
import { registerPrivateFileRoutes } from './files/file-routes.ts';
import { registerDownloadRoutes } from './files/download-route.ts';
import { registerSystemRoutes } from './systems/system-routes.ts';
import { registerDocumentRoutes } from './documents/document-routes.ts';
import { registerDocumentTemplateRoutes } from './documents/document-templates.ts';
import { registerDocumentFreshnessRoutes } from './documents/document-freshness.ts';
import { registerConnectedOrgRoutes } from './connected-orgs/connected-org-routes.ts';
import { registerPermissionsRoleRoutes } from './sharing/permissions-role-routes.ts';
import { registerBulkShareRoutes } from './sharing/bulk-share-routes.ts';
import { notFound } from './http/errors.ts';
import { registerEventRoutes } from './events/event-routes.ts';
import { registerCalendarFeedRoute, registerCalendarFeedSettingsRoutes } from './events/calendar-feed-routes.ts';
import { registerWebhookRoutes } from './webhooks/webhook-routes.ts';
import { registerWorkflowRoutes } from './workflows/workflow-routes.ts';
import { enforceThrottle, throttleActionOf } from './throttle/throttle-hook.ts';
import { ROOF_TYPES, type RoofType, findRoofType } from '../../shared/roof-types.ts';
import { registerFileTagCatalogueRoutes } from './files/file-tag-routes.ts';
import { absoluteUrl } from './context.ts';
import { apiPaths } from '../../shared/api-paths.ts';
import { countryNumericCode, parseCountryReference } from '../../shared/countries.ts';
import { registerShareRoutes } from './projects/share-link.ts';
import { registerProposalDataRoutes } from './proposals/proposal-data-routes.ts';
import { registerChangeRoutes } from './changes/change-routes.ts';
import { answerConditionalGets } from './http/conditional-get.ts';

const ORG_SCOPE_PREFIX = '/api/orgs/:org_id';

export async function registerRoutes(
  app: TypedApp,
  context: EngineContext,
  extraOrgRoutes?: (scope: TypedApp, context: EngineContext) => void,
  features: { changeFeed: boolean } = { changeFeed: false },
): Promise<void> {
  // Routes outside the org scope have no org, and most no user: they count per client address.
  app.addHook('onRequest', async (request, reply) => {
    const route = request.routeOptions.url;
    if (route === undefined || route.startsWith(ORG_SCOPE_PREFIX)) return;
    const action = throttleActionOf(request, 'anonymous');
    if (action !== 'none') await enforceThrottle(context.throttle, reply, action, { user: `ip:${request.ip}`, org: null });
  });
  registerAuthRoutes(app, context);
  registerReferenceRoutes(app, context);
  registerFileTagCatalogueRoutes(app, context);
  registerDownloadRoutes(app, context);
  registerShareRoutes(app, context);
  registerProposalDataRoutes(app, context);
  registerCalendarFeedRoute(app, context);

  await app.register(
    async (scope) => {
      scope.addHook('onRequest', async (request, reply) => {
        const actor = await resolveActor(context, request, (request.params as { org_id?: unknown }).org_id);
        request.actor = actor;
        const action = throttleActionOf(request, 'default');
        if (action !== 'none') await enforceThrottle(context.throttle, reply, action, { user: String(actor.user.id), org: actor.org.id });
      });
      // ETags and 304s (not counted) on the lists and details clients poll (http/conditional-get.ts).
      answerConditionalGets(scope, context, ORG_SCOPE_PREFIX);
      const orgScope = scope.withTypeProvider<ZodTypeProvider>();
      registerOrgRoutes(orgScope, context);
      registerWorkflowRoutes(orgScope, context);
      registerProjectRoutes(orgScope, context);
      registerContactRoutes(orgScope, context);
      registerRoleRoutes(orgScope, context);
      registerPrivateFileRoutes(orgScope, context);
      registerSystemRoutes(orgScope, context);
      registerDocumentRoutes(orgScope, context);
      registerDocumentTemplateRoutes(orgScope, context);
      registerDocumentFreshnessRoutes(orgScope, context);
      registerConnectedOrgRoutes(orgScope, context);
      registerPermissionsRoleRoutes(orgScope, context);
      registerBulkShareRoutes(orgScope, context);
      registerEventRoutes(orgScope, context);
      registerCalendarFeedSettingsRoutes(orgScope, context);
      registerWebhookRoutes(orgScope, context);
      if (features.changeFeed) registerChangeRoutes(orgScope, context);
      extraOrgRoutes?.(orgScope, context);
    },
    { prefix: ORG_SCOPE_PREFIX },
  );
}

/** Lookup tables that project fields refer to by URL. Public: they hold no org data. */
function registerReferenceRoutes(app: TypedApp, context: EngineContext): void {
  // The hosted catalogue, ids 6 to 24 (hosted-docs-facts.md section 2).
  const roofTypeJson = (roofType: RoofType) => ({ id: roofType.id, title: roofType.title, url: absoluteUrl(context, apiPaths.roofType(roofType.id)) });
  const roofTypeJsonSchema = z.object({ id: z.number().int(), title: z.string(), url: z.string() });
  app.get(
    '/api/roof_types/',
    { schema: { tags: ['reference'], security: [], summary: 'The roof types a project may name', response: { 200: z.array(roofTypeJsonSchema) } } },
    async () => ROOF_TYPES.map(roofTypeJson),
  );
  app.get(
    '/api/roof_types/:id/',
    {
      schema: {
        tags: ['reference'],
        security: [],
        summary: 'One roof type',
        params: z.object({ id: z.string().regex(/^\d{1,9}$/).transform(Number) }),
        response: { 200: roofTypeJsonSchema },
      },
    },
    async (request) => {
      const roofType = findRoofType(request.params.id);
      if (!roofType) throw notFound();
      return roofTypeJson(roofType);
    },
  );
  const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });
  // By ISO 3166 numeric code, as the hosted service names a project's country (/api/countries/36/),
  // or by ISO2 as ours did (/api/countries/AU/): facts section 15. `url` is the numeric one where there is one.
  app.get(
    '/api/countries/:country/',
    {
      schema: {
        tags: ['reference'],
        security: [],
        summary: 'A country, by its ISO 3166 numeric code (36) or its ISO2 code (AU)',
        params: z.object({ country: z.string().regex(/^(?:[A-Za-z]{2}|\d{1,3})$/) }),
      },
    },
    async (request) => {
      // The same reading a project's `country` gets, so the route knows exactly the countries a project can name.
      const iso2 = parseCountryReference(request.params.country);
      if (iso2 === null) throw notFound('No country has this ISO 3166 code. Send its numeric code (36) or its two letters (AU).');
      const numeric = countryNumericCode(iso2) ?? null;
      return { id: numeric, iso2, name: regionNames.of(iso2) ?? iso2, url: absoluteUrl(context, apiPaths.country(numeric ?? iso2)) };
    },
  );
}

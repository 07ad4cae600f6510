// GET /api/user_logins/?project_ids=<id>[,<id>...] (facts section 12, hosted docs:
// Proposal Data): the proposal data of projects, grouped by their orgs. Outside the
// org scope: the caller is the token's user, and each project brings its own org.
//
// In order: no valid token 401; a malformed query 400; a project that does not exist
// 400 (naming it); a project the caller cannot reach 403 (they must reach every one,
// as a Pro member of its org who may see it, docs/access.md, or as a customer contact
// on it, contacts/contact-logins.ts); a project whose org has no plan in force 403 (as
// every org route); one whose org has a plan other than Raw Data API Access 402; then
// the throttle (100/min per user, 10,000/day per org: the org of the first project
// named); then the answer.
import type { FastifyRequest } from 'fastify';
import type { TypedApp } from '../http/app.ts';
import { absoluteUrl, type EngineContext } from '../context.ts';
import type { OrgRow, ProjectRow, UserRow } from '../store/tables.ts';
import { ApiError, fieldError, forbidden } from '../http/errors.ts';
import { authenticate, canSeeAllProjects } from '../auth/actor.ts';
import { planAccess, findMemberRole, orgCountry } from '../orgs/org-service.ts';
import { todayIso } from '../clock.ts';
import { enforceThrottle } from '../throttle/throttle-hook.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { API_PLANS } from '../../../shared/plans.ts';
import { customerProposalData } from '../../../shared/project-fields.ts';
import {
  proposalDataQuerySchema,
  proposalDataResponseSchema,
  type ProposalDataQuery,
  type ProposalOrgJson,
  type ProposalProjectJson,
} from '../../../shared/schemas/proposal-data.ts';
import type { Usage } from '../../../shared/usage.ts';
import { ROLE_COLUMNS, parseAttributes } from '../projects/project-columns.ts';
import { projectsWhereCustomer, loadContactLogins } from '../contacts/contact-logins.ts';
import { loadProjectContacts, serializeContact } from '../contacts/contacts.ts';
import { loadRoles, serializeRole } from '../roles/roles.ts';
import { projectDigest } from '../designs/design-cache.ts';
import { compressProposalData, proposalData } from './proposal-data.ts';

const callers = new WeakMap<FastifyRequest, UserRow>();

export function registerProposalDataRoutes(app: TypedApp, context: EngineContext): void {
  app.get(
    '/api/user_logins/',
    {
      // Counted below, once the projects (and so their org) are known.
      config: { throttle: 'none' },
      onRequest: async (request) => {
        callers.set(request, await authenticate(context, request));
      },
      schema: {
        tags: ['proposals'],
        summary: "Proposal data of projects, grouped by org: for a Pro member who may see each project, or a customer contact on it. Raw Data API Access only (402 otherwise)",
        querystring: proposalDataQuerySchema,
        response: { 200: proposalDataResponseSchema },
      },
    },
    async (request, reply) => {
      const caller = callers.get(request);
      if (!caller) throw new Error('the user_logins route ran without its onRequest hook');
      const query = request.query;
      const rows = await context.db.selectFrom('projects').selectAll().where('id', 'in', query.project_ids).execute();
      const byId = new Map(rows.map((row) => [row.id, row]));
      const missing = query.project_ids.filter((id) => !byId.has(id));
      if (missing.length > 0) throw fieldError('project_ids', `No project has the id${missing.length > 1 ? 's' : ''} ${missing.join(', ')}. Check the ids.`);
      const projects = query.project_ids.map((id) => byId.get(id)!);

      const orgs = await checkReach(context, caller, projects);
      await enforceThrottle(context.throttle, reply, 'proposal_data', { user: String(caller.id), org: projects[0]!.org_id });
      return answer(context, caller, projects, orgs, query);
    },
  );
}

/** 403 unless the caller reaches every project; 403/402 unless each org's plan is Raw Data API Access in force. */
async function checkReach(context: EngineContext, caller: UserRow, projects: readonly ProjectRow[]): Promise<Map<number, OrgRow>> {
  const asCustomer = await projectsWhereCustomer(context.db, caller, projects.map((project) => project.id));
  const orgs = new Map<number, OrgRow>();
  for (const orgId of new Set(projects.map((project) => project.org_id))) {
    const org = await context.orgs.get(orgId);
    if (org) orgs.set(orgId, org);
  }
  for (const project of projects) {
    if (asCustomer.has(project.id)) continue;
    const role = await findMemberRole(context.db, project.org_id, caller.id);
    const reason =
      !role ? 'you are neither a member of its organisation nor a customer contact on it'
      : role.is_pro !== 1 ? 'proposal data is for Pro users, and your role in its organisation is not Pro'
      : !canSeeAllProjects(role) && !Object.values(ROLE_COLUMNS).some((column) => project[column] === role.id)
        ? 'your role sees only the projects assigned to it, and this one is not'
      : null;
    if (reason) throw forbidden(`You cannot reach project ${project.id}: ${reason}. Leave it out of project_ids.`);
  }
  const today = todayIso(context.clock);
  for (const org of orgs.values()) {
    const access = planAccess(org, today);
    if (!access.allowed) throw forbidden(access.reason);
    if (!API_PLANS[access.plan].includesDesignData) {
      throw new ApiError(402, {
        detail: `Proposal data needs the ${API_PLANS.raw_data_api_access.title} plan; the organisation "${org.name}" has ${API_PLANS[access.plan].title}. Upgrade its plan, or leave its projects out of project_ids.`,
      });
    }
  }
  return orgs;
}

async function answer(
  context: EngineContext,
  caller: UserRow,
  projects: readonly ProjectRow[],
  orgs: Map<number, OrgRow>,
  query: ProposalDataQuery,
): Promise<ProposalOrgJson[]> {
  const contacts = await loadProjectContacts(context.db, projects.map((project) => project.id));
  const logins = await loadContactLogins(context.db, [...contacts.values()].flat());
  const answerByOrg = new Map<number, ProposalOrgJson>();
  for (const project of projects) {
    let orgJson = answerByOrg.get(project.org_id);
    const org = orgs.get(project.org_id)!;
    if (!orgJson) {
      orgJson = {
        id: org.id,
        url: absoluteUrl(context, apiPaths.org(org.id)),
        name: org.name,
        country_iso2: await orgCountry(context, org.id),
        user: absoluteUrl(context, apiPaths.globalUser(caller.id)),
        logo_public_url: null,
        projects: [],
      };
      answerByOrg.set(org.id, orgJson);
    }
    const roles = project.assigned_role_id === null ? new Map() : await loadRoles(context.db, org.id, [project.assigned_role_id]);
    const mainRole = project.assigned_role_id === null ? undefined : roles.get(project.assigned_role_id);
    const attributes = parseAttributes(project.attributes);
    const projectContacts = contacts.get(project.id) ?? [];
    const language = query.language ?? stringOr(attributes.language_override) ?? stringOr(attributes.language) ?? 'en';
    const data = proposalData(await projectDigest(context, project), language, query.include_unsold ?? false);
    const json: ProposalProjectJson = {
      id: project.id,
      url: absoluteUrl(context, apiPaths.project(project.org_id, project.id)),
      identifier: project.identifier,
      title: project.title,
      address: project.address,
      locality: project.locality,
      state: project.state,
      zip: project.zip,
      county: stringOr(attributes.county) ?? null,
      country_iso2: project.country_iso2,
      lat: project.lat,
      lon: project.lon,
      contacts: projectContacts.map((contact) => serializeContact(context, contact)),
      assigned_role: mainRole ? serializeRole(context, mainRole, org.name) : null,
      usage: project.usage === null ? null : (JSON.parse(project.usage) as Usage),
      system_sold: attributes.system_sold ?? null,
      payment_option_sold: attributes.payment_option_sold ?? null,
      testimonials: arrayOr(attributes.testimonials_data),
      available_customer_actions: arrayOr(attributes.available_customer_actions),
      change_orders: [],
      custom_data: isObject(attributes.custom_data) ? attributes.custom_data : null,
      customer_proposal_data: customerProposalData(
        projectContacts.map((contact) => ({ email: contact.email, hasLogin: logins.has(contact.id) })),
        attributes.systems,
      ),
      proposal_data: query.compress_data ? compressProposalData(data) : data,
    };
    orgJson.projects.push(json);
  }
  return [...answerByOrg.values()];
}

/** The country most of the org's projects are in (orgs keep no country of their own); null when none has one. */

const stringOr = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
const arrayOr = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

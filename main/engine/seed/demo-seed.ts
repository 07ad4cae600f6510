// `--seed demo`: the orgs, people and projects a newcomer (and every test) starts
// from. Org ids are fixed; every password is DEMO_PASSWORD. Projects come from the
// deterministic generator, so the same seed always makes the same data.
import type { Transaction } from 'kysely';
import type { EngineContext } from '../context.ts';
import type { Database, RoleRow } from '../store/tables.ts';
import { createUser } from '../auth/accounts.ts';
import { ALL_PERMISSIONS, addDays, addRole, createOrg, type RolePermissions, setPlan } from '../orgs/org-service.ts';
import { loadOrgWorkflows } from '../workflows/workflows.ts';
import { todayIso } from '../clock.ts';
import { encodeDesign } from '../../../shared/design-codec.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import type { ApiPlan } from '../../../shared/plans.ts';
import { ROLE_REFERENCE_FIELDS, type RoleReferenceField } from '../../../shared/project-fields.ts';
import { naturalSortKey } from '../../../shared/natural-sort.ts';
import { generateProject } from './generator.ts';
import type { GeneratedProject } from './project-records.ts';
import { systemsSummary } from './project-design.ts';
import { ROLE_COLUMNS } from '../projects/project-columns.ts';
import { seedDemoFiles } from './demo-files.ts';

export const DEMO_PASSWORD = 'solardesk-demo';
export const DEMO_SEED = 20261122;

// The demo files need these too; they live apart so demo-files.ts and this module do not import each other.
export { DEMO_ORGS, DEMO_USERS } from './demo-accounts.ts';
import { DEMO_ORGS, DEMO_USERS } from './demo-accounts.ts';
import { toFlag } from '../store/portable-columns.ts';

/** How many projects each demo org gets, and how many of them carry a design. */
export const DEMO_PROJECT_COUNTS = { sunrise: 48, basic: 8, basicWithDesign: 4, lapsed: 3 } as const;

interface DemoPerson {
  email?: string;
  first_name: string;
  family_name: string;
  job_title: string;
  phone: string;
  accreditation?: string;
  permissions: RolePermissions;
}

/** Fills an empty store. Returns false, and changes nothing, when the store already holds data. */
export async function seedDemo(context: EngineContext): Promise<boolean> {
  const existing = await context.db.selectFrom('orgs').select('id').limit(1).executeTakeFirst();
  if (existing) return false;
  const today = todayIso(context.clock);

  const sunrise = await seedOrg(context, DEMO_ORGS.sunrise, 'Sunrise Solar', { plan: 'raw_data_api_access', startsOn: '2025-01-01' }, [
    { email: DEMO_USERS.sunriseAdmin, first_name: 'Alex', family_name: 'Morgan', job_title: 'Operations manager', phone: '+61 2 9000 1001', permissions: ALL_PERMISSIONS },
    { email: DEMO_USERS.sunriseMember, first_name: 'Sam', family_name: 'Nguyen', job_title: 'Installer', phone: '+61 2 9000 1002', accreditation: 'CEC A1234567', permissions: { is_pro: true } },
    { email: DEMO_USERS.sunriseViewer, first_name: 'Jordan', family_name: 'Lee', job_title: 'Office assistant', phone: '+61 2 9000 1003', permissions: { sees_all_projects: true } },
    { first_name: 'Priya', family_name: 'Sharma', job_title: 'Solar designer', phone: '+61 2 9000 1004', permissions: { is_pro: true, sees_all_projects: true } },
    { first_name: 'Chris', family_name: 'Walker', job_title: 'Sales consultant', phone: '+61 2 9000 1005', permissions: { is_pro: true, sees_all_projects: true } },
    { first_name: 'Mia', family_name: 'Rossi', job_title: 'Site inspector', phone: '+61 2 9000 1006', accreditation: 'CEC A7654321', permissions: { is_pro: true } },
  ]);
  const [admin, member, , designer, salesperson, inspector] = sunrise.roles as [RoleRow, RoleRow, RoleRow, RoleRow, RoleRow, RoleRow];
  const sunriseProjects = Array.from({ length: DEMO_PROJECT_COUNTS.sunrise }, (_, index) => generateProject(DEMO_SEED, index));
  await insertGeneratedProjects(context, DEMO_ORGS.sunrise, sunriseProjects, (index) => ({
    // The member (an installer) holds a role on every eighth project, and only there.
    assigned_role: index % 8 === 0 ? member.id : admin.id,
    assigned_installer_role: index % 8 === 0 || index % 8 === 3 ? member.id : null,
    assigned_site_inspector_role: index % 3 === 0 && index % 8 !== 3 ? inspector.id : null,
    assigned_designer_role: designer.id,
    assigned_salesperson_role: salesperson.id,
  }));

  const basic = await seedOrg(context, DEMO_ORGS.basic, 'Basic Solar', { plan: 'api_access', startsOn: '2025-06-01' }, [
    { email: DEMO_USERS.basicAdmin, first_name: 'Taylor', family_name: 'Brooks', job_title: 'Owner', phone: '+1 512 555 0101', permissions: ALL_PERMISSIONS },
  ]);
  const basicProjects = Array.from({ length: DEMO_PROJECT_COUNTS.basic }, (_, index) =>
    generateProject(DEMO_SEED + 2, index, { country: 'US', withDesign: index < DEMO_PROJECT_COUNTS.basicWithDesign }),
  );
  await insertGeneratedProjects(context, DEMO_ORGS.basic, basicProjects, () => ({ assigned_role: basic.roles[0]!.id }));

  // Lapsed Solar's 30-day trial started 60 days ago, so it ended 30 days ago.
  const lapsed = await seedOrg(context, DEMO_ORGS.lapsed, 'Lapsed Solar', { plan: 'api_access', startsOn: addDays(today, -60), isTrial: true }, [
    { email: DEMO_USERS.lapsedAdmin, first_name: 'Robin', family_name: 'Hayes', job_title: 'Owner', phone: '+61 3 9000 2001', permissions: ALL_PERMISSIONS },
  ]);
  const lapsedProjects = Array.from({ length: DEMO_PROJECT_COUNTS.lapsed }, (_, index) => generateProject(DEMO_SEED + 3, index, { withDesign: false }));
  await insertGeneratedProjects(context, DEMO_ORGS.lapsed, lapsedProjects, () => ({ assigned_role: lapsed.roles[0]!.id }));
  await seedDemoFiles(context);
  return true;
}

async function seedOrg(
  context: EngineContext,
  id: number,
  name: string,
  plan: { plan: ApiPlan; startsOn: string; isTrial?: boolean },
  people: DemoPerson[],
): Promise<{ roles: RoleRow[] }> {
  await createOrg(context.db, context.clock, { id, name });
  await setPlan(context.db, context.clock, id, plan);
  const roles: RoleRow[] = [];
  for (const person of people) {
    const user = person.email
      ? await createUser(context.db, context.clock, { email: person.email, password: DEMO_PASSWORD, ...person })
      : undefined;
    roles.push(await addRole(context.db, context.clock, id, { user_id: user?.id ?? null, ...person }, person.permissions));
  }
  context.orgs.forget(id);
  return { roles };
}

export type RoleAssignments = Partial<Record<RoleReferenceField, number | null>>;

/**
 * Writes generated projects straight to the store in one transaction: fast enough
 * for the 10,000- and 100,000-project stores of tests and benchmarks.
 */
export async function insertGeneratedProjects(
  context: EngineContext,
  orgId: number,
  projects: readonly GeneratedProject[],
  assignRoles: (index: number) => RoleAssignments = () => ({}),
): Promise<number[]> {
  const workflows = await loadOrgWorkflows(context.db, orgId);
  const workflow = workflows.defaultWorkflow;
  if (!workflow) throw new Error(`org ${orgId} has no workflow`);
  const stages = [...workflows.stagesById.values()].filter((stage) => stage.workflow_id === workflow.id);
  return context.db.transaction().execute(async (trx) => {
    const ids: number[] = [];
    for (const [index, project] of projects.entries()) {
      const stage = stages[Math.min(project.stage_index, stages.length - 1)]!;
      const roles = assignRoles(index);
      const id = await insertOne(trx, orgId, project, workflow.id, stage.id, roles);
      ids.push(id);
    }
    return ids;
  });
}

async function insertOne(
  trx: Transaction<Database>,
  orgId: number,
  project: GeneratedProject,
  workflowId: number,
  stageId: number,
  roles: RoleAssignments,
): Promise<number> {
  const roleColumns = Object.fromEntries(ROLE_REFERENCE_FIELDS.map((field) => [ROLE_COLUMNS[field], roles[field] ?? null]));
  const { id } = await trx
    .insertInto('projects')
    .values({
      org_id: orgId,
      title: project.title,
      title_sort: naturalSortKey(project.title),
      identifier: project.identifier,
      address: project.address,
      locality: project.locality,
      state: project.state,
      zip: project.zip,
      country_iso2: project.country_iso2,
      lat: project.lat,
      lon: project.lon,
      business_name: project.business_name,
      priority: project.priority,
      is_residential: toFlag(project.is_residential),
      is_lite: 0,
      roof_type_id: project.roof_type_id,
      workflow_id: workflowId,
      active_stage_id: stageId,
      ...roleColumns,
      usage: project.usage ? JSON.stringify(project.usage) : null,
      design: project.design ? encodeDesign(project.design) : null,
      attributes: '{}',
      created_date: project.created_date,
      modified_date: project.created_date,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const attributes = {
    county: project.county,
    timezone_offset: project.timezone_offset,
    number_of_phases: project.number_of_phases,
    number_of_storeys: project.number_of_storeys,
    notes: project.notes,
    site_notes: project.site_notes,
    lead_source: project.lead_source,
    custom_data: project.custom_data,
    installation_date: project.installation_date,
    sold_date: project.sold_date,
    contract_date: project.contract_date,
    utility_tariff_current_data: project.utility_tariff_current_data,
    systems: project.design ? systemsSummary(project.design, apiPaths.project(orgId, id)) : [],
  };
  await trx.updateTable('projects').set({ attributes: JSON.stringify(attributes) }).where('id', '=', id).execute();
  for (const [position, contact] of project.contacts.entries()) {
    const created = await trx
      .insertInto('contacts')
      .values({
        org_id: orgId,
        ...contact,
        passport_number: '',
        licence_number: '',
        custom_contact_info_1: '',
        custom_contact_info_2: '',
        identifier: '',
        user_id: null,
        type: 0,
        created_date: project.created_date,
        modified_date: project.created_date,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await trx.insertInto('project_contacts').values({ project_id: id, contact_id: created.id, position }).execute();
  }
  return id;
}

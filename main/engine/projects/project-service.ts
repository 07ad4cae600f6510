// Reading projects a user may see, and writing them: reference resolution,
// validation that needs the store, and the one transaction per write.
import { randomUUID } from 'node:crypto';
import { sql, type SelectQueryBuilder, type Transaction } from 'kysely';
import type { Database, NewProject, ProjectRow, ProjectUpdate } from '../store/tables.ts';
import type { EngineContext } from '../context.ts';
import type { Actor } from '../auth/actor.ts';
import { isVisibleTo, VISIBILITY_COLUMNS, type ProjectVisibility } from './project-access.ts';
import { forbidden, notFound, validationError, type FieldErrors } from '../http/errors.ts';
import { nowIso } from '../clock.ts';
import { type IfMatch, checkPrecondition, nextVersion, requireVersion } from '../http/preconditions.ts';
import { parseOrgReference, parseRoofTypeReference, type OrgRecordKind } from '../../../shared/api-paths.ts';
import { ROLE_REFERENCE_FIELDS, WRITABLE_PLAIN_FIELDS, type WritablePlainField } from '../../../shared/project-fields.ts';
import type { ProjectWrite } from '../../../shared/schemas/project-write.ts';
import { searchTerms } from '../../../shared/search-terms.ts';
import { loadContactLogins } from '../contacts/contact-logins.ts';
import { insertContact, loadProjectContacts } from '../contacts/contacts.ts';
import { visibleContactIds } from '../contacts/contact-access.ts';
import { type ChangeTracker, keptSnapshot, writeTracked } from '../changes/tracked-write.ts';
import { actorScope, byUser } from '../changes/change-feed.ts';
import { firstStageOf, loadOrgWorkflows } from '../workflows/workflows.ts';
import { ROLE_COLUMNS, parseAttributes, storedPlainFields, withTitleSort } from './project-columns.ts';
import { loadProjectFiles, resolveFileReferences, setProjectFiles } from '../files/project-files.ts';
import type { FileWithTags } from '../files/file-serializer.ts';
import type { RecordSnapshot, SnapshotSource, TrackedModel } from '../changes/record-snapshots.ts';
import { loadRelations, serializeProject, type ProjectRelations } from './project-serializer.ts';
import { type EventView, loadProjectEvents } from '../events/events.ts';
import { loadRoles } from '../roles/roles.ts';
import { findSharedProject, loadProjectShares, notifyPartners, resolveSharedWith, setProjectShares, type ResolvedShare } from '../sharing/project-shares.ts';

/** The view's lists of other tracked records: change capture reads them only when a capture needs them. */
const PROJECT_LIST_FIELDS = {
  private_files: 'private_file',
  private_files_data: 'private_file',
  events: 'event',
  events_data: 'event',
} as const satisfies Record<string, TrackedModel>;

/**
 * What change capture compares: the project's detail view without its design
 * (large, and plan-gated), and without the lists `parts` leaves out.
 */
export const projectSnapshots: SnapshotSource = {
  model: 'project',
  listFields: PROJECT_LIST_FIELDS,
  async read(trx, context, orgId, id, parts) {
    const row = await trx.selectFrom('projects').selectAll().where('id', '=', id).where('org_id', '=', orgId).executeTakeFirst();
    if (!row) return null;
    const org = await trx.selectFrom('orgs').select('name').where('id', '=', orgId).executeTakeFirstOrThrow();
    const lists = parts?.lists;
    const relations = lists ? await snapshotRelations(trx, context, orgId, row, lists) : await loadRelations(trx, context, orgId, [row]);
    const snapshot: Record<string, unknown> = serializeProject(context, { orgName: org.name, includeDesign: false }, row, relations, 'detail');
    delete snapshot.design;
    const omitted = new Set<TrackedModel>();
    if (lists) {
      for (const [field, model] of Object.entries(PROJECT_LIST_FIELDS)) {
        if (lists.has(model)) continue;
        delete snapshot[field];
        omitted.add(model);
      }
    }
    // What it was built from, for the write's answer (projectReadOf); hidden from JSON and copies.
    Object.defineProperty(snapshot, SNAPSHOT_READ, { value: { row, relations, omitted } satisfies SnapshotRead, enumerable: false });
    return snapshot;
  },
  projectOf: (id) => id,
};

/** A project's relations for a snapshot, reading files and events only when `lists` asks for them. */
async function snapshotRelations(
  trx: Transaction<Database>,
  context: EngineContext,
  orgId: number,
  row: ProjectRow,
  lists: ReadonlySet<TrackedModel>,
): Promise<ProjectRelations> {
  if (lists.has('private_file') && lists.has('event')) return loadRelations(trx, context, orgId, [row]);
  const roleIds = ROLE_REFERENCE_FIELDS.map((field) => row[ROLE_COLUMNS[field]]).filter((roleId): roleId is number => roleId !== null);
  const [contacts, roles, workflows, events, files, shares] = await Promise.all([
    loadProjectContacts(trx, [row.id]),
    loadRoles(trx, orgId, roleIds),
    loadOrgWorkflows(trx, orgId),
    lists.has('event') ? loadProjectEvents(trx, [row.id]) : new Map<number, EventView[]>(),
    lists.has('private_file') ? loadProjectFiles(trx, [row.id]) : new Map<number, FileWithTags[]>(),
    loadProjectShares(trx, [row.id]),
  ]);
  return { contacts, roles, workflows, events, files, shares, contactLogins: await loadContactLogins(trx, contacts.get(row.id) ?? []) };
}

const SNAPSHOT_READ = Symbol('the row and relations a project snapshot was built from');

export interface ProjectRead {
  row: ProjectRow;
  relations: ProjectRelations;
}

/** A snapshot's read, and which of the project's lists it left out (no capture read them). */
interface SnapshotRead extends ProjectRead {
  omitted: ReadonlySet<TrackedModel>;
}

/**
 * The row and related records of the project as its last committed write left it,
 * while nothing has been written since (tracked-write.ts, keptSnapshot): what a
 * write's answer is built from without reading the project again. The lists change
 * capture left out (issue 18: no webhook reads them) are read here, for the answer only.
 */
export async function projectReadOf(context: EngineContext, id: number): Promise<ProjectRead | null> {
  const snapshot = keptSnapshot(context, 'project', id) as (RecordSnapshot & { [SNAPSHOT_READ]?: SnapshotRead }) | null;
  const read = snapshot?.[SNAPSHOT_READ];
  if (!read) return null;
  const { row, relations, omitted } = read;
  if (omitted.size === 0) return { row, relations };
  const [events, files] = await Promise.all([
    omitted.has('event') ? loadProjectEvents(context.db, [row.id]) : relations.events,
    omitted.has('private_file') ? loadProjectFiles(context.db, [row.id]) : relations.files,
  ]);
  return { row, relations: { ...relations, events, files } };
}

const INVALID_HYPERLINK = 'Invalid hyperlink - Object does not exist.';

/** The project, or 404 when it does not exist in this org, or 403 when this user may not see it. */
export async function getVisibleProject(context: EngineContext, actor: Actor, id: number): Promise<ProjectRow> {
  const row = await context.db
    .selectFrom('projects')
    .selectAll()
    .where('id', '=', id)
    .where('org_id', '=', actor.org.id)
    .executeTakeFirst();
  if (!row) throw notFound();
  return checkVisible(actor, row);
}

/** The row, or 403 when this user may not see it. */
export function checkVisible<Row extends ProjectVisibility>(actor: Actor, row: Row): Row {
  if (!isVisibleTo(actor, row)) throw forbidden('You do not have access to this project: it is not assigned to you.');
  return row;
}

/**
 * Case-insensitive substring match that treats % and _ in the user's text literally.
 * The pattern is lowered by the store's own lower(), as the column is: lowering it
 * in JavaScript folded more than SQLite's lower() (ASCII only) does, so a search
 * for the exact text "Élodie" found nothing.
 */
export function likePattern(text: string) {
  return sql<string>`lower(${`%${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`})`;
}

/**
 * Issue 20: every word of the search must be found, each in any of the title,
 * address, locality, identifier or the project's contacts (names, email, phone),
 * as DRF's SearchFilter does (shared/search-terms.ts says how the text is split).
 * Each word is a case-insensitive substring, taken literally (likePattern). The
 * contacts a word finds are looked up once per word (the org's contacts, then their
 * projects), not once per project row: at 100,000 projects that is the difference
 * between a scan of the contacts and 100,000 lookups (docs/benchmarks.md).
 */
export function applyProjectSearch<O>(query: SelectQueryBuilder<Database, 'projects', O>, search: string, orgId: number) {
  const terms = searchTerms(search);
  if (terms.length === 0) return query;
  return query.where((builder) =>
    builder.and(
      terms.map((term) => {
        const pattern = likePattern(term);
        const like = (column: string) => sql<boolean>`lower(${sql.ref(column)}) like ${pattern} escape '\\'`;
        return builder.or([
          like('projects.title'),
          like('projects.address'),
          like('projects.locality'),
          like('projects.identifier'),
          builder(
            'projects.id',
            'in',
            builder
              .selectFrom('contacts')
              .innerJoin('project_contacts', 'project_contacts.contact_id', 'contacts.id')
              .select('project_contacts.project_id')
              .where('contacts.org_id', '=', orgId)
              .where(
                sql<boolean>`lower(contacts.first_name || ' ' || contacts.family_name || ' ' || contacts.email || ' ' || contacts.phone) like ${pattern} escape '\\'`,
              ),
          ),
        ]);
      }),
    ),
  );
}

interface ResolvedWrite {
  columns: ProjectUpdate;
  attributes: Partial<Record<WritablePlainField, unknown>>;
  contactIds: number[] | undefined;
  /** The files the project's `private_files` should be (as far as the actor sees), when the write names them. */
  privateFileIds: number[] | undefined;
  /** The project's `shared_with`, when the write names it (docs/access.md "Teams"). */
  shares: ResolvedShare[] | undefined;
}

/** Checks every reference of a write against the store; collects all errors into one 400. */
async function resolveWrite(
  context: EngineContext,
  actor: Actor,
  input: ProjectWrite,
  existing: WritableProject | undefined,
): Promise<ResolvedWrite> {
  const errors: FieldErrors = {};
  const orgId = actor.org.id;
  // `shared_with` is kept in project_shares, below.
  const plain = storedPlainFields(input, (Object.keys(WRITABLE_PLAIN_FIELDS) as WritablePlainField[]).filter((field) => field !== 'shared_with'));
  const columns = plain.columns as ProjectUpdate;
  const attributes = plain.attributes as Partial<Record<WritablePlainField, unknown>>;
  if (input.country_iso2 !== undefined) columns.country_iso2 = input.country_iso2;

  const referencedIds = async (kind: OrgRecordKind, field: string, references: ReadonlyArray<unknown>) => {
    const ids: number[] = [];
    for (const reference of references) {
      const parsed = parseOrgReference(reference, kind);
      if (!parsed || (parsed.orgId !== null && parsed.orgId !== orgId)) {
        (errors[field] ??= []).push(INVALID_HYPERLINK);
        return undefined;
      }
      ids.push(parsed.id);
    }
    if (ids.length === 0) return ids;
    // A contact hidden from the writer is answered as if it did not exist: attaching it
    // to a project they can open would show it to them (docs/access.md).
    const found =
      kind === 'roles'
        ? await context.db.selectFrom('roles').select('id').where('org_id', '=', orgId).where('id', 'in', ids).execute()
        : [...(await visibleContactIds(context.db, actor, ids))];
    if (found.length !== new Set(ids).size) {
      (errors[field] ??= []).push(INVALID_HYPERLINK);
      return undefined;
    }
    return [...new Set(ids)];
  };

  for (const field of ROLE_REFERENCE_FIELDS) {
    const reference = input[field];
    if (reference === undefined) continue;
    if (reference === null || reference === '') {
      columns[ROLE_COLUMNS[field]] = null;
      continue;
    }
    const ids = await referencedIds('roles', field, [reference]);
    if (ids) columns[ROLE_COLUMNS[field]] = ids[0] ?? null;
  }

  // The write schema has refused a roof type that is not in the catalogue (shared/field-rules.ts).
  if (input.roof_type !== undefined) columns.roof_type_id = input.roof_type === null || input.roof_type === '' ? null : parseRoofTypeReference(input.roof_type);

  const contactIds = input.contacts === undefined ? undefined : await referencedIds('contacts', 'contacts', input.contacts);

  let privateFileIds: number[] | undefined;
  if (input.private_files !== undefined) {
    const resolved = await resolveFileReferences(context.db, actor, input.private_files);
    if ('error' in resolved) errors.private_files = [resolved.error];
    else privateFileIds = resolved.ids;
  }

  const shares = input.shared_with === undefined ? undefined : await resolveSharedWith(context, actor, input.shared_with, errors);

  if (input.usage !== undefined) columns.usage = input.usage === null ? null : JSON.stringify(input.usage);

  const requestedStage = input.workflow?.active_stage_id ?? input.active_stage_id;
  if (requestedStage !== undefined || input.workflow?.workflow_id !== undefined || !existing) {
    const workflows = await loadOrgWorkflows(context.db, orgId);
    const workflowId = input.workflow?.workflow_id ?? existing?.workflow_id ?? workflows.defaultWorkflow?.id;
    const workflow = workflows.workflows.find((candidate) => candidate.id === workflowId);
    if (!workflow) {
      errors.workflow = [`Workflow ${String(workflowId)} does not exist in this organisation.`];
    } else if (workflow.is_archived === 1 && workflow.id !== existing?.workflow_id) {
      errors.workflow = [`Workflow "${workflow.title}" is archived: choose a stage of another workflow.`];
    } else if (requestedStage === undefined) {
      const firstStage = firstStageOf(workflows, workflow.id);
      if (!firstStage) errors.workflow = ['This workflow has no stages.'];
      else if (workflow.id !== existing?.workflow_id) {
        columns.workflow_id = workflow.id;
        columns.active_stage_id = firstStage.id;
      }
    } else {
      const stage = workflows.stagesById.get(requestedStage);
      if (!stage) errors.active_stage_id = [`Stage ${requestedStage} does not exist.`];
      else if (stage.workflow_id !== workflow.id) {
        errors.active_stage_id = [`Stage ${requestedStage} belongs to another workflow than ${workflow.id}.`];
      } else if (stage.is_archived === 1 && stage.id !== existing?.active_stage_id) {
        errors.active_stage_id = [`Stage "${stage.title}" is archived: choose another stage.`];
      } else {
        columns.workflow_id = workflow.id;
        columns.active_stage_id = stage.id;
      }
    }
  }

  if (Object.keys(errors).length > 0) throw validationError(errors);
  return { columns, attributes, contactIds, privateFileIds, shares };
}

async function attachContacts(
  trx: Transaction<Database>,
  track: ChangeTracker,
  context: EngineContext,
  actor: Actor,
  projectId: number,
  input: ProjectWrite,
  contactIds: number[] | undefined,
): Promise<void> {
  if (contactIds !== undefined) {
    await trx.deleteFrom('project_contacts').where('project_id', '=', projectId).execute();
    if (contactIds.length) {
      await trx
        .insertInto('project_contacts')
        .values(contactIds.map((contactId, position) => ({ project_id: projectId, contact_id: contactId, position })))
        .execute();
    }
  }
  if (input.contacts_new?.length) {
    const last = await trx
      .selectFrom('project_contacts')
      .select((builder) => builder.fn.max('position').as('position'))
      .where('project_id', '=', projectId)
      .executeTakeFirst();
    let position = (last?.position ?? -1) + 1;
    for (const contact of input.contacts_new) {
      const created = await insertContact(trx, context, actor, contact);
      await track.contact(created.id, { created: true });
      await trx.insertInto('project_contacts').values({ project_id: projectId, contact_id: created.id, position: position++ }).execute();
    }
  }
}

export async function createProject(context: EngineContext, actor: Actor, input: ProjectWrite): Promise<number> {
  const { columns, attributes, contactIds, privateFileIds, shares } = await resolveWrite(context, actor, input, undefined);
  const now = nowIso(context.clock);
  // A project is found by its title in every list, so it always has one.
  const title =
    [input.title, input.address, input.identifier].find((text): text is string => typeof text === 'string' && text.trim() !== '') ??
    'Untitled project';
  return writeTracked(context, actorScope(actor), async (trx, track) => {
    const { id } = await trx
      .insertInto('projects')
      .values({
        // Columns the write did not mention take their defaults from the schema.
        ...(columns as Omit<NewProject, 'org_id' | 'title' | 'attributes' | 'created_date' | 'modified_date'>),
        // The client's identifier, else a generated v4 UUID (hosted-docs-facts.md 10): in the
        // record and in every delivery. A project made offline gets it here, and sync's create sends it.
        identifier: typeof columns.identifier === 'string' && columns.identifier !== '' ? columns.identifier : randomUUID(),
        org_id: actor.org.id,
        ...withTitleSort({ title }),
        attributes: JSON.stringify(attributes),
        created_date: now,
        modified_date: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await track.project(id, { created: true });
    await attachContacts(trx, track, context, actor, id, input, contactIds);
    if (privateFileIds) await setProjectFiles(trx, track, context, actor, id, privateFileIds);
    if (shares) await setProjectShares(trx, context, id, shares);
    return id;
  });
}

/** `ifMatch`: the client's precondition (If-Match), checked inside the write's transaction. */
export async function updateProject(context: EngineContext, actor: Actor, existing: WritableProject, input: ProjectWrite, ifMatch: IfMatch | null = null): Promise<void> {
  const { columns, attributes, contactIds, privateFileIds, shares } = await resolveWrite(context, actor, input, existing);
  const unshared = await writeTracked(context, actorScope(actor), async (trx, track) => {
    // Read inside the transaction, in one query: the version If-Match is checked
    // against, and the attributes the write merges into, so two concurrent writes to
    // different fields both land.
    const current = await trx.selectFrom('projects').select(['modified_date', 'attributes']).where('id', '=', existing.id).executeTakeFirstOrThrow();
    const version = requireVersion(current.modified_date, ifMatch);
    await track.project(existing.id);
    const merged = { ...parseAttributes(current.attributes), ...attributes };
    await trx
      .updateTable('projects')
      .set({ ...withTitleSort(columns), attributes: JSON.stringify(merged), modified_date: nextVersion(context.clock, version) })
      .where('id', '=', existing.id)
      .execute();
    await attachContacts(trx, track, context, actor, existing.id, input, contactIds);
    if (privateFileIds) await setProjectFiles(trx, track, context, actor, existing.id, privateFileIds);
    return shares ? setProjectShares(trx, context, existing.id, shares) : [];
  });
  // Orgs no longer listed: their feeds hear that the project is gone for them.
  if (unshared.length > 0) await notifyPartners(context, unshared.map((partnerOrgId) => ({ partnerOrgId, projectId: existing.id })), byUser(actor.user.id));
}

/**
 * Ends every share link of the project, the owner's and each connected org's, links
 * handed on included (issue 25, item 5): the revocation count is part of every
 * token (share-token.ts), so raising it makes new links. A change of the project's
 * `share_link`, so it gets a new version, its webhooks and the partners' feeds hear it.
 */
export async function revokeShareLinks(context: EngineContext, actor: Actor, existing: WritableProject, ifMatch: IfMatch | null = null): Promise<void> {
  await writeTracked(context, actorScope(actor), async (trx, track) => {
    const version = await checkPrecondition(trx, 'projects', existing.id, ifMatch);
    await track.project(existing.id);
    await trx
      .updateTable('projects')
      .set({ share_link_generation: sql<number>`share_link_generation + 1`, modified_date: nextVersion(context.clock, version) })
      .where('id', '=', existing.id)
      .execute();
  });
}

/** Deletes the project; its contact links go with it (the contacts themselves stay in the org). */
export async function deleteProject(context: EngineContext, actor: Actor, project: WritableProject): Promise<void> {
  const partners = await writeTracked(context, actorScope(actor), async (trx, track) => {
    await track.project(project.id);
    const shares = await trx.selectFrom('project_shares').select('org_id').where('project_id', '=', project.id).execute();
    await trx.deleteFrom('project_shares').where('project_id', '=', project.id).execute();
    await trx.deleteFrom('project_contacts').where('project_id', '=', project.id).execute();
    await trx.deleteFrom('projects').where('id', '=', project.id).execute();
    return shares.map((share) => share.org_id);
  });
  if (partners.length > 0) await notifyPartners(context, partners.map((partnerOrgId) => ({ partnerOrgId, projectId: project.id })), byUser(actor.user.id));
}

/**
 * What a write needs of the project before its transaction: what decides whether the
 * actor may write it, and the workflow and stage a new stage is checked against. Not
 * the whole row: its design is tens of KB, and the write's change capture reads the
 * project as it is after the write anyway.
 */
const WRITABLE_PROJECT_COLUMNS = ['id', 'modified_date', 'workflow_id', 'active_stage_id', ...VISIBILITY_COLUMNS] as const;
export type WritableProject = Pick<ProjectRow, (typeof WRITABLE_PROJECT_COLUMNS)[number]>;

/**
 * A write to a project of another org shared to the actor's org: 403, saying it is
 * read-only here. A project of the actor's org they may not see: 403, as
 * getVisibleProject. No such project: 404.
 */
export async function getWritableProject(context: EngineContext, actor: Actor, id: number): Promise<WritableProject> {
  const own = await context.db.selectFrom('projects').select(WRITABLE_PROJECT_COLUMNS).where('id', '=', id).where('org_id', '=', actor.org.id).executeTakeFirst();
  if (own) return checkVisible(actor, own);
  const shared = await findSharedProject(context.db, actor, id);
  if (shared) {
    const owner = await context.db.selectFrom('orgs').select('name').where('id', '=', shared.org_id).executeTakeFirstOrThrow();
    throw forbidden(`This project is shared with your organisation by ${owner.name} and is read-only here. Ask ${owner.name} to make the change.`);
  }
  throw notFound();
}

/** What a project detail needs before its JSON: the version, and what its visibility is decided by. */
export type ProjectHead = ProjectVisibility & Pick<ProjectRow, 'id' | 'modified_date'>;

/**
 * The project a detail reads, in the actor's org or shared to it by a connected org:
 * for the org's own, only its version and what decides its visibility, since a
 * detail whose JSON is cached for this version needs no more (the whole row, with
 * its design, is tens of KB). A project shared by a connected org comes whole, as `shared`.
 */
export async function getReadableProjectHead(context: EngineContext, actor: Actor, id: number): Promise<{ head: ProjectHead; shared?: ProjectRow }> {
  const own = await context.db
    .selectFrom('projects')
    .select(['id', 'modified_date', ...VISIBILITY_COLUMNS])
    .where('id', '=', id)
    .where('org_id', '=', actor.org.id)
    .executeTakeFirst();
  if (own) return { head: checkVisible(actor, own) };
  const shared = await findSharedProject(context.db, actor, id);
  if (shared) return { head: shared, shared };
  throw notFound();
}


// Who may see which private file (service.md 5.2 and 5.3), written once as a SQL
// condition so that lists, details, writes, project views and download links all
// apply exactly the same rule:
//   - only Pro users of the org use private files at all;
//   - the org-wide files permission sees every file of the org;
//   - others see the files they created and the files attached to projects they can see;
//   - a file tagged "Export" also needs the projects_export permission.
import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import type { Database, PrivateFileRow, RoleRow } from '../store/tables.ts';
import type { Actor } from '../auth/actor.ts';
import { forbidden, notFound } from '../http/errors.ts';
import { visibleProjectIds } from '../projects/project-access.ts';
import { EXPORT_TAG_TITLE, isExportTag } from '../../../shared/file-tags.ts';
import { findSharedProject, partnerMayView, partnerPermissions } from '../sharing/project-shares.ts';

export const isFilesUser = (role: RoleRow): boolean => role.is_pro === 1;

/** 403 for a member who is not a Pro user: private files are not theirs to use. */
export function requireFilesUser(actor: Actor): void {
  if (!isFilesUser(actor.role)) {
    throw forbidden('Private files are only available to Pro users of this organisation.');
  }
}

/** Restricts a private_files query to the files the actor may see (nothing for a non-Pro user). */
export function fileVisibleTo(actor: Actor) {
  const { role } = actor;
  return (builder: ExpressionBuilder<Database, 'private_files'>) => {
    if (!isFilesUser(role)) return sql<boolean>`1 = 0`;
    const conditions = [builder('private_files.org_id', '=', actor.org.id)];
    if (role.can_access_all_files !== 1) {
      conditions.push(
        builder.or([
          builder('private_files.user_id', '=', actor.user.id),
          builder('private_files.project_id', 'in', visibleProjectIds(actor)),
        ]),
      );
    }
    if (role.can_export_projects !== 1) conditions.push(builder.not(builder.exists(exportTagOfFile(builder))));
    return builder.and(conditions);
  };
}

function exportTagOfFile(builder: ExpressionBuilder<Database, 'private_files'>) {
  return builder
    .selectFrom('private_file_tags')
    .innerJoin('file_tags', 'file_tags.id', 'private_file_tags.tag_id')
    .select(sql`1`.as('one'))
    .whereRef('private_file_tags.file_id', '=', 'private_files.id')
    .where(sql<boolean>`lower(file_tags.title) = ${EXPORT_TAG_TITLE.toLowerCase()}`);
}

/**
 * The file, when the actor may see it: 404 when no such file exists in the org,
 * 403 when it exists but is not theirs to see (compatibility.md "Status codes").
 * `db` is the store or the write's transaction.
 */
export async function getVisibleFile(db: Kysely<Database>, actor: Actor, id: number): Promise<PrivateFileRow> {
  requireFilesUser(actor);
  const row = await db
    .selectFrom('private_files')
    .selectAll()
    .where('id', '=', id)
    .where('org_id', '=', actor.org.id)
    .executeTakeFirst();
  if (!row) throw notFound();
  if (!(await isFileVisibleTo(db, actor, id))) {
    throw forbidden('You do not have access to this file.');
  }
  return row;
}

export async function isFileVisibleTo(db: Kysely<Database>, actor: Actor, id: number): Promise<boolean> {
  const visible = await db.selectFrom('private_files').select('id').where('id', '=', id).where(fileVisibleTo(actor)).executeTakeFirst();
  return visible !== undefined;
}

/** What the project serializer needs to show only the attached files a viewer may see. */
export interface FileViewer {
  readonly userId: number;
  readonly isFilesUser: boolean;
  readonly canExport: boolean;
  /** A connected org's user looking at a project shared to it: that org, named in the download links it gets. */
  readonly viaOrgId?: number | undefined;
}

export function fileViewerFor(actor: Actor): FileViewer {
  return { userId: actor.user.id, isFilesUser: isFilesUser(actor.role), canExport: actor.role.can_export_projects === 1 };
}

/**
 * For a file attached to a project the viewer can see, the rule above reduces to
 * this (such a file is "attached to a project they can access").
 */
export function canViewAttachedFile(viewer: FileViewer, tagTitles: readonly string[]): boolean {
  if (!viewer.isFilesUser) return false;
  return viewer.canExport || !tagTitles.some(isExportTag);
}

/**
 * A file of another org, for a user of a connected org it is shown to through a
 * shared project (its download link names that org: download-links.ts, issue 25
 * item 7). The same rule as the project's answer (project-serializer.ts): the
 * project is shared with the org now, the permissions role in force grants
 * `info_documents`, and the user's own file rules (Pro, the Export tag) allow it.
 * Anything else is 403, as for a file of one's own org one may not see.
 */
export async function getFileSeenThroughSharing(db: Kysely<Database>, actor: Actor, id: number): Promise<PrivateFileRow> {
  requireFilesUser(actor);
  const row = await db.selectFrom('private_files').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound();
  const refused = forbidden('Your organisation no longer sees this file: the project it is on is not shared with you, or not its documents. Ask the owner to share it again.');
  if (row.project_id === null || !(await findSharedProject(db, actor, row.project_id))) throw refused;
  const permissions = (await partnerPermissions(db, actor.org.id, [row.project_id])).get(row.project_id) ?? null;
  if (!partnerMayView(permissions, 'info_documents')) throw refused;
  const tags = await db
    .selectFrom('private_file_tags')
    .innerJoin('file_tags', 'file_tags.id', 'private_file_tags.tag_id')
    .select('file_tags.title')
    .where('private_file_tags.file_id', '=', id)
    .execute();
  if (!canViewAttachedFile(fileViewerFor(actor), tags.map((tag) => tag.title))) throw refused;
  return row;
}

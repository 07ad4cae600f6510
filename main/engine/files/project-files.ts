// The project side of private files: a project's `private_files` (writable URLs)
// and `private_files_data` (read-only file objects) are the files whose `project`
// is that project, so the two directions can never disagree.
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../store/tables.ts';
import type { EngineContext } from '../context.ts';
import type { Actor } from '../auth/actor.ts';
import { nowIso } from '../clock.ts';
import type { ChangeTracker } from '../changes/tracked-write.ts';
import { parseOrgReferenceIds } from '../../../shared/api-paths.ts';
import type { PrivateFileJson } from '../../../shared/schemas/private-file.ts';
import { canViewAttachedFile, fileVisibleTo, type FileViewer } from './file-access.ts';
import { serializeFile, withTags, type FileWithTags } from './file-serializer.ts';
import { signedDownloadUrl } from './download-links.ts';

const INVALID_HYPERLINK = 'Invalid hyperlink - Object does not exist.';

/** The files attached to each of these projects, with their tags, oldest first. */
export async function loadProjectFiles(db: Kysely<Database>, projectIds: readonly number[]): Promise<Map<number, FileWithTags[]>> {
  const byProject = new Map<number, FileWithTags[]>();
  if (projectIds.length === 0) return byProject;
  const rows = await db
    .selectFrom('private_files')
    .selectAll()
    .where('project_id', 'in', [...new Set(projectIds)])
    .orderBy('id')
    .execute();
  for (const file of await withTags(db, rows)) {
    const projectId = file.row.project_id as number;
    byProject.set(projectId, [...(byProject.get(projectId) ?? []), file]);
  }
  return byProject;
}

/**
 * `private_files` and `private_files_data` of one project. With a viewer (an API
 * response) only the files that viewer may see appear, with links signed for
 * them; without one (the snapshots webhooks compare) every file appears, with
 * links signed for its creator.
 */
export function projectFilesJson(
  context: EngineContext,
  files: readonly FileWithTags[],
  viewer: FileViewer | undefined,
): { private_files: string[]; private_files_data: PrivateFileJson[] } {
  const shown = viewer ? files.filter((file) => canViewAttachedFile(viewer, file.tags.map((tag) => tag.title))) : files;
  const data = shown.map((file) =>
    serializeFile(context, file, (row) =>
      viewer ? signedDownloadUrl(context, row.id, viewer.userId, { viaOrgId: viewer.viaOrgId }) : signedDownloadUrl(context, row.id, row.user_id, { stable: true }),
    ),
  );
  return { private_files: data.map((file) => file.url), private_files_data: data };
}

/** A project write's `private_files` -> ids of files the actor can see, or the 400 message. */
export async function resolveFileReferences(
  db: Kysely<Database>,
  actor: Actor,
  references: readonly unknown[],
): Promise<{ ids: number[] } | { error: string }> {
  const unique = parseOrgReferenceIds(references, 'private_files', actor.org.id);
  if (!unique) return { error: INVALID_HYPERLINK };
  if (unique.length === 0) return { ids: [] };
  // A file the actor may not see is, for them, one that does not exist.
  const visible = await db.selectFrom('private_files').select('id').where('id', 'in', unique).where(fileVisibleTo(actor)).execute();
  if (visible.length !== unique.length) return { error: INVALID_HYPERLINK };
  return { ids: unique };
}

/**
 * Makes the project's files exactly `fileIds`, as far as the actor can see:
 * listed files are attached (moved from any other project), visible files not
 * listed are detached, and files the actor cannot see are left alone. Every
 * project a file leaves is tracked before it changes.
 */
export async function setProjectFiles(
  trx: Transaction<Database>,
  track: ChangeTracker,
  context: EngineContext,
  actor: Actor,
  projectId: number,
  fileIds: readonly number[],
): Promise<void> {
  const wanted = new Set(fileIds);
  const attached = await trx
    .selectFrom('private_files')
    .select('id')
    .where('project_id', '=', projectId)
    .where(fileVisibleTo(actor))
    .execute();
  const toDetach = attached.map((file) => file.id).filter((id) => !wanted.has(id));
  const attachedIds = new Set(attached.map((file) => file.id));
  const toAttach = [...wanted].filter((id) => !attachedIds.has(id));
  if (toDetach.length === 0 && toAttach.length === 0) return;

  await track.project(projectId);
  const modified_date = nowIso(context.clock);
  if (toAttach.length > 0) {
    const previousProjects = await trx
      .selectFrom('private_files')
      .select('project_id')
      .distinct()
      .where('id', 'in', toAttach)
      .where('project_id', 'is not', null)
      .execute();
    for (const { project_id: previous } of previousProjects) if (previous !== null) await track.project(previous);
    for (const id of toAttach) await track.privateFile(id);
    await trx.updateTable('private_files').set({ project_id: projectId, modified_date }).where('id', 'in', toAttach).execute();
  }
  if (toDetach.length > 0) {
    for (const id of toDetach) await track.privateFile(id);
    await trx.updateTable('private_files').set({ project_id: null, modified_date }).where('id', 'in', toDetach).execute();
  }
}

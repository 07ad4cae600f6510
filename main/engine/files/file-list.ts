// The private files list's filters and ordering (service.md 4.2, compatibility.md
// "Private files"), applied on top of the access rule.
import { z } from 'zod';
import { sql, type ExpressionBuilder, type SelectQueryBuilder } from 'kysely';
import type { Database } from '../store/tables.ts';
import type { Actor } from '../auth/actor.ts';
import { pagingQuery, readOrdering, searchParam } from '../http/list-query.ts';
import { likePattern } from '../projects/project-service.ts';
import { parseOrgReference } from '../../../shared/api-paths.ts';

export const FILE_ORDERING_FIELDS = ['created_date', 'modified_date', 'title', 'status', 'filesize'] as const;
const DEFAULT_ORDER = { field: 'modified_date', direction: 'desc' } as const;

/** The columns `search` looks in (service.md 4.2). */
const SEARCHED_COLUMNS = ['title', 'system_uuid', 'input_data', 'input_data_hash', 'file_hash', 'status', 'status_message'] as const;

/** `a,b` or a repeated parameter (`?x=a&x=b`), or both: one list of trimmed, non-empty values. */
const listParameter = () =>
  z
    .union([z.string(), z.array(z.string())])
    .optional()
    .transform((value) =>
      [value ?? []]
        .flat()
        .flatMap((item) => item.split(','))
        .map((item) => item.trim())
        .filter((item) => item !== ''),
    );

export const fileListQuery = z.object({
  ...pagingQuery,
  project: z.string().optional().describe('a project id, absolute project URL or /api/orgs/<org>/projects/<id>/ path'),
  user_id: z
    .string()
    .regex(/^\d{1,15}$/, 'A valid integer is required.')
    .transform(Number)
    .optional(),
  file_tags: listParameter().describe('files carrying any of these tag titles (comma list or repeated)'),
  file_tags_exclude: listParameter().describe('files carrying none of these tag titles (comma list or repeated)'),
  search: searchParam(),
});
export type FileListQuery = z.output<typeof fileListQuery>;

type FileQuery<O> = SelectQueryBuilder<Database, 'private_files', O>;

/**
 * The project filter's value -> a project id; null when it names a project of
 * another org (no file of this org can match); 'invalid' when it is no project reference.
 */
export function projectFilterId(actor: Actor, reference: string): number | null | 'invalid' {
  const parsed = parseOrgReference(reference, 'projects');
  if (!parsed) return 'invalid';
  return parsed.orgId !== null && parsed.orgId !== actor.org.id ? null : parsed.id;
}

function carriesAnyTag(builder: ExpressionBuilder<Database, 'private_files'>, titles: readonly string[]) {
  return builder.exists(
    builder
      .selectFrom('private_file_tags')
      .innerJoin('file_tags', 'file_tags.id', 'private_file_tags.tag_id')
      .select(sql`1`.as('one'))
      .whereRef('private_file_tags.file_id', '=', 'private_files.id')
      // Both sides lowered by the store, as search does (likePattern).
      .where(sql<boolean>`lower(file_tags.title) in (${sql.join(titles.map((title) => sql`lower(${title})`))})`),
  );
}

export function applyFileFilters<O>(query: FileQuery<O>, filters: FileListQuery, projectId: number | undefined): FileQuery<O> {
  let filtered = query;
  if (projectId !== undefined) filtered = filtered.where('private_files.project_id', '=', projectId);
  if (filters.user_id !== undefined) filtered = filtered.where('private_files.user_id', '=', filters.user_id);
  const included = filters.file_tags;
  const excluded = filters.file_tags_exclude;
  if (included.length > 0) filtered = filtered.where((builder) => carriesAnyTag(builder, included));
  if (excluded.length > 0) filtered = filtered.where((builder) => builder.not(carriesAnyTag(builder, excluded)));
  if (filters.search) {
    const pattern = likePattern(filters.search);
    filtered = filtered.where((builder) =>
      builder.or(
        SEARCHED_COLUMNS.map((column) => sql<boolean>`lower(coalesce(${sql.ref(`private_files.${column}`)}, '')) like ${pattern} escape '\\'`),
      ),
    );
  }
  const order = readOrdering(filters.ordering, FILE_ORDERING_FIELDS, DEFAULT_ORDER);
  return filtered.orderBy(`private_files.${order.field}`, order.direction).orderBy('private_files.id', order.direction);
}

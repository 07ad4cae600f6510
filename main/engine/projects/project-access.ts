// Which projects an actor may see (docs/access.md). Records that follow their
// projects' visibility (contacts, private files, events) build on it, so it sits
// apart from the project service, which in turn uses their access rules.
import { expressionBuilder, type ExpressionBuilder } from 'kysely';
import type { Database, ProjectRow } from '../store/tables.ts';
import { type Actor, canSeeAllProjects } from '../auth/actor.ts';
import { ROLE_COLUMNS } from './project-columns.ts';

/** Restricts a projects query to what the actor may see (docs/access.md). */
export function visibleTo(actor: Actor) {
  return (builder: ExpressionBuilder<Database, 'projects'>) => {
    const inOrg = builder('projects.org_id', '=', actor.org.id);
    if (canSeeAllProjects(actor.role)) return inOrg;
    const roleId = actor.role.id;
    return builder.and([
      inOrg,
      builder.or(Object.values(ROLE_COLUMNS).map((column) => builder(`projects.${column}`, '=', roleId))),
    ]);
  };
}

/**
 * The ids of the projects the actor may see, as a subquery for `column in (...)`:
 * records that follow their projects' visibility (private files, contacts, events) use it.
 */
export function visibleProjectIds(actor: Actor) {
  return expressionBuilder<Database, never>().selectFrom('projects').select('projects.id').where(visibleTo(actor));
}

/** What decides whether an actor may see a project: its org and its assigned roles. */
export type ProjectVisibility = Pick<ProjectRow, 'org_id' | (typeof ROLE_COLUMNS)[keyof typeof ROLE_COLUMNS]>;

/** The columns of ProjectVisibility, for a read of only what a visibility check needs. */
export const VISIBILITY_COLUMNS = ['org_id', ...Object.values(ROLE_COLUMNS)] as const;

export function isVisibleTo(actor: Actor, row: ProjectVisibility): boolean {
  if (row.org_id !== actor.org.id) return false;
  if (canSeeAllProjects(actor.role)) return true;
  return Object.values(ROLE_COLUMNS).some((column) => row[column] === actor.role.id);
}

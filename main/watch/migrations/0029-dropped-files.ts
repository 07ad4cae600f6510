// A file the watcher attached from one dropped into a project folder, told apart
// from one it wrote out there (a file made in the app or elsewhere, an arrival).
// Only dropped files follow the folders' rule on the remote, that the same contents
// in one project are one file: an upload made in the app is the user's explicit
// choice and is never merged, even once its copy sits in the folder (sync's
// push-folder-copies.ts). Every mapping that exists now counts as dropped, as every
// mapping did before, so nothing already queued changes how it goes up.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('watch_files')
    .addColumn('is_dropped', 'integer', (column) => column.notNull().defaultTo(0))
    .execute();
  await sql`update watch_files set is_dropped = 1`.execute(db);
}

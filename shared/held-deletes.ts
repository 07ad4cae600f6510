// Held deletes (docs/project-folders.md, "Deletes: held"): what the watcher writes and
// the Sync screen reads of them.

/** How the mass-delete guard's holds begin (main/watch/deletes.ts): the Sync screen says once per folder that many went at once. */
export const MASS_DELETE_GUARD_REASON = 'Held by the mass-delete guard';

// What an upsert of the replica sets when its row is there already: every column but
// the key. SQLite treats a key column in DO UPDATE's SET list as a change of the key,
// even to the same value, and checks every table that references it, row by row where
// the reference has no index. So setting `id` again made a role's upsert scan the
// projects' five role columns: 80-240 ms apiece at 10,000 projects, on the agent's
// one connection, while the local API waited (issue 30, bench sync.local_detail_during_pull).

/** The row without its `id`, for `doUpdateSet`. */
export function allButId<Row extends { id: unknown }>(row: Row): Omit<Row, 'id'> {
  return Object.fromEntries(Object.entries(row).filter(([column]) => column !== 'id')) as Omit<Row, 'id'>;
}

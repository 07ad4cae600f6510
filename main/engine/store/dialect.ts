// The two SQL dialects the store speaks. Queries are written once with Kysely; only
// the few DDL spellings that differ are chosen here.
import type { ColumnDefinitionBuilder } from 'kysely';

export type Dialect = 'sqlite' | 'postgres';

/** An auto-numbered integer primary key. */
export function idColumn(
  dialect: Dialect,
): ['integer' | 'serial', (column: ColumnDefinitionBuilder) => ColumnDefinitionBuilder] {
  return dialect === 'postgres'
    ? ['serial', (column) => column.primaryKey()]
    : ['integer', (column) => column.primaryKey().autoIncrement()];
}

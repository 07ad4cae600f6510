// The two SQL dialects the store speaks. Queries are written once with Kysely; only
// the few DDL spellings that differ are chosen here.
import {
  type ColumnDefinitionBuilder,
  type DataTypeNode,
  type KyselyPlugin,
  OperationNodeTransformer,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely';

export type Dialect = 'sqlite' | 'postgres';

/** An auto-numbered integer primary key. */
export function idColumn(
  dialect: Dialect,
): ['integer' | 'bigserial', (column: ColumnDefinitionBuilder) => ColumnDefinitionBuilder] {
  return dialect === 'postgres'
    ? ['bigserial', (column) => column.primaryKey()]
    : ['integer', (column) => column.primaryKey().autoIncrement()];
}

/**
 * SQLite's column types as PostgreSQL should read them. SQLite's `integer` holds 64
 * bits (millisecond timestamps, byte sizes), PostgreSQL's only 32, so it becomes
 * `bigint`. Text compares byte by byte in SQLite; `collate "C"` makes PostgreSQL
 * order and compare it the same way whatever locale the database was made with,
 * so lists sort identically on both stores.
 */
const POSTGRES_TYPES: Record<string, string> = {
  integer: 'bigint',
  text: 'text collate "C"',
  real: 'double precision',
  blob: 'bytea',
};

class PostgresColumnTypes extends OperationNodeTransformer {
  protected override transformDataType(node: DataTypeNode): DataTypeNode {
    const mapped = POSTGRES_TYPES[node.dataType];
    // The compiler writes dataType out verbatim; the collation rides along with the type name.
    return mapped ? ({ ...node, dataType: mapped } as unknown as DataTypeNode) : node;
  }
}

/** Used by the migrations on PostgreSQL (store/database.ts). */
export const postgresColumnTypes: KyselyPlugin = {
  transformQuery: (args: PluginTransformQueryArgs): RootOperationNode => new PostgresColumnTypes().transformNode(args.node),
  transformResult: async (args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> => args.result,
};

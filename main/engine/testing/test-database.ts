// Which store a test's engine uses. By default the SQLite file in its temp data
// folder; with SOLARDESK_TEST_POSTGRES_URL set (main/engine/testing/with-postgres.ts
// sets it), a schema of its own in that PostgreSQL, so the same tests run against
// both stores. The schema's address is kept in the data folder, so a test that
// restarts a server on the same folder gets the same store back.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { TEST_POSTGRES_ENV } from './postgres-for-tests.ts';

const ADDRESS_FILE = 'test-database-url';

export function testPostgresUrl(): string | undefined {
  return process.env[TEST_POSTGRES_ENV] || undefined;
}

/** The `--database` for a test engine on `dataDir`: undefined (SQLite) unless the suite runs on PostgreSQL. */
export function testDatabaseFor(dataDir: string): string | undefined {
  const base = testPostgresUrl();
  if (!base) return undefined;
  const file = path.join(dataDir, ADDRESS_FILE);
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  const url = new URL(base);
  url.searchParams.set('schema', `test_${randomBytes(6).toString('hex')}`);
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(file, url.toString());
  return url.toString();
}

/** Drops the schema a test engine on `dataDir` used, if any. */
export async function dropTestDatabase(dataDir: string): Promise<void> {
  const file = path.join(dataDir, ADDRESS_FILE);
  if (!fs.existsSync(file)) return;
  const url = new URL(fs.readFileSync(file, 'utf8').trim());
  const schema = url.searchParams.get('schema');
  url.searchParams.delete('schema');
  if (!schema) return;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    await client.query(`drop schema if exists "${schema}" cascade`);
  } finally {
    await client.end();
  }
}

/** `args` of a `solardesk` command, plus `--database` for its --data folder's test schema on the PostgreSQL run. */
export function withTestDatabase(args: readonly string[]): string[] {
  const dataIndex = args.indexOf('--data');
  if (dataIndex < 0 || args.includes('--database') || args[dataIndex + 1] === undefined) return [...args];
  const database = testDatabaseFor(args[dataIndex + 1]!);
  return database ? [...args, '--database', database] : [...args];
}

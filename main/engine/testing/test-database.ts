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
import { splitSchema } from '../store/database.ts';

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
  if (fs.existsSync(file)) await dropStoreSchema(fs.readFileSync(file, 'utf8').trim());
}

/** Drops the schema a `...?schema=NAME` store address names, with everything in it. */
export async function dropStoreSchema(database: string): Promise<void> {
  const { connectionString, schema } = splitSchema(database);
  if (!schema) return;
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query(`drop schema if exists "${schema}" cascade`);
  } finally {
    await client.end();
  }
}

/** A client on the store a `...?schema=NAME` address names, for tests that look into its tables. */
export async function connectToStore(database: string): Promise<pg.Client> {
  const { connectionString, schema } = splitSchema(database);
  const client = new pg.Client({ connectionString });
  await client.connect();
  if (schema) await client.query(`set search_path to "${schema}"`);
  return client;
}

/** `args` of a `solardesk` command, plus `--database` for its --data folder's test schema on the PostgreSQL run. */
export function withTestDatabase(args: readonly string[]): string[] {
  const dataIndex = args.indexOf('--data');
  if (dataIndex < 0 || args.includes('--database') || args[dataIndex + 1] === undefined) return [...args];
  const database = testDatabaseFor(args[dataIndex + 1]!);
  return database ? [...args, '--database', database] : [...args];
}

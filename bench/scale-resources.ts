// What bench/scale.bench.ts starts, each stopped again by the scope that started
// it (last in, first out): a throwaway PostgreSQL (or the one
// SOLARDESK_TEST_POSTGRES_URL names), stores as schemas of it, server processes on
// PostgreSQL or SQLite, the round-robin proxy and the webhook receivers.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { ENGINE_LOAD, growSunrise, startBenchEngine, type BenchEngine, type BenchStore } from './bench-servers.ts';
import { DATABASE_URL_ENV } from '../main/cli/cli-args.ts';
import { createEngine } from '../main/engine/engine.ts';
import { seedDemo } from '../main/engine/seed/demo-seed.ts';
import { TEST_POSTGRES_ENV, startThrowawayPostgres } from '../main/engine/testing/postgres-for-tests.ts';
import { dropStoreSchema } from '../main/engine/testing/test-database.ts';
import { startRoundRobinProxy, type RoundRobinProxy } from '../main/engine/testing/round-robin-proxy.ts';
import { UNTHROTTLED_RATES, makeTempDir } from '../main/engine/testing/test-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../main/engine/testing/webhook-receiver.ts';

export type Defer = (stop: () => Promise<void>) => void;

/** Runs `work`, then every stop it deferred, newest first, even when work or a stop fails. */
export async function scoped<T>(work: (defer: Defer) => Promise<T>): Promise<T> {
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async (): Promise<Error[]> => {
    const errors: Error[] = [];
    for (const stop of stops.reverse()) {
      try {
        await stop();
      } catch (error) {
        errors.push(error as Error);
      }
    }
    return errors;
  };
  let value: T;
  try {
    value = await work((stop) => stops.push(stop));
  } catch (error) {
    // The work's own error is the one worth reporting; the stops' errors are only logged.
    for (const stopError of await stopAll()) process.stderr.write(`  stopping after the failure also failed: ${stopError.message}\n`);
    throw error;
  }
  const errors = await stopAll();
  if (errors.length > 0) throw new AggregateError(errors, `stopping the benchmark's processes failed: ${errors.map((error) => error.message).join('; ')}`);
  return value;
}

export interface PostgresServer {
  /** postgres://... of a database where schemas may be created. */
  url: string;
  /** For the notes: its version, and whether it is the throwaway cluster. */
  description: string;
}

export async function startPostgres(defer: Defer): Promise<PostgresServer> {
  const given = process.env[TEST_POSTGRES_ENV];
  let url = given;
  if (!url) {
    const server = await startThrowawayPostgres();
    defer(() => server.stop());
    url = server.url;
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let version: string;
  try {
    version = (await client.query<{ server_version: string }>('show server_version')).rows[0]!.server_version.split(' ')[0]!;
  } finally {
    await client.end();
  }
  const where = given ? `at ${TEST_POSTGRES_ENV}` : 'throwaway cluster on 127.0.0.1 (fsync, synchronous_commit, full_page_writes off)';
  return { url, description: `PostgreSQL ${version} ${where}` };
}

export interface PostgresStore {
  /** The --database of the store: its own schema. */
  database: string;
  /** The --blob-dir every process on the store shares. */
  blobDir: string;
}

/** A fresh schema holding the same data as createBenchStore(ENGINE_LOAD.sunriseProjects): the demo seed, Sunrise grown as bench-servers.ts grows it. */
export async function createPostgresStore(defer: Defer, postgres: PostgresServer, root: string): Promise<PostgresStore> {
  const schema = `bench_scale_${randomBytes(5).toString('hex')}`;
  const url = new URL(postgres.url);
  url.searchParams.set('schema', schema);
  const database = url.toString();
  const blobDir = path.join(root, `${schema}-blobs`);
  defer(() => dropStoreSchema(database));
  const seedDir = path.join(root, `${schema}-seed`);
  const engine = await createEngine({ dataDir: seedDir, database, blobDir, deliverWebhooks: false, dataFolder: 'guest' });
  try {
    await seedDemo(engine.context);
  } finally {
    await engine.close();
  }
  await growSunrise(seedDir, ENGINE_LOAD.sunriseProjects, { database, blobDir });
  return { database, blobDir };
}

/** A temp folder for the processes' data folders and the unthrottled throttle config (as createBenchStore writes it). */
export function benchRoot(defer: Defer): BenchStore {
  const root = makeTempDir('solardesk-bench-scale-');
  const throttleConfig = path.join(root, 'unthrottled.json');
  fs.writeFileSync(throttleConfig, JSON.stringify(UNTHROTTLED_RATES));
  const remove = () => fs.rmSync(root, { recursive: true, force: true });
  defer(async () => remove());
  return { root, dataDir: path.join(root, 'data'), throttleConfig, remove };
}

/** `count` server processes on the PostgreSQL store, each with a data folder of its own and the shared blob folder. */
export async function startPostgresEngines(defer: Defer, root: BenchStore, store: PostgresStore, count: number, extraArgs: string[]): Promise<BenchEngine[]> {
  const engines: BenchEngine[] = [];
  for (let index = 0; index < count; index++) {
    const own: BenchStore = { ...root, dataDir: path.join(root.root, `process-${randomBytes(4).toString('hex')}`), remove: () => {} };
    const engine = await startBenchEngine(own, ['--database', store.database, '--blob-dir', store.blobDir, ...extraArgs]);
    defer(() => engine.stop());
    engines.push(engine);
  }
  return engines;
}

/**
 * The SQLite baseline: its server must not be moved onto PostgreSQL by the
 * environment (SOLARDESK_DATABASE_URL, or the test suite's variable, which
 * startServerProcess turns into a --database for a data folder).
 */
export async function startSqliteEngine(defer: Defer, store: BenchStore, extraArgs: string[]): Promise<BenchEngine> {
  const saved = [TEST_POSTGRES_ENV, DATABASE_URL_ENV].map((name) => [name, process.env[name]] as const);
  for (const [name] of saved) delete process.env[name];
  let engine: BenchEngine;
  try {
    engine = await startBenchEngine(store, extraArgs);
  } finally {
    for (const [name, value] of saved) if (value !== undefined) process.env[name] = value;
  }
  defer(() => engine.stop());
  return engine;
}

export async function startProxy(defer: Defer, engines: BenchEngine[]): Promise<RoundRobinProxy> {
  const proxy = await startRoundRobinProxy(engines.map((engine) => engine.server.baseUrl));
  defer(() => proxy.close());
  return proxy;
}

export async function startReceivers(defer: Defer): Promise<WebhookReceiver[]> {
  const receivers: WebhookReceiver[] = [];
  for (let index = 0; index < 2; index++) {
    const receiver = await startWebhookReceiver();
    defer(() => receiver.close());
    receivers.push(receiver);
  }
  return receivers;
}

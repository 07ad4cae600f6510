// Runs a command with SOLARDESK_TEST_POSTGRES_URL pointing at a PostgreSQL server:
//   node --import tsx main/engine/testing/with-postgres.ts -- <command> [args...]
// An URL already in the environment is used as is (a server the developer runs);
// otherwise a throwaway server lives exactly as long as the command.
import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import pg from 'pg';
import { startThrowawayPostgres, TEST_POSTGRES_ENV } from './postgres-for-tests.ts';

const argv = process.argv.slice(2);
const [command, ...args] = argv[0] === '--' ? argv.slice(1) : argv;
if (!command) {
  console.error('usage: node --import tsx main/engine/testing/with-postgres.ts -- <command> [args...]');
  process.exit(2);
}

let child: ChildProcess | undefined;
let signalled: NodeJS.Signals | undefined;
let stopServer: () => Promise<void> = async () => {};

// Shells report death by signal as 128 + its number; so do we.
const signalCode = (signal: NodeJS.Signals) => 128 + (os.constants.signals[signal] ?? 0);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    signalled ??= signal;
    if (child) {
      child.kill(signal);
      // A command that ignores the signal must not keep the server (and us) alive.
      setTimeout(() => child?.kill('SIGKILL'), 10_000).unref();
    }
    // Before the child exists, startup notices `signalled` once the server is up.
  });
}

async function finish(code: number): Promise<never> {
  try {
    await stopServer();
  } catch (error) {
    console.error(`stopping the test PostgreSQL failed: ${(error as Error).message}`);
  }
  process.exit(code);
}

function runCommand(env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve) => {
    child = spawn(command!, args, { stdio: 'inherit', env });
    child.once('error', (error) => {
      console.error(`cannot run ${command}: ${error.message}`);
      resolve(127);
    });
    child.once('exit', (code, signal) => resolve(code ?? (signal ? signalCode(signal) : 1)));
  });
}

async function serverVersion(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ server_version: string }>('show server_version')).rows[0]!.server_version;
  } finally {
    await client.end();
  }
}

async function main(): Promise<never> {
  if (process.env[TEST_POSTGRES_ENV]) return finish(await runCommand(process.env));

  let url: string;
  try {
    const server = await startThrowawayPostgres();
    url = server.url;
    stopServer = server.stop;
    const version = await serverVersion(url);
    console.log(`== PostgreSQL ${version} for tests on 127.0.0.1:${new URL(url).port}`);
  } catch (error) {
    console.error((error as Error).message);
    // Ctrl-C reaches initdb/pg_ctl too (same process group) and fails the start.
    return finish(signalled ? signalCode(signalled) : 1);
  }
  if (signalled) return finish(signalCode(signalled));
  return finish(await runCommand({ ...process.env, [TEST_POSTGRES_ENV]: url }));
}

await main();

// A real, throwaway PostgreSQL server on 127.0.0.1 for the test suite: its own
// cluster in a temp dir, on a free port, deleted again by stop(). Tests against
// PostgreSQL need the real thing (locking, isolation, SQL dialect), and a private
// cluster means no shared server, no leftovers and no setup on the machine.
import { execFile, execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

export const TEST_POSTGRES_ENV = 'SOLARDESK_TEST_POSTGRES_URL';

const execFileAsync = promisify(execFile);
const NOT_INSTALLED =
  "PostgreSQL's server is not installed: install it with `sudo apt-get install postgresql` (Debian/Ubuntu), " +
  `or point ${TEST_POSTGRES_ENV} at a server where the user may CREATE DATABASE/SCHEMA`;

function hasServerTools(dir: string): boolean {
  return ['initdb', 'pg_ctl'].every((name) => {
    try {
      fs.accessSync(path.join(dir, name), fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Debian installs the server tools off PATH (only client wrappers are on it), so look there first. */
function findBinDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root) : [];
  // Numeric order, so that 15 beats 9.6.
  versions.sort((a, b) => parseFloat(b) - parseFloat(a));
  for (const version of versions) {
    const dir = path.join(root, version, 'bin');
    if (hasServerTools(dir)) return dir;
  }
  try {
    const dir = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    if (dir && hasServerTools(dir)) return dir;
  } catch {
    // No pg_config (or no dev package): fall through to PATH.
  }
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && hasServerTools(dir)) return dir;
  }
  throw new Error(NOT_INSTALLED);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function systemUser(name: string): { uid: number; gid: number } {
  try {
    const id = (flag: string) =>
      Number(execFileSync('id', [flag, name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    throw new Error(
      `running as root, and initdb refuses to run as root; the "${name}" system user (created by Debian's postgresql package) does not exist to run it as instead`,
    );
  }
}

export async function startThrowawayPostgres(options: { log?: (line: string) => void } = {}): Promise<{ url: string; stop(): Promise<void> }> {
  const log = options.log ?? (() => {});
  const binDir = findBinDir();
  // initdb and postgres refuse to run as root; CI containers usually are root.
  const runAs = process.getuid?.() === 0 ? systemUser('postgres') : undefined;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'solardesk-pg-'));
  const dataDir = path.join(dir, 'data');
  const password = crypto.randomBytes(18).toString('hex'); // hex: safe in a URL as is
  const pwFile = path.join(dir, 'pwfile');
  fs.writeFileSync(pwFile, password + '\n', { mode: 0o600 });

  if (runAs) {
    fs.chownSync(dir, runAs.uid, runAs.gid);
    fs.chownSync(pwFile, runAs.uid, runAs.gid);
  }
  const run = async (tool: string, args: string[]): Promise<void> => {
    const file = path.join(binDir, tool);
    const [cmd, argv] = runAs ? ['runuser', ['-u', 'postgres', '--', file, ...args]] : [file, args];
    // cwd: runuser keeps it, and the postgres user may not be able to read ours.
    try {
      await execFileAsync(cmd, argv, { cwd: dir, maxBuffer: 16 * 1024 * 1024 });
    } catch (error) {
      const { stdout = '', stderr = '', message } = error as { stdout?: string; stderr?: string; message: string };
      throw new Error(`${tool} failed: ${message}\n${stdout}${stderr}`.trim(), { cause: error });
    }
  };

  let started = false;
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      try {
        if (started) await run('pg_ctl', ['-D', dataDir, '-m', 'fast', 'stop']);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    })());

  try {
    const initdb = (locale: string) =>
      run('initdb', ['-D', dataDir, '-U', 'solardesk', `--pwfile=${pwFile}`, '--auth=scram-sha-256', '--encoding=UTF8', `--locale=${locale}`]);
    try {
      await initdb('C.UTF-8');
    } catch (error) {
      // Older glibc (and some minimal images) lack the C.UTF-8 locale.
      log(`initdb with C.UTF-8 failed, retrying with locale C: ${(error as Error).message.split('\n')[0]}`);
      fs.rmSync(dataDir, { recursive: true, force: true });
      await initdb('C');
    }

    // The port can be taken between freePort() and postgres binding it; the
    // window is small and pg_ctl then fails loudly rather than using another server.
    const port = await freePort();
    // Quoted for the shell that pg_ctl passes these options through (TMPDIR may have spaces).
    const socketDir = `'${dir.replaceAll("'", `'\\''`)}'`;
    // A throwaway cluster, deleted after the run: durability settings are off for speed,
    // and max_connections is high because suites run in parallel with a pool each.
    const opts = [
      '-c listen_addresses=127.0.0.1',
      `-c port=${port}`,
      `-c unix_socket_directories=${socketDir}`,
      '-c max_connections=400',
      '-c fsync=off',
      '-c synchronous_commit=off',
      '-c full_page_writes=off',
      '-c shared_buffers=128MB',
    ].join(' ');
    started = true; // from here on, stop() must try pg_ctl stop even if start failed halfway
    await run('pg_ctl', ['-D', dataDir, '-l', path.join(dir, 'log'), '-w', '-t', '60', 'start', '-o', opts]);
    log(`PostgreSQL started on 127.0.0.1:${port} (data in ${dataDir})`);

    const admin = new pg.Client({ connectionString: `postgres://solardesk:${password}@127.0.0.1:${port}/postgres` });
    await admin.connect();
    try {
      await admin.query('create database solardesk_test');
    } finally {
      await admin.end();
    }
    return { url: `postgres://solardesk:${password}@127.0.0.1:${port}/solardesk_test`, stop };
  } catch (error) {
    const serverLog = fs.existsSync(path.join(dir, 'log')) ? fs.readFileSync(path.join(dir, 'log'), 'utf8') : '';
    await stop().catch(() => {}); // the start error is the one worth reporting
    if (serverLog) (error as Error).message += `\nserver log:\n${serverLog}`;
    throw error;
  }
}

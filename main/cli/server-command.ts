// `solardesk server`: the engine over HTTP, the "remote instance" desktops sync with.
import fs from 'node:fs';
import path from 'node:path';
import { mergeThrottleRates } from '../engine/throttle/throttle.ts';
import { createEngine } from '../engine/engine.ts';
import { parseObjectStoreAddress } from '../engine/files/object-store-address.ts';
import { seedDemo } from '../engine/seed/demo-seed.ts';
import { CliError, parseOptions, readByteSize, readPort, readPositiveNumber, readStoreOptions } from './cli-args.ts';

export const SERVER_HELP = `Usage: solardesk server [options]

Serves the SolarDesk API engine over HTTP.

Options:
  --port N           Port to listen on (default 8787; 0 picks a free port)
  --host HOST        Address to listen on (default 127.0.0.1)
  --data DIR         Folder for the SQLite store and file blobs (default ./data; created if
                     missing, readable only by you; one process at a time)
  --database URL     Keep the store in PostgreSQL instead of the SQLite file:
                     postgres://USER:PASS@HOST:PORT/DB (or set SOLARDESK_DATABASE_URL,
                     which keeps the password out of the process list). Several
                     server processes on one database act as one server
  --blob-dir DIR     Folder for file contents shared by every server process on the
                     same database (default: the --data folder)
  --blob-store s3://BUCKET/PREFIX?endpoint=URL&region=R&force_path_style=true
                     Keep file contents, upload parts and kept versions in an
                     S3-compatible object store instead (AWS S3, MinIO, Garage, R2,
                     Ceph RGW): server processes on several machines then share
                     only the database and the bucket. Credentials come from
                     AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or the file named
                     by AWS_SHARED_CREDENTIALS_FILE; never from this address.
                     Add &downloads=redirect to answer download links with a 302 to
                     a presigned URL of the store (valid no longer than the link),
                     so the bytes do not pass through the server
  --seed demo        Fill an empty store with the demo orgs, users and projects
                     (a store that already holds data is reused, never seeded twice)
  --public-url URL   Base of the "url" fields in responses (default http://HOST:PORT)
  --log-level LEVEL  fatal, error, warn, info, debug or silent (default info; logs go to stderr)
  --throttle-config FILE
                     JSON file of throttle rates overriding the built-in table, same shape:
                     {"project_partial_update": {"user": "10/min", "org": "10000/day"}, ...}
  --allow-private-webhook-endpoints
                     Deliver webhooks to loopback, private and link-local addresses
                     (refused by default; for self-hosted networks and tests)
  --webhook-pipeline-window N
                     Deliveries of one webhook in flight at once on its connection
                     (default 32; 1 sends each only after the one before was answered,
                     for endpoints that must never see a newer change before a
                     refused one is retried: docs/webhooks.md "Order")
  --max-upload-size BYTES
                     Largest private file one upload may carry: bytes, or with a
                     K, M or G suffix (binary units). Default 2G; larger gets 413
  --upload-expiry-hours N
                     Hours a chunked upload may stay unfinished before its parts
                     are removed (default 24)
  --no-change-feed   Serve no change feed (docs/http-api.md "Change feed"): agents
                     fall back to polling, as against the hosted service
  -h, --help         Show this help

Prints "listening on http://HOST:PORT" when ready. SIGTERM or SIGINT finishes the
requests in flight, closes the database and exits 0.`;

export async function runServerCommand(args: string[]): Promise<number> {
  const { values } = parseOptions(
    args,
    {
      port: { type: 'string' },
      host: { type: 'string' },
      data: { type: 'string' },
      database: { type: 'string' },
      'blob-dir': { type: 'string' },
      'blob-store': { type: 'string' },
      seed: { type: 'string' },
      'public-url': { type: 'string' },
      'log-level': { type: 'string' },
      'throttle-config': { type: 'string' },
      'allow-private-webhook-endpoints': { type: 'boolean' },
      'webhook-pipeline-window': { type: 'string' },
      'max-upload-size': { type: 'string' },
      'upload-expiry-hours': { type: 'string' },
      'no-change-feed': { type: 'boolean' },
    },
    SERVER_HELP,
  );
  if (values.help) {
    console.log(SERVER_HELP);
    return 0;
  }
  if (values.seed !== undefined && values.seed !== 'demo') throw new CliError(`--seed takes "demo", not "${values.seed}".`);
  const port = readPort(values.port, 8787);
  const host = values.host ?? '127.0.0.1';
  const dataDir = path.resolve(values.data ?? 'data');
  const logLevel = values['log-level'] ?? 'info';

  // Listen for the signals first: one that lands while starting up must stop the
  // server gracefully too, not kill it with the OS default.
  const shutdown = waitForShutdownSignal();
  const { database, blobDir } = readStoreOptions(values);
  if (values['blob-store'] !== undefined) {
    try {
      parseObjectStoreAddress(values['blob-store']);
    } catch (error) {
      throw new CliError((error as Error).message);
    }
  }
  const engine = await createEngine({
    dataDir,
    database,
    blobDir,
    blobStore: values['blob-store'],
    publicUrl: values['public-url'],
    logLevel: logLevel === 'silent' ? false : logLevel,
    throttleRates: readThrottleConfig(values['throttle-config']),
    webhookDelivery: { allowPrivateEndpoints: values['allow-private-webhook-endpoints'] === true, ...readPipelineWindow(values['webhook-pipeline-window']) },
    maxUploadBytes: readByteSize('--max-upload-size', values['max-upload-size']),
    uploadExpiryHours: readPositiveNumber('--upload-expiry-hours', values['upload-expiry-hours']),
    changeFeed: values['no-change-feed'] !== true,
  });
  if (values.seed === 'demo') {
    const seeded = await seedDemo(engine.context);
    const where = engine.store.location;
    console.error(seeded ? `seeded the demo data into ${where}` : `${where} already holds data; not seeding it again`);
  }
  let address: string;
  try {
    address = await engine.listen(port, host);
  } catch (error) {
    await engine.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new CliError(`port ${port} on ${host} is in use. Pick another with --port, or --port 0 for any free one.`, 1);
    throw error;
  }
  console.log(`listening on ${address}`);
  await shutdown;
  await engine.close();
  return 0;
}

function readThrottleConfig(file: string | undefined): unknown {
  if (file === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new CliError(`cannot read the throttle config ${file}: ${(error as Error).message}`);
  }
  try {
    mergeThrottleRates(parsed);
  } catch (error) {
    throw new CliError(`throttle config ${file}: ${(error as Error).message}`);
  }
  return parsed;
}

function waitForShutdownSignal(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      resolve();
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
}

function readPipelineWindow(text: string | undefined): { pipelineWindow?: number } {
  const window = readPositiveNumber('--webhook-pipeline-window', text);
  if (window === undefined) return {};
  if (!Number.isInteger(window) || window > 1000) throw new CliError(`--webhook-pipeline-window takes a whole number from 1 to 1000, not "${text}".`);
  return { pipelineWindow: window };
}

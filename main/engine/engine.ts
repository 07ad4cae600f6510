// The engine as a library: open a data folder, get an HTTP app over it. The
// server, the agent and the desktop all start it through createEngine().
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { openSqliteStore, type Store } from './store/database.ts';
import { type Clock, systemClock } from './clock.ts';
import { type EngineContext, OrgCache } from './context.ts';
import { type App, buildApp } from './http/app.ts';

export interface EngineOptions {
  dataDir: string;
  /** Base of the `url` fields; set after listening when not known before. */
  publicUrl?: string;
  clock?: Clock;
  logLevel?: string | false;
  /** How long an org's plan may be cached (service.md 5.4 allows up to 5 minutes). */
  planCacheSeconds?: number;
}

export interface Engine {
  readonly context: EngineContext;
  readonly app: App;
  readonly store: Store;
  /** Starts answering HTTP; returns the address it listens on. */
  listen(port: number, host: string): Promise<string>;
  close(): Promise<void>;
}

const SECRET_FILE = 'server-secret';

/** The secret that signs share links and download URLs, made once per data folder. */
export function loadOrCreateSecret(dataDir: string): Buffer {
  const file = path.join(dataDir, SECRET_FILE);
  try {
    return Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'hex');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const secret = randomBytes(32);
  // 'wx' fails if another process made it first; then use theirs.
  try {
    fs.writeFileSync(file, secret.toString('hex'), { mode: 0o600, flag: 'wx' });
    return secret;
  } catch {
    return Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'hex');
  }
}

export async function createEngine(options: EngineOptions): Promise<Engine> {
  const store = await openSqliteStore(options.dataDir);
  const clock = options.clock ?? systemClock;
  const context: EngineContext = {
    store,
    db: store.db,
    clock,
    publicUrl: (options.publicUrl ?? 'http://127.0.0.1').replace(/\/+$/, ''),
    signingSecret: loadOrCreateSecret(options.dataDir),
    orgs: new OrgCache(store.db, clock, (options.planCacheSeconds ?? 60) * 1000),
  };
  const app = await buildApp(context, { logLevel: options.logLevel ?? false });
  let closed = false;
  return {
    context,
    app,
    store,
    async listen(port, host) {
      await app.listen({ port, host });
      const address = app.server.address();
      const actualPort = typeof address === 'object' && address ? address.port : port;
      const bound = `http://${host.includes(':') ? `[${host}]` : host}:${actualPort}`;
      if (!options.publicUrl) context.publicUrl = bound;
      return bound;
    },
    async close() {
      if (closed) return;
      closed = true;
      await app.close();
      await store.close();
    },
  };
}

// The server the hardening suite attacks: `solardesk server` in its own process on
// 127.0.0.1 over a temp data folder, so a crash is a crash (the process exits) and
// SIGKILL is real. Every byte it writes to stdout and stderr is kept (the secrets
// test reads its logs). Requests are sent with node:http exactly as given: the
// path is not normalised (no URL parsing), and headers and body bytes are the caller's.
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { DEFAULT_THROTTLE_RATES } from '../../shared/throttle-rates.ts';
import { DEMO_PASSWORD, DEMO_USERS } from '../engine/seed/demo-seed.ts';
import { makeTempDir } from '../engine/testing/test-server.ts';
import { repoRoot, solardeskBin } from '../engine/testing/server-process.ts';
import { spawnListening, stopProcess } from './spawn-listening.ts';
import { STOP_WITH_PARENT } from '../testing/child-process.ts';

export type DemoUser = keyof typeof DEMO_USERS;
export const DEMO_USER_KEYS = Object.keys(DEMO_USERS) as DemoUser[];

/**
 * No quota at any scope: the throttle then writes nothing, so any commit the
 * suite sees in the store was made by the request it sent.
 */
export const NO_QUOTAS = Object.fromEntries(Object.keys(DEFAULT_THROTTLE_RATES).map((action) => [action, { user: null, org: null }]));

export interface HardeningServerOptions {
  /** An existing data folder (a restart); otherwise a new temp folder with the demo data. */
  dataDir?: string;
  /** The port to listen on (a restart keeps its address for the clients that saved it); default 0, a free port. */
  port?: number;
  /** Throttle rates as --throttle-config takes them; omitted: the built-in defaults. */
  throttleRates?: Record<string, unknown>;
  logLevel?: 'silent' | 'error' | 'warn' | 'info' | 'debug';
  extraArgs?: string[];
}

export interface RawRequest {
  method: string;
  /** Sent as is: `%2e%2e`, `..` and the like reach the server untouched. */
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Milliseconds before the request counts as hung (a failure). */
  timeoutMs?: number;
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  text: string;
  /** The parsed JSON body, or undefined. */
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- callers index into arbitrary answers
  /**
   * A `text/event-stream` answer: it never ends, so it counts as answered once its
   * status and headers arrived, and is then closed; `body` is empty.
   */
  eventStream: boolean;
}

export interface HardeningServer {
  readonly baseUrl: string;
  readonly port: number;
  readonly dataDir: string;
  readonly child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** True while the process runs. */
  alive(): boolean;
  request(request: RawRequest): Promise<RawResponse>;
  /** Sends bytes on a fresh socket and returns what came back before the server closed it (or the time ran out). */
  rawExchange(bytes: Buffer, options?: { endAfterWrite?: boolean; waitMs?: number }): Promise<string>;
  /** Signs in through /api-token-auth/ (cached per user). */
  tokenFor(user: DemoUser): Promise<string>;
  /** SIGTERM (or the signal given); resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

function writeThrottleConfig(rates: Record<string, unknown>): string {
  const file = path.join(makeTempDir('solardesk-hardening-rates-'), 'rates.json');
  fs.writeFileSync(file, JSON.stringify(rates));
  return file;
}

export async function startHardeningServer(options: HardeningServerOptions = {}): Promise<HardeningServer> {
  const dataDir = options.dataDir ?? path.join(makeTempDir('solardesk-hardening-'), 'data');
  const args = ['server', '--port', String(options.port ?? 0), '--host', '127.0.0.1', '--data', dataDir, '--seed', 'demo', '--log-level', options.logLevel ?? 'silent'];
  const ratesFile = options.throttleRates ? writeThrottleConfig(options.throttleRates) : undefined;
  if (ratesFile) args.push('--throttle-config', ratesFile);
  args.push(...(options.extraArgs ?? []));
  const { child, baseUrl, output } = await spawnListening([solardeskBin, STOP_WITH_PARENT, ...args], { cwd: repoRoot, what: 'the server' });
  if (ratesFile) fs.rmSync(path.dirname(ratesFile), { recursive: true, force: true });
  const port = Number(new URL(baseUrl).port);
  const tokens = new Map<DemoUser, string>();

  const request = (raw: RawRequest) => sendRaw(port, raw);
  return {
    baseUrl,
    port,
    dataDir,
    child,
    output,
    alive: () => child.exitCode === null && child.signalCode === null,
    request,
    rawExchange: (bytes, exchangeOptions) => rawExchange(port, bytes, exchangeOptions),
    async tokenFor(user) {
      const cached = tokens.get(user);
      if (cached) return cached;
      const response = await request(jsonRequest('POST', '/api-token-auth/', { username: DEMO_USERS[user], password: DEMO_PASSWORD }));
      if (response.status !== 200) throw new Error(`sign-in as ${user} failed: ${response.status} ${response.text}`);
      tokens.set(user, response.json.token);
      return response.json.token as string;
    },
    stop: (signal = 'SIGTERM') => stopProcess(child, signal),
  };
}

/** A JSON request, with a bearer token when given. */
export function jsonRequest(method: string, urlPath: string, body?: unknown, token?: string): RawRequest {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  return { method, path: urlPath, headers, body: body === undefined ? undefined : JSON.stringify(body) };
}

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/** A `text/event-stream` answer (the change feed's stream): it stays open until the client leaves. */
export function isEventStream(headers: http.IncomingHttpHeaders): boolean {
  return /^text\/event-stream\b/i.test(String(headers['content-type'] ?? ''));
}

export function sendRaw(port: number, raw: RawRequest): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const timeoutMs = raw.timeoutMs ?? 30_000;
    const request = http.request({ host: '127.0.0.1', port, method: raw.method, path: raw.path, headers: raw.headers, agent: false }, (response) => {
      if (isEventStream(response.headers)) {
        // An event stream never ends: it is answered once its status and headers
        // have arrived. The connection is closed, as a client going away would.
        clearTimeout(timer);
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.alloc(0), text: '', json: undefined, eventStream: true });
        request.destroy();
        return;
      }
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        clearTimeout(timer);
        const body = Buffer.concat(chunks);
        const text = body.toString('utf8');
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body, text, json: parseJson(text), eventStream: false });
      });
      response.on('error', reject);
    });
    const timer = setTimeout(() => {
      request.destroy();
      reject(new Error(`${raw.method} ${raw.path.slice(0, 200)} got no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    request.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    request.end(raw.body);
  });
}

function rawExchange(port: number, bytes: Buffer, options: { endAfterWrite?: boolean; waitMs?: number } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(received);
    }, options.waitMs ?? 2000);
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(received);
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      // The server may reset a connection it refuses; what it said before counts.
      if ((error as NodeJS.ErrnoException).code === 'ECONNRESET') resolve(received);
      else reject(error);
    });
    socket.write(bytes, () => {
      if (options.endAfterWrite ?? true) socket.end();
    });
  });
}

/** The status line's code of a raw HTTP answer, or 0 when there was none. */
export function rawStatus(answer: string): number {
  return Number(/^HTTP\/1\.[01] (\d{3})/.exec(answer)?.[1] ?? 0);
}

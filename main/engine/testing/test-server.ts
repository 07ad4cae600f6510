// A real engine on 127.0.0.1 over a temp data folder, for HTTP-level tests.
// Nothing is faked but the clock, which a test may pass in to move time. With
// SOLARDESK_TEST_POSTGRES_URL set (npm run test:postgres), the store is a fresh
// schema in that PostgreSQL instead of a SQLite file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createEngine, type Engine } from '../engine.ts';
import { seedDemo, DEMO_PASSWORD } from '../seed/demo-seed.ts';
import type { Clock } from '../clock.ts';
import type { DeliveryWorkerOptions } from '../webhooks/delivery-worker.ts';
import { DEFAULT_THROTTLE_RATES } from '../../../shared/throttle-rates.ts';
import { testDatabaseFor, dropTestDatabase } from './test-database.ts';

export interface TestServer {
  readonly baseUrl: string;
  readonly engine: Engine;
  readonly dataDir: string;
  request(method: string, urlPath: string, options?: RequestOptions): Promise<TestResponse>;
  /** Signs in through /api-token-auth/ and returns the token (cached per user). */
  tokenFor(email: string): Promise<string>;
  close(options?: { keepData?: boolean }): Promise<void>;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  /** Sent as is, without JSON encoding. */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed JSON body; undefined when the body is empty or not JSON. */
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests index into arbitrary response shapes
}

/** One HTTP request to a server on 127.0.0.1, its body parsed as JSON when it is JSON. */
export async function requestJson(baseUrl: string, method: string, urlPath: string, options: RequestOptions = {}): Promise<TestResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | Buffer | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${baseUrl}${urlPath}`, { method, headers, body, redirect: 'manual' });
  const text = await response.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

export function makeTempDir(prefix = 'solardesk-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/**
 * Rates so high that tests of other rules are never throttled. Throttle tests pass
 * their own small rates, as `--throttle-config` would.
 */
export const UNTHROTTLED_RATES = Object.fromEntries(
  Object.keys(DEFAULT_THROTTLE_RATES).map((action) => [action, { user: '1000000/min', org: '1000000/min' }]),
);

export interface TestServerOptions {
  seed?: 'demo' | false;
  clock?: Clock;
  planCacheSeconds?: number;
  throttleRates?: unknown;
  webhookDelivery?: Partial<DeliveryWorkerOptions>;
  /** An existing data folder (a restart); a new temp folder otherwise. */
  dataDir?: string;
  maxUploadBytes?: number;
  uploadExpiryHours?: number;
  /** Serve the change feed (default true, as `solardesk server`; false as `--no-change-feed`). */
  changeFeed?: boolean;
  /** File contents in this object store (`--blob-store`), e.g. a test s3rver's (s3rver-for-tests.ts). */
  blobStore?: string;
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? makeTempDir();
  const database = testDatabaseFor(dataDir);
  const engine = await createEngine({
    dataDir,
    database,
    clock: options.clock,
    planCacheSeconds: options.planCacheSeconds,
    throttleRates: options.throttleRates ?? UNTHROTTLED_RATES,
    // Test receivers listen on 127.0.0.1, which production refuses.
    webhookDelivery: { allowPrivateEndpoints: true, ...options.webhookDelivery },
    maxUploadBytes: options.maxUploadBytes,
    uploadExpiryHours: options.uploadExpiryHours,
    changeFeed: options.changeFeed,
    blobStore: options.blobStore,
  });
  if (options.seed !== false && !options.dataDir) await seedDemo(engine.context);
  const baseUrl = await engine.listen(0, '127.0.0.1');
  const tokens = new Map<string, string>();

  const request: TestServer['request'] = (method, urlPath, requestOptions = {}) => requestJson(baseUrl, method, urlPath, requestOptions);

  return {
    baseUrl,
    engine,
    dataDir,
    request,
    async tokenFor(email) {
      const cached = tokens.get(email);
      if (cached) return cached;
      const response = await request('POST', '/api-token-auth/', { body: { username: email, password: DEMO_PASSWORD } });
      if (response.status !== 200) throw new Error(`sign-in as ${email} failed: ${response.status} ${response.text}`);
      tokens.set(email, response.json.token);
      return response.json.token;
    },
    async close(options: { keepData?: boolean } = {}) {
      await engine.close();
      if (options.keepData) return;
      await dropTestDatabase(dataDir);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

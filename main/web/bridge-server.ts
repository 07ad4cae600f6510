// Browser mode's transport: the built renderer plus the bridge over HTTP on
// 127.0.0.1 (shared/bridge-http.ts is the client). Every /bridge/ request must
// carry the per-launch secret; requests naming another host are refused, so a web
// page elsewhere cannot reach the bridge through DNS rebinding either.
import fs from 'node:fs';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { BRIDGE_HTTP, decodeBridgeJson, encodeBridgeJson, formatServerSentEvent } from '../../shared/bridge-http.ts';
import { EVENT_CHANNELS, type BridgeEnvelope } from '../../shared/bridge.ts';
import type { AppCore } from '../core/app-core.ts';
import { CONTENT_SECURITY_POLICY, contentTypeOf, resolveRendererFile } from '../renderer-files.ts';
import { MEDIA_PREFIX } from '../../shared/media-paths.ts';
import type { MediaAnswer } from '../core/media.ts';

export type BridgeCore = Pick<AppCore, 'invoke' | 'events'> & Partial<Pick<AppCore, 'media'>>;

export interface BridgeServerOptions {
  /**
   * `media` answers /media/ (thumbnails and the viewers' contents); without it that
   * route is 404. While a promise, the renderer is served already and the bridge's
   * requests wait for it: the page loads while the core starts (web-command.ts). If it
   * rejects, they are answered 503 with its message.
   */
  core: BridgeCore | Promise<BridgeCore>;
  /** The built renderer; null serves the bridge only. */
  distDir: string | null;
  /** Defaults to a fresh random secret. */
  secret?: string;
  /** How often an idle event stream gets a comment, so proxies and sleeping laptops notice a dead one. */
  keepAliveMs?: number;
}

export interface BridgeServer {
  /** The URL that opens the app: it carries the secret in its fragment, which browsers never send. */
  readonly appUrl: string;
  readonly baseUrl: string;
  readonly secret: string;
  close(): Promise<void>;
}

/** Uploads arrive as base64 inside JSON: a 300 MiB file is about 400 MiB of body. */
const MAX_INVOKE_BODY_BYTES = 512 * 1024 * 1024;

export function isSecretValid(expected: string, given: unknown): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Only our own address: 127.0.0.1, localhost or [::1] with our port. */
export function isLocalHostHeader(host: string | undefined, port: number): boolean {
  return host === `127.0.0.1:${port}` || host === `localhost:${port}` || host === `[::1]:${port}`;
}

/** For Node servers (fastify): a web stream body as a Node stream. */
function nodeBody(body: MediaAnswer['body']): Buffer | Readable | string {
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return Readable.fromWeb(body as NodeReadableStream<Uint8Array>);
}

const securityHeaders = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

/**
 * The renderer's files, kept in memory once read and sent in one write: at launch the
 * page's code (hundreds of KB) is fetched while the core loads, and a file streamed in
 * 64 KB pieces waited for each piece. Read with synchronous calls: libuv's four threads
 * serve the whole process, and at launch the core's folder scan queues hundreds of
 * calls on them that a page file would wait behind. A file rebuilt meanwhile (another
 * size or time) is read again.
 */
class RendererFileCache {
  private readonly files = new Map<string, { size: number; mtimeMs: number; bytes: Buffer }>();

  read(file: string): Buffer {
    const stat = fs.statSync(file);
    const kept = this.files.get(file);
    if (kept && kept.size === stat.size && kept.mtimeMs === stat.mtimeMs) return kept.bytes;
    const bytes = fs.readFileSync(file);
    this.files.set(file, { size: stat.size, mtimeMs: stat.mtimeMs, bytes });
    return bytes;
  }
}

export async function startBridgeServer(options: BridgeServerOptions, port: number): Promise<BridgeServer> {
  const rendererFiles = new RendererFileCache();
  const secret = options.secret ?? randomBytes(32).toString('base64url');
  const app: FastifyInstance = Fastify({ logger: false, bodyLimit: MAX_INVOKE_BODY_BYTES, forceCloseConnections: true });
  let boundPort = port;

  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, decodeBridgeJson(body as string));
    } catch {
      done(Object.assign(new Error('The body is not JSON.'), { statusCode: 400 }), undefined);
    }
  });

  const refuse = (reply: FastifyReply, status: number, message: string) =>
    reply.code(status).type('application/json').send(encodeBridgeJson({ ok: false, error: { code: 'failed', message } } satisfies BridgeEnvelope<never>));

  const coreReady = Promise.resolve(options.core);
  // A core that fails to start is reported by whoever started it; here it only means 503.
  coreReady.catch(() => {});
  /** The core, or null once `reply` has been answered 503 because the core could not start. */
  const coreFor = async (reply: FastifyReply): Promise<BridgeCore | null> => {
    try {
      return await coreReady;
    } catch (error) {
      await refuse(reply, 503, `SolarDesk could not start: ${(error as Error).message}`);
      return null;
    }
  };

  app.addHook('onRequest', async (request, reply) => {
    if (!isLocalHostHeader(request.headers.host, boundPort)) return refuse(reply, 421, 'This server answers only on its own local address.');
    // Media too: thumbnails and contents are the org's private files. The page fetches them with the header (renderer/src/media.ts).
    const isPrivate = request.url.startsWith('/bridge/') || request.url.startsWith(MEDIA_PREFIX);
    if (isPrivate && !isSecretValid(secret, request.headers[BRIDGE_HTTP.secretHeader])) {
      return refuse(reply, 401, 'Missing or wrong SolarDesk secret. Open the URL that `solardesk web` printed.');
    }
  });

  app.post(BRIDGE_HTTP.invokePath, async (request, reply) => {
    const { channel, request: payload } = (request.body ?? {}) as { channel?: unknown; request?: unknown };
    const core = await coreFor(reply);
    if (!core) return reply;
    const envelope = await core.invoke(channel, payload);
    const status = envelope.ok ? 200 : envelope.error.code === 'failed' ? 500 : 400;
    return reply.code(status).type('application/json').send(encodeBridgeJson(envelope));
  });

  app.get(BRIDGE_HTTP.eventsPath, async (request: FastifyRequest, reply: FastifyReply) => {
    const core = await coreFor(reply);
    if (!core) return reply;
    reply.hijack();
    const stream = reply.raw;
    stream.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    // Start from the present: a reloaded page gets the current sync state at once.
    const syncState = core.events.latestOf('sync.state');
    stream.write(syncState ? formatServerSentEvent('sync.state', syncState) : ': connected\n\n');
    const unsubscribers = EVENT_CHANNELS.map((channel) =>
      core.events.subscribe(channel, (payload) => stream.write(formatServerSentEvent(channel, payload))),
    );
    const keepAlive = setInterval(() => stream.write(': ping\n\n'), options.keepAliveMs ?? 15_000);
    request.raw.on('close', () => {
      clearInterval(keepAlive);
      for (const unsubscribe of unsubscribers) unsubscribe();
    });
  });

  app.get(`${MEDIA_PREFIX}*`, async (request, reply) => {
    const core = await coreFor(reply);
    if (!core) return reply;
    if (!core.media) return reply.code(404).send();
    const ifNoneMatch = request.headers['if-none-match'];
    const answer = await core.media(request.url, typeof ifNoneMatch === 'string' ? ifNoneMatch : undefined);
    return reply.code(answer.status).headers({ 'referrer-policy': 'no-referrer', 'cross-origin-resource-policy': 'same-origin', ...answer.headers }).send(nodeBody(answer.body));
  });

  app.get('/*', async (request, reply) => {
    if (!options.distDir) return reply.code(404).send();
    const file = resolveRendererFile(options.distDir, request.url);
    if (!file) return reply.code(404).headers(securityHeaders).type('text/plain').send('Not found.');
    // Hashed asset names never change content; index.html must always be fresh.
    const isHashedAsset = request.url.startsWith('/assets/');
    const bytes = rendererFiles.read(file);
    return reply
      .headers(securityHeaders)
      .header('cache-control', isHashedAsset ? 'public, max-age=31536000, immutable' : 'no-cache')
      .type(contentTypeOf(file))
      .send(bytes);
  });

  await app.listen({ port, host: '127.0.0.1' });
  const address = app.server.address();
  boundPort = typeof address === 'object' && address ? address.port : port;
  const baseUrl = `http://127.0.0.1:${boundPort}`;
  return {
    baseUrl,
    appUrl: `${baseUrl}/#${BRIDGE_HTTP.secretFragmentKey}=${secret}`,
    secret,
    close: () => app.close(),
  };
}

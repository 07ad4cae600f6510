// Builds the Fastify app: JSON parsing that tolerates what real clients send,
// DRF-shaped errors, trailing-slash-insensitive routes, 405 with Allow, and the
// OpenAPI document generated from the same zod schemas that validate requests.
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type RawReplyDefaultExpression,
  type RawRequestDefaultExpression,
  type RawServerDefault,
} from 'fastify';
import swagger from '@fastify/swagger';
import { jsonSchemaTransform, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { responseSerializerCompiler } from './response-schemas.ts';
import { ApiError, DISK_FULL_DETAIL, DISK_FULL_STATUS, drfFieldErrors, isDiskFullError } from './errors.ts';
import type { EngineContext } from '../context.ts';
import { registerRoutes } from '../routes.ts';
import { endConnectionsOnceIdleWhenClosing } from './graceful-close.ts';
import { useListRange } from './list-query.ts';

export interface AppOptions {
  /** pino level, or false for no logging (tests). */
  logLevel?: string | false;
  /** Largest JSON body accepted, in bytes. */
  jsonBodyLimit?: number;
  /** More routes in the org scope (the sync agent's). */
  extraOrgRoutes?: (scope: TypedApp, context: EngineContext) => void;
  /** Serve the change feed's routes (docs/http-api.md "Change feed"); the engine decides. */
  changeFeed?: boolean;
}

export type App = FastifyInstance;
export type TypedApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  ZodTypeProvider
>;

export async function buildApp(context: EngineContext, options: AppOptions = {}): Promise<App> {
  const app = Fastify({
    logger: options.logLevel
      ? {
          level: options.logLevel,
          stream: process.stderr,
          // Paths only: a query string may carry a signed download token. A schedule feed's
          // path is its secret (events/calendar-feed-routes.ts), so that part is left out too.
          serializers: { req: (request: FastifyRequest) => ({ method: request.method, url: loggablePath(request.url) }) },
        }
      : false,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    bodyLimit: options.jsonBodyLimit ?? 2 * 1024 * 1024,
    forceCloseConnections: false,
    return503OnClosing: true,
    // A path that cannot be decoded (`%ff`, a lone `%`) or with a parameter longer than
    // any id names nothing: 404 in DRF's shape, as a malformed id is (not Fastify's own body).
    frameworkErrors: (error, _request, reply) => {
      const answer = reply as FastifyReply;
      if (error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_MAX_PARAM_LENGTH') return answer.code(404).send({ detail: 'Not found.' });
      return answer.code(error.statusCode ?? 500).send({ detail: error.message });
    },
  });
  endConnectionsOnceIdleWhenClosing(app);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(responseSerializerCompiler);
  app.decorateRequest('actor', null);
  // Set by the throttle's hook; null until then (a decorator may not hold a shared array).
  app.decorateRequest('throttleCounted', null as unknown as []);

  acceptJsonLikeRealClients(app);
  answerErrorsLikeDrf(app);
  // `range=[first,last]` on every list, in one place (http/list-query.ts).
  app.addHook('preHandler', async (request) => useListRange(request.query));
  const methodsByRoute = collectRouteMethods(app);

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'SolarDesk API', version: '1', description: 'The solar project service, as served by the SolarDesk engine.' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
    transform: jsonSchemaTransform,
  });
  app.get('/api/schema/', { schema: { hide: true } }, async () => app.swagger());

  await registerRoutes(app.withTypeProvider<ZodTypeProvider>(), context, options.extraOrgRoutes, { changeFeed: options.changeFeed ?? false });
  answerUnknownRoutes(app, methodsByRoute);
  return app;
}

/** A request's path as the log may keep it: no query string, no schedule feed secret. */
function loggablePath(url: string): string {
  return (url.split('?')[0] ?? '').replace(/^\/api\/calendar_feeds\/[^/]*/, '/api/calendar_feeds/<secret>');
}

/** JSON nested deeper than this is refused (deeper input overflowed JSON.stringify's stack: a 500). */
export const MAX_JSON_DEPTH = 100;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const LONE_SURROGATE = /\p{Surrogate}/u;

/**
 * compatibility.md: clients send `Content-Type: application/json` on GET and DELETE
 * with no body, and `; charset=utf-8` on bodies. An empty JSON body is "no body".
 * A body that is not UTF-8, holds a string no UTF-8 store can keep (a lone
 * surrogate escape) or nests past MAX_JSON_DEPTH is a 400: it is never stored
 * altered (U+FFFD in place of the bytes sent) and never reaches a stack overflow.
 */
function acceptJsonLikeRealClients(app: App): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
    const refuse = (problem: string) => done(new ApiError(400, { detail: `JSON parse error - ${problem}` }), undefined);
    let text: string;
    try {
      text = strictUtf8.decode(body as Buffer).trim();
    } catch {
      return refuse('the body is not valid UTF-8.');
    }
    if (text === '') return done(null, undefined);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      return refuse(jsonErrorWithoutInput(error));
    }
    const problem = unstorableJson(value);
    if (problem) return refuse(problem);
    done(null, value);
  });
}

/**
 * V8 quotes a piece of the body in some parse errors (`Unexpected token 's',
 * "secret..." is not valid JSON`), and a body may carry a password: only the
 * messages that name a position, not the input, are passed on.
 */
function jsonErrorWithoutInput(error: unknown): string {
  const message = (error as Error).message;
  return / in JSON at position \d+$/.test(message) || message === 'Unexpected end of JSON input' ? message : 'Unexpected token: the body is not valid JSON.';
}

/** Why a parsed body cannot be stored as sent, or null. Walks it without recursion. */
function unstorableJson(root: unknown): string | null {
  const stack: Array<[unknown, number]> = [[root, 1]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (typeof value === 'string') {
      if (LONE_SURROGATE.test(value)) return 'a string holds an unpaired UTF-16 surrogate (\\ud800-\\udfff).';
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth > MAX_JSON_DEPTH) return `the body is nested more than ${MAX_JSON_DEPTH} levels deep.`;
    for (const [key, child] of Object.entries(value)) {
      if (LONE_SURROGATE.test(key)) return 'a key holds an unpaired UTF-16 surrogate (\\ud800-\\udfff).';
      stack.push([child, depth + 1]);
    }
  }
  return null;
}

function answerErrorsLikeDrf(app: App): void {
  app.setErrorHandler((error: FastifyError | ApiError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof ApiError) {
      return reply.code(error.statusCode).headers(error.headers).send(error.body);
    }
    if (error.validation) {
      // A malformed id in the path is a URL that names nothing: 404, as DRF's router would.
      if (error.validationContext === 'params') return reply.code(404).send({ detail: 'Not found.' });
      return reply.code(400).send(drfFieldErrors(error.validation, error.validationContext));
    }
    const status = error.statusCode ?? 500;
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      // Answered before the body was read, the 413 races the client's upload: the
      // connection closes under a client still writing, which may then see a reset
      // instead of the answer. Reading the rest first (within bounds) lets it arrive.
      return drainRefusedBody(request.raw).then(() => reply.code(413).send({ detail: clientErrorDetail(error) }));
    }
    if (status >= 400 && status < 500) {
      return reply.code(status).send({ detail: clientErrorDetail(error) });
    }
    if (isDiskFullError(error)) {
      // Nothing was saved (the write, or its transaction, failed whole). The rest of an
      // upload is read first, as for a 413, so the client sees the answer, not a reset.
      request.log.error({ err: error }, 'the disk is full');
      return drainRefusedBody(request.raw).then(() => reply.code(DISK_FULL_STATUS).header('retry-after', '60').send({ detail: DISK_FULL_DETAIL }));
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.code(500).send({ detail: 'The server failed to handle this request. It has been logged.' });
  });
}

/** How much of a refused body is read and dropped before answering; past either bound the connection is cut. */
const REFUSED_BODY_DRAIN = { maxBytes: 16 * 1024 * 1024, maxMs: 5_000 };

/** Reads and drops what is left of a request body, up to REFUSED_BODY_DRAIN, as servers do before closing (lingering close). */
function drainRefusedBody(raw: NodeJS.ReadableStream & { readableEnded?: boolean; destroyed?: boolean }): Promise<void> {
  if (raw.readableEnded || raw.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let bytes = 0;
    const done = () => {
      clearTimeout(timer);
      raw.removeListener('data', count);
      raw.removeListener('end', done);
      raw.removeListener('error', done);
      raw.removeListener('close', done);
      resolve();
    };
    const count = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > REFUSED_BODY_DRAIN.maxBytes) done();
    };
    const timer = setTimeout(done, REFUSED_BODY_DRAIN.maxMs);
    raw.on('data', count);
    raw.once('end', done);
    raw.once('error', done);
    raw.once('close', done);
    raw.resume();
  });
}

function clientErrorDetail(error: FastifyError): string {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'Request body is too large.';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'Unsupported media type in request. Send JSON with "Content-Type: application/json".';
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return 'The Content-Length header does not match the body.';
    default:
      return error.message;
  }
}

type RouteMethods = Map<string, { pattern: RegExp; methods: Set<string> }>;

/** Remembers which methods each route pattern answers, for 405 and Allow. */
function collectRouteMethods(app: App): RouteMethods {
  const routes: RouteMethods = new Map();
  app.addHook('onRoute', (route) => {
    const key = route.url.replace(/\/+$/, '');
    let entry = routes.get(key);
    if (!entry) {
      const source = key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z_]+/g, '[^/]+');
      entry = { pattern: new RegExp(`^${source}/?$`), methods: new Set() };
      routes.set(key, entry);
    }
    for (const method of [route.method].flat()) entry.methods.add(method);
  });
  return routes;
}

function answerUnknownRoutes(app: App, routes: RouteMethods): void {
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const allowed = new Set<string>();
    for (const route of routes.values()) if (route.pattern.test(path)) route.methods.forEach((method) => allowed.add(method));
    if (allowed.size > 0) {
      allowed.add('OPTIONS');
      return reply
        .code(405)
        .header('allow', [...allowed].sort().join(', '))
        .send({ detail: `Method "${request.method}" not allowed.` });
    }
    return reply.code(404).send({ detail: 'Not found.' });
  });
}

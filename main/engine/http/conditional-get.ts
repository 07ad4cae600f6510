// Conditional GETs (issue 15) on the lists and details a sync agent polls: every
// answer carries an ETag, and a request whose If-None-Match names it is answered
// 304 with no body and is not counted against the caller's quotas (the throttle's
// count is refunded, as for projects: main/engine/projects/project-routes.ts).
//
// The tag is the route's own record version where it sets one (a detail GET's
// `"<modified_date>"`, which If-Match also takes), else a hash of the answer's
// JSON. Answers that carry signed download links (private files) change with
// every second a link is signed in; their hash leaves the links' signatures out
// and takes in the half hour instead, so a 304 never leaves a client holding a
// link with less than 30 minutes to live (links live an hour: download-links.ts).
// A detail whose body carries links keeps its version tag for If-Match and gets no
// 304 (a client would keep a link that may have expired).
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { EngineContext } from '../context.ts';
import { ifNoneMatchHits } from '../projects/project-json-cache.ts';

/** The org-scoped GET routes (paths under `/api/orgs/:org_id`) that answer If-None-Match here. */
export const CONDITIONAL_GET_ROUTES: readonly string[] = [
  '/',
  '/contacts/',
  '/contacts/:id/',
  '/private_files/',
  '/private_files/:id/',
  '/roles/',
  '/roles/:id/',
  '/workflows/',
  '/workflows/:id/',
  '/file_tags/',
  '/file_tags/:id/',
  '/webhooks/',
  '/webhooks/:id/',
  '/events/',
  '/events/:id/',
  '/changes/',
];

/** The query of a signed download link (download-links.ts: user, expires, signature). */
const SIGNED_LINK_QUERY = /([?&])user=\d+&expires=\d+&signature=[A-Za-z0-9_-]+/g;
/** How long a 304 may keep handing back the links of the answer it stands for. */
const LINK_EPOCH_MS = 30 * 60 * 1000;

export function contentTag(context: EngineContext, payload: string): { tag: string; carriesLinks: boolean } {
  let text = payload;
  let carriesLinks = false;
  if (payload.includes('signature=')) {
    text = payload.replace(SIGNED_LINK_QUERY, (_match, separator: string) => {
      carriesLinks = true;
      return `${separator}signed`;
    });
  }
  const digest = createHash('sha1').update(text);
  if (carriesLinks) digest.update(`\nlinks:${Math.floor(context.clock.now().getTime() / LINK_EPOCH_MS)}`);
  return { tag: `W/"${digest.digest('base64url').slice(0, 27)}"`, carriesLinks };
}

/** Adds the hook to the org scope (`prefix`: the scope's route prefix). */
export function answerConditionalGets(scope: FastifyInstance, context: EngineContext, prefix: string): void {
  const routes = new Set(CONDITIONAL_GET_ROUTES.map((route) => `${prefix}${route === '/' ? '' : route}`));
  routes.add(`${prefix}/`);
  scope.addHook('onSend', async (request, reply, payload) => {
    if (request.method !== 'GET' || reply.statusCode !== 200 || typeof payload !== 'string') return payload;
    if (!routes.has(request.routeOptions.url ?? '')) return payload;
    const own = reply.getHeader('etag');
    const computed = contentTag(context, payload);
    let tag: string;
    if (typeof own === 'string') {
      if (computed.carriesLinks) return payload; // see above: the version tag stays, with no 304
      tag = own;
    } else {
      tag = computed.tag;
      reply.header('etag', tag);
    }
    if (!ifNoneMatchHits(request.headers['if-none-match'], tag)) return payload;
    await context.throttle.refund(request.throttleCounted ?? []);
    request.throttleCounted = [];
    const remaining = reply.getHeader('ratelimit-remaining');
    if (remaining !== undefined) reply.header('ratelimit-remaining', String(Number(remaining) + 1));
    reply.code(304);
    reply.removeHeader('content-type');
    reply.removeHeader('content-length');
    return '';
  });
}

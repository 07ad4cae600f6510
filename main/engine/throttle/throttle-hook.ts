// Applies the throttle to a request: the route names its action in
// `config.throttle` (default: "default"); RateLimit-* headers go on every
// throttled response; over the quota is 429 with Retry-After (compatibility.md).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ThrottleAction } from '../../../shared/throttle-rates.ts';
import { ApiError } from '../http/errors.ts';
import type { CountedSlice, Throttle, ThrottleSubject } from './throttle.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The throttle action this route counts against; "none" for routes that count elsewhere. */
    throttle?: ThrottleAction | 'none';
  }
  interface FastifyRequest {
    /** Where the throttle counted this request, so an answer that costs nothing (304) can take it back. */
    throttleCounted: CountedSlice[];
  }
}

export function throttleActionOf(request: FastifyRequest, fallback: ThrottleAction): ThrottleAction | 'none' {
  return request.routeOptions.config?.throttle ?? fallback;
}

export async function enforceThrottle(
  throttle: Throttle,
  reply: FastifyReply,
  action: ThrottleAction,
  subject: ThrottleSubject,
): Promise<void> {
  const decision = await throttle.admit(action, subject);
  reply.request.throttleCounted = decision.counted;
  if (decision.limit === 0) return; // no quota at any scope
  reply.header('ratelimit-limit', String(decision.limit));
  reply.header('ratelimit-remaining', String(decision.remaining));
  reply.header('ratelimit-reset', String(decision.resetSeconds));
  if (!decision.allowed) {
    throw new ApiError(
      429,
      { detail: `Request was throttled. Expected available in ${decision.resetSeconds} seconds.` },
      { 'retry-after': String(decision.resetSeconds) },
    );
  }
}

/**
 * Answers 304 Not Modified and takes back the request's count: a client checking
 * that what it holds is still current (If-None-Match) is not charged for it.
 */
export async function answerNotModified(throttle: Throttle, request: FastifyRequest, reply: FastifyReply, etag: string): Promise<FastifyReply> {
  await throttle.refund(request.throttleCounted ?? []);
  request.throttleCounted = [];
  const remaining = reply.getHeader('ratelimit-remaining');
  if (remaining !== undefined) reply.header('ratelimit-remaining', String(Number(remaining) + 1));
  return reply.code(304).header('etag', etag).send();
}

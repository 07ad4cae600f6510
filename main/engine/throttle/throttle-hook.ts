// Applies the throttle to a request: the route names its action in
// `config.throttle` (default: "default"); RateLimit-* headers go on every
// throttled response; over the quota is 429 with Retry-After (compatibility.md).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ThrottleAction } from '../../../shared/throttle-rates.ts';
import { ApiError } from '../http/errors.ts';
import type { Throttle, ThrottleSubject } from './throttle.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The throttle action this route counts against; "none" for routes that count elsewhere. */
    throttle?: ThrottleAction | 'none';
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

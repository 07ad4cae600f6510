// Each person's schedule as an iCalendar feed (issue 27 "Beyond the anchors"), a
// SolarDesk extension: a phone calendar subscribes to a secret URL and polls it.
//
//   /api/orgs/<org>/calendar_feed/   GET: is there one; POST: make it (or replace it:
//                                    the old URL stops working); DELETE: revoke it.
//   /api/calendar_feeds/<secret>/schedule.ics   the feed: GET and HEAD, no
//                                    Authorization header (phones cannot send one).
//
// The secret is 32 random bytes; only its SHA-256 is stored (migration 0025). The
// feed is worked out on every fetch as its owner would see it now: the owner must
// still be a member of the org on a plan in force, and only events of projects they
// may still see are in it (access rules change, the feed changes). It holds the
// events their role is a team member of, from FEED_DAYS_BACK days ago onwards,
// archived ones left out. Each fetch counts against the owner's `calendar_feed`
// quota (shared/throttle-rates.ts); a fetch with a secret that names no feed counts
// per client address, like any anonymous request, and is 404, as is a revoked one.
import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { TypedApp } from '../http/app.ts';
import { absoluteUrl, type EngineContext } from '../context.ts';
import { type Actor, actorInOrg, actorOf } from '../auth/actor.ts';
import { hashToken } from '../auth/accounts.ts';
import { notFound } from '../http/errors.ts';
import { SOLARDESK_EXTENSION_TAG, extensionDescription } from '../http/extensions.ts';
import { enforceThrottle } from '../throttle/throttle-hook.ts';
import { nowIso } from '../clock.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { type CalendarFeedJson, calendarFeedJsonSchema } from '../../../shared/schemas/calendar-feed.ts';
import { onlyEventsVisibleTo, onlyEventsWithTeamMember, selectEventViews } from './events.ts';
import { calendarText, loadCalendarDetails } from './event-calendar.ts';

/** How far back the feed reaches: a calendar keeps what it already has, and a phone needs the weeks ahead. */
export const FEED_DAYS_BACK = 90;
/** The most events one feed holds (the soonest-starting first from FEED_DAYS_BACK): bounds the work of one fetch. */
export const FEED_MAX_EVENTS = 2000;
/** How often a calendar is asked to fetch again (X-PUBLISHED-TTL / REFRESH-INTERVAL): well within the quota. */
const FEED_REFRESH_SECONDS = 3600;

const NOT_VALID = 'This calendar feed address is not valid: it was revoked or replaced. Make a new one in SolarDesk and subscribe to that.';
const tags = ['events', SOLARDESK_EXTENSION_TAG];

/** The public half: the feed itself. Outside the org scope: it carries no token. */
export function registerCalendarFeedRoute(app: TypedApp, context: EngineContext): void {
  app.get(
    '/api/calendar_feeds/:secret/schedule.ics',
    {
      // Counted in the handler, once the secret says whose feed it is (routes.ts would count it per address).
      config: { throttle: 'none' },
      schema: {
        tags,
        security: [],
        summary: "A person's schedule as an iCalendar feed, at its secret URL (GET and HEAD; no Authorization header)",
        description: extensionDescription(
          `The events the URL's owner is a team member of, from ${FEED_DAYS_BACK} days ago on (archived ones left out), limited to projects the owner may see now. Read-only. 404 for a URL that was revoked or replaced. Counts in the owner's calendar_feed quota (429 with Retry-After when spent). Make the URL with a POST to the org's calendar_feed/ route.`,
        ),
        params: z.object({ secret: z.string().max(100) }),
      },
    },
    async (request, reply) => {
      const actor = await feedOwner(context, request, reply, request.params.secret);
      const since = new Date(context.clock.now().getTime() - FEED_DAYS_BACK * 86_400_000).toISOString();
      let query = selectEventViews(context.db)
        .where('events.org_id', '=', actor.org.id)
        .where('events.is_archived', '=', 0)
        .where('events.starts_at', 'is not', null)
        .where('events.starts_at', '>=', since);
      query = onlyEventsVisibleTo(onlyEventsWithTeamMember(query, actor.role.id), actor);
      const events = await query.orderBy('events.starts_at').orderBy('events.id').limit(FEED_MAX_EVENTS).execute();
      const person = `${actor.user.first_name} ${actor.user.family_name}`.trim() || actor.user.email;
      const text = calendarText(context, `${actor.org.name}: ${person}'s schedule`, events, await loadCalendarDetails(context.db, events), { refreshSeconds: FEED_REFRESH_SECONDS });
      // Personal data at a URL that is its own key: no shared cache may keep it.
      return reply.type('text/calendar; charset=utf-8').header('cache-control', 'private, no-store').send(text);
    },
  );
}

/** The member whose feed `secret` opens, counted against their quota; 404 for anything else. */
async function feedOwner(context: EngineContext, request: FastifyRequest, reply: FastifyReply, secret: string): Promise<Actor> {
  const feed = await context.db.selectFrom('calendar_feeds').select(['user_id', 'org_id']).where('secret_hash', '=', hashToken(secret)).executeTakeFirst();
  if (!feed) {
    await enforceThrottle(context.throttle, reply, 'anonymous', { user: `ip:${request.ip}`, org: null });
    throw notFound(NOT_VALID);
  }
  await enforceThrottle(context.throttle, reply, 'calendar_feed', { user: String(feed.user_id), org: feed.org_id });
  const user = await context.db.selectFrom('users').selectAll().where('id', '=', feed.user_id).executeTakeFirst();
  if (!user) throw notFound(NOT_VALID);
  try {
    // Whoever left the org, or whose org's plan has lapsed, has no schedule there to show.
    return await actorInOrg(context, user, feed.org_id);
  } catch {
    throw notFound(NOT_VALID);
  }
}

/** The org-scoped half: the caller manages their own feed in this org. */
export function registerCalendarFeedSettingsRoutes(app: TypedApp, context: EngineContext): void {
  const feedOf = (actor: Actor) =>
    context.db.selectFrom('calendar_feeds').select('created_date').where('user_id', '=', actor.user.id).where('org_id', '=', actor.org.id).executeTakeFirst();

  app.get(
    '/calendar_feed/',
    {
      schema: {
        tags,
        summary: 'Whether you have a schedule feed URL in this organisation',
        description: extensionDescription('The URL itself is shown only when it is made (POST): only a hash of its secret is kept.'),
        response: { 200: calendarFeedJsonSchema },
      },
    },
    async (request): Promise<CalendarFeedJson> => {
      const feed = await feedOf(actorOf(request));
      return { exists: feed !== undefined, created_date: feed?.created_date ?? null, url: null };
    },
  );

  app.post(
    '/calendar_feed/',
    {
      schema: {
        tags,
        summary: 'Make your schedule feed URL, or replace it (the old URL stops working)',
        description: extensionDescription(
          'Answers the new URL once: subscribe to it from a phone or desktop calendar (webcal:// or https://). Keep it private: whoever has it sees your schedule until you replace or revoke it.',
        ),
        response: { 201: calendarFeedJsonSchema },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const secret = randomBytes(32).toString('base64url');
      const createdDate = nowIso(context.clock);
      await context.db
        .insertInto('calendar_feeds')
        .values({ user_id: actor.user.id, org_id: actor.org.id, secret_hash: hashToken(secret), created_date: createdDate })
        .onConflict((conflict) => conflict.columns(['user_id', 'org_id']).doUpdateSet({ secret_hash: hashToken(secret), created_date: createdDate }))
        .execute();
      const answer: CalendarFeedJson = { exists: true, created_date: createdDate, url: absoluteUrl(context, apiPaths.calendarFeed(secret)) };
      return reply.code(201).send(answer);
    },
  );

  app.delete(
    '/calendar_feed/',
    {
      schema: {
        tags,
        summary: 'Revoke your schedule feed URL',
        description: extensionDescription('The URL answers 404 from now on. 204 whether or not there was one.'),
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      await context.db.deleteFrom('calendar_feeds').where('user_id', '=', actor.user.id).where('org_id', '=', actor.org.id).execute();
      return reply.code(204).send();
    },
  );
}

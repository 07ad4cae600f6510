// The change feed's routes (issue 15, docs/http-api.md "Change feed"), a SolarDesk
// extension: `GET changes/?after=<cursor>&limit=N` lists what changed after a
// cursor (record references the caller may see), and `GET changes/stream/` is a
// text/event-stream that sends a `hint` with the newest cursor whenever something
// the caller may see has changed, so a client reads the list only when there is
// something to read.
//
// Quotas: the list counts as one `default` request (a 304 is refunded by the
// conditional-GET hook). The stream counts nothing, however long it stays open:
// each user may hold at most MAX_STREAMS_PER_USER streams per server process
// (429 beyond), a stream ends itself after STREAM_LIFETIME_MS (so a revoked token
// or changed role takes effect; the client reconnects), and it ends when the server
// closes, so a SIGTERM never waits for it.
import { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import type { TypedApp } from '../http/app.ts';
import type { EngineContext } from '../context.ts';
import { actorOf, type Actor } from '../auth/actor.ts';
import { ApiError } from '../http/errors.ts';
import { SOLARDESK_EXTENSION_TAG, extensionDescription } from '../http/extensions.ts';
import { headCursor, readChanges } from './change-log.ts';
import { CURSOR_EXPIRED_STATUS, changeListQuerySchema, changeListSchema } from '../../../shared/schemas/change-feed.ts';

export const MAX_STREAMS_PER_USER = 4;
export const STREAM_LIFETIME_MS = 15 * 60 * 1000;
export const HEARTBEAT_MS = 15_000;
/** On a shared PostgreSQL other processes write too: each stream looks at the log this often. */
const SHARED_STORE_POLL_MS = 2_000;
/** Announcements within this are answered by one look at the log. */
const HINT_COALESCE_MS = 50;

export interface ChangeStreamOptions {
  heartbeatMs?: number;
  lifetimeMs?: number;
}

export function registerChangeRoutes(app: TypedApp, context: EngineContext, options: ChangeStreamOptions = {}): void {
  const tags = [SOLARDESK_EXTENSION_TAG];
  app.get(
    '/changes/',
    {
      schema: {
        tags,
        summary: 'What changed after a cursor',
        description: extensionDescription(
          'Record references (model, id, op, project) of every change to a project, contact, event, webhook or private file of the org after `after`, ' +
            'oldest first, leaving out records the caller may not see. Without `after`: no changes, only `next_cursor`, the newest cursor (read everything, then continue from it). ' +
            'Keep `next_cursor` and pass it as `after` next time; ask again at once while `has_more`. ' +
            `A cursor older than the log (kept ${7} days) is answered ${CURSOR_EXPIRED_STATUS} Gone: read everything again and start from a fresh cursor. ` +
            'Counts as one request of the default quota; answers carry an ETag, and a 304 is not counted.',
        ),
        querystring: changeListQuerySchema,
        response: { 200: changeListSchema },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const { after, limit } = request.query;
      if (after === undefined) return { changes: [], next_cursor: String(await headCursor(context.db, actor.org.id)), has_more: false };
      const read = await readChanges(context, actor, Number(after), limit);
      if (read.kind === 'expired') {
        throw new ApiError(CURSOR_EXPIRED_STATUS, {
          detail:
            `The change feed no longer reaches back to cursor ${after} (older changes were pruned). ` +
            'Read every record again, then continue from the next_cursor of a request without `after`.',
        });
      }
      return { changes: read.changes, next_cursor: String(read.nextCursor), has_more: read.hasMore };
    },
  );

  const streams = new Set<() => void>();
  const openByUser = new Map<string, number>();
  (app as unknown as FastifyInstance).addHook('preClose', (done) => {
    for (const end of [...streams]) end();
    done();
  });

  app.get(
    '/changes/stream/',
    {
      config: { throttle: 'none' },
      schema: {
        tags,
        summary: 'Hints when something changed (server-sent events)',
        description: extensionDescription(
          'A `text/event-stream`. First a `ready` event, then a `hint` event whenever a change the caller may see has committed; ' +
            'the data of both is `{"cursor": "<newest cursor>"}`. Read `GET changes/?after=<your cursor>` on a hint. ' +
            `A comment line every ${HEARTBEAT_MS / 1000} s keeps the connection alive. The stream counts against no quota; ` +
            `a user may hold ${MAX_STREAMS_PER_USER} at once (429 beyond), and it ends after ${STREAM_LIFETIME_MS / 60000} minutes and when the server stops: reconnect, with a backoff.`,
        ),
        response: { 200: z.string().describe('text/event-stream') },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const userKey = `${actor.org.id}:${actor.user.id}`;
      const open = openByUser.get(userKey) ?? 0;
      if (open >= MAX_STREAMS_PER_USER) {
        throw new ApiError(
          429,
          { detail: `This user already has ${open} change streams open on this server; close one, or wait for one to end.` },
          { 'retry-after': '60' },
        );
      }
      openByUser.set(userKey, open + 1);
      const cursor = await headCursor(context.db, actor.org.id);
      reply.hijack();
      const raw = reply.raw;
      raw.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' });
      raw.write(`retry: 5000\nevent: ready\ndata: ${JSON.stringify({ cursor: String(cursor) })}\n\n`);
      const stream = new HintStream(context, actor, cursor, (text) => raw.write(text));
      let ended = false;
      const end = () => {
        if (ended) return;
        ended = true;
        streams.delete(end);
        openByUser.set(userKey, (openByUser.get(userKey) ?? 1) - 1);
        if ((openByUser.get(userKey) ?? 0) <= 0) openByUser.delete(userKey);
        stream.stop();
        clearInterval(heartbeat);
        clearTimeout(lifetime);
        raw.end();
      };
      streams.add(end);
      const heartbeat = setInterval(() => raw.write(': heartbeat\n\n'), options.heartbeatMs ?? HEARTBEAT_MS);
      heartbeat.unref();
      const lifetime = setTimeout(end, options.lifetimeMs ?? STREAM_LIFETIME_MS);
      lifetime.unref();
      raw.on('close', end);
      request.raw.on('close', end);
    },
  );
}

/** One open stream: hears the engine's announcements (and, on a shared store, looks at the log) and sends hints. */
class HintStream {
  private readonly unsubscribe: () => void;
  private readonly poll: NodeJS.Timeout | null;
  private timer: NodeJS.Timeout | null = null;
  private checking = false;
  private again = false;
  private stopped = false;

  constructor(
    private readonly context: EngineContext,
    private readonly actor: Actor,
    private cursor: number,
    private readonly send: (text: string) => void,
  ) {
    this.unsubscribe = context.changes.subscribe((changes) => {
      if (changes.some((change) => change.orgId === actor.org.id)) this.soon();
    });
    this.poll = context.store.shared ? setInterval(() => this.soon(), SHARED_STORE_POLL_MS) : null;
    this.poll?.unref();
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe();
    if (this.poll) clearInterval(this.poll);
    if (this.timer) clearTimeout(this.timer);
  }

  private soon(): void {
    if (this.stopped || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.check();
    }, HINT_COALESCE_MS);
    this.timer.unref();
  }

  /** Reads the log after the last hinted cursor; sends a hint when the actor may see any of it. */
  private async check(): Promise<void> {
    if (this.checking) {
      this.again = true;
      return;
    }
    this.checking = true;
    try {
      let visible = false;
      for (let pages = 0; pages < 20 && !this.stopped; pages++) {
        const read = await readChanges(this.context, this.actor, this.cursor, 1000);
        if (read.kind === 'expired') {
          // Pruned past this stream's cursor: hint anyway, the client's list read will say 410.
          this.cursor = read.horizon;
          visible = true;
          break;
        }
        if (read.changes.length > 0) visible = true;
        this.cursor = read.nextCursor;
        if (!read.hasMore) break;
      }
      if (visible && !this.stopped) this.send(`event: hint\ndata: ${JSON.stringify({ cursor: String(this.cursor) })}\n\n`);
    } catch (error) {
      console.error('SolarDesk: a change stream could not read the change log:', error);
    } finally {
      this.checking = false;
      if (this.again) {
        this.again = false;
        this.soon();
      }
    }
  }
}

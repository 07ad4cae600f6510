// Write preconditions (issue 19): a PATCH or PUT may carry `If-Match` with the
// version of the record it was based on, and is refused with 412 when the record
// has moved since, so two clients editing from the same version cannot silently
// overwrite each other. A record's version is its `modified_date`; the detail GET
// and every write's answer send it as the ETag. A request without If-Match is
// answered exactly as before: clients of the hosted service send none.
import { z } from 'zod';
import type { Transaction } from 'kysely';
import type { Database } from '../store/tables.ts';
import type { Clock } from '../clock.ts';
import { nowIso } from '../clock.ts';
import { ApiError } from './errors.ts';

/** Tables whose records carry a version that writes can be conditional on. */
export type VersionedTable = 'projects' | 'contacts' | 'private_files' | 'webhooks' | 'events';

/** The ETag of a record at a version: its modified_date, quoted (RFC 9110 entity-tag). */
export const versionTag = (modifiedDate: string): string => `"${modifiedDate}"`;

/** What a route's OpenAPI entry says about If-Match, 412 and the ETag. */
export const PRECONDITION_DESCRIPTION =
  'Optional precondition: send `If-Match` with the `ETag` of the record (its detail GET and every write answer carry one; it is the quoted `modified_date`, ' +
  'which may also be sent bare). When the record has changed since that version the write is refused with 412 Precondition Failed and the current ETag; ' +
  'read the record again and reapply the change. Without If-Match the write is unconditional.';

/** The request headers a conditional write declares; other headers pass through untouched. */
export const ifMatchHeaders = z
  .object({ 'if-match': z.string().optional().describe('The ETag (or modified_date) the change is based on, or *') })
  .passthrough();

export type IfMatch = { any: true } | { any: false; versions: string[] };

/** Parses If-Match; null when the request carries none (an unconditional write). */
export function readIfMatch(header: string | string[] | undefined): IfMatch | null {
  const text = (Array.isArray(header) ? header.join(',') : (header ?? '')).trim();
  if (text === '') return null;
  if (text === '*') return { any: true };
  const versions = text
    .split(',')
    .map((tag) => tag.trim())
    // A weak tag never matches for If-Match (strong comparison, RFC 9110 13.1.1).
    .filter((tag) => tag !== '' && !tag.startsWith('W/'))
    .map((tag) => (tag.length >= 2 && tag.startsWith('"') && tag.endsWith('"') ? tag.slice(1, -1) : tag));
  return { any: false, versions };
}

/**
 * Inside the write's transaction (so no other write can come between the check and
 * the write): refuses the write with 412 when the record's current version is not
 * one the client named. Returns the current version.
 */
export async function checkPrecondition(trx: Transaction<Database>, table: VersionedTable, id: number, ifMatch: IfMatch | null): Promise<string> {
  // The tables share the shape read here; the cast only picks one for the query builder's types.
  const row = await trx.selectFrom(table as 'projects').select('modified_date').where('id', '=', id).executeTakeFirstOrThrow();
  return requireVersion(row.modified_date, ifMatch);
}

/**
 * checkPrecondition's test, for a write that reads the record's version inside its
 * transaction together with what else it needs (a project's PATCH: its attributes).
 */
export function requireVersion(currentVersion: string, ifMatch: IfMatch | null): string {
  if (ifMatch && !ifMatch.any && !ifMatch.versions.includes(currentVersion)) {
    throw new ApiError(
      412,
      {
        detail:
          `This record has changed since the version in If-Match; it is now at ${versionTag(currentVersion)}. ` +
          'Read it again, reapply your change and send the new ETag.',
      },
      { etag: versionTag(currentVersion) },
    );
  }
  return currentVersion;
}

/**
 * The modified_date for a write that replaces `previous`: now, but always later
 * than the version it replaces, so two writes within one millisecond still make
 * two versions and a precondition on the first cannot pass after the second.
 */
export function nextVersion(clock: Clock, previous: string): string {
  const now = nowIso(clock);
  const previousMs = Date.parse(previous);
  return Number.isFinite(previousMs) && Date.parse(now) <= previousMs ? new Date(previousMs + 1).toISOString() : now;
}

/** Spread into a PATCH or PUT route's schema: documents If-Match, the ETag and the 412 answer. */
export const conditionalWriteSchema = { headers: ifMatchHeaders, description: PRECONDITION_DESCRIPTION } as const;

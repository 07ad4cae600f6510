// Paging and ordering of list endpoints (compatibility.md "Lists"): bare arrays,
// 1-based `page`, `limit` page size, `ordering=[-]field` with unknown fields ignored.
import { z } from 'zod';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 1000;

const positiveInteger = (max: number, fallback: number) =>
  z
    .string()
    .optional()
    .transform((text, context) => {
      if (text === undefined || text === '') return fallback;
      const value = Number(text);
      if (!/^\d{1,9}$/.test(text) || value < 1) {
        context.addIssue({ code: 'custom', message: 'A valid positive integer is required.' });
        return z.NEVER;
      }
      if (value > max) {
        context.addIssue({ code: 'custom', message: `Ensure this value is less than or equal to ${max}.` });
        return z.NEVER;
      }
      return value;
    });

/** The rows a `range=[first,last]` asks for: zero-based, both ends included (hosted docs: API Conventions). */
export class ListRange {
  constructor(
    readonly first: number,
    readonly last: number,
  ) {}

  get size(): number {
    return this.last - this.first + 1;
  }
}

const RANGE_SHAPE = 'Expected a JSON pair of zero-based row indexes [first,last], such as [0,19] for the first 20 rows.';

/**
 * `range`: a URL-encoded JSON pair `[first,last]` (`%5B0%2C19%5D` = the first 20
 * rows). Both indexes are whole numbers from 0, `first <= last`, and a range covers
 * at most MAX_PAGE_SIZE rows, like `limit`. Anything else is a 400 on `range`.
 */
const rangeParam = z
  .string()
  .optional()
  .transform((text, context): ListRange | undefined => {
    if (text === undefined || text === '') return undefined;
    let pair: unknown;
    try {
      pair = JSON.parse(text);
    } catch {
      pair = undefined;
    }
    const isIndex = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
    if (!Array.isArray(pair) || pair.length !== 2 || !isIndex(pair[0]) || !isIndex(pair[1])) {
      context.addIssue({ code: 'custom', message: RANGE_SHAPE });
      return z.NEVER;
    }
    const range = new ListRange(pair[0], pair[1]);
    if (range.first > range.last) {
      context.addIssue({ code: 'custom', message: `The first index (${range.first}) must not be after the last (${range.last}).` });
      return z.NEVER;
    }
    if (range.size > MAX_PAGE_SIZE) {
      context.addIssue({ code: 'custom', message: `A range covers at most ${MAX_PAGE_SIZE} rows; ask for the rest with the next range.` });
      return z.NEVER;
    }
    return range;
  });

/**
 * The paging parameters of every list: `page`, `limit`, `ordering` and `range`.
 * A list spreads this into its querystring schema and pages with
 * `.limit(limit).offset(pageOffset({ page, limit }))`; `range` then works with no
 * more code (useListRange below).
 */
export const pagingQuery = {
  page: positiveInteger(Number.MAX_SAFE_INTEGER, 1),
  limit: positiveInteger(MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE),
  ordering: z.string().optional(),
  range: rangeParam.describe('Rows wanted as a JSON pair of zero-based indexes, both included: [0,19] is the first 20. Takes the place of page and limit.'),
};

export interface Paging {
  page: number;
  limit: number;
}

/** The rows before the page. A page set from a `range` may be fractional (useListRange): the offset is then its first row. */
export const pageOffset = ({ page, limit }: Paging): number => Math.round((page - 1) * limit);

/**
 * Once for every route (http/app.ts, a preHandler hook): a list whose query
 * carried a valid `range` gets `limit` = the range's size and `page` set so that
 * `pageOffset` is the range's first index, so every list that pages with
 * pagingQuery and pageOffset serves `range` as it serves `page`. With `range`,
 * the `page` and `limit` sent are ignored. `page` is then fractional unless the
 * first index is a multiple of the size (`[5,9]`: limit 5, page 2; `[5,6]`:
 * limit 2, page 3.5); pageOffset rounds away floating-point error.
 */
export function useListRange(query: unknown): void {
  if (typeof query !== 'object' || query === null) return;
  const paging = query as { range?: unknown; page?: unknown; limit?: unknown };
  if (!(paging.range instanceof ListRange)) return;
  paging.limit = paging.range.size;
  paging.page = paging.range.first / paging.range.size + 1;
}

/**
 * The column and direction an `ordering` parameter names, if it names one of the
 * allowed fields; otherwise the default. Only allowed names reach SQL.
 */
export function readOrdering<Field extends string>(
  ordering: string | undefined,
  allowed: readonly Field[],
  fallback: { field: Field; direction: 'asc' | 'desc' },
): { field: Field; direction: 'asc' | 'desc' } {
  const first = ordering?.split(',')[0]?.trim() ?? '';
  const descending = first.startsWith('-');
  const name = descending ? first.slice(1) : first;
  const field = allowed.find((candidate) => candidate === name);
  return field ? { field, direction: descending ? 'desc' : 'asc' } : fallback;
}

export const idParam = z.string().regex(/^\d{1,15}$/).transform(Number);

/**
 * `search` of the list routes: at most 200 characters and no NUL, which DRF refuses
 * too ("Null characters are not allowed."): SQLite's LIKE stops at a NUL, so a
 * search for "\0" matched every record.
 */
export const searchParam = () =>
  z
    .string()
    .max(200)
    .refine((text) => !text.includes('\u0000'), 'Null characters are not allowed.')
    .optional();

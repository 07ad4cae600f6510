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

export const pagingQuery = {
  page: positiveInteger(Number.MAX_SAFE_INTEGER, 1),
  limit: positiveInteger(MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE),
  ordering: z.string().optional(),
};

export interface Paging {
  page: number;
  limit: number;
}

export const pageOffset = ({ page, limit }: Paging): number => (page - 1) * limit;

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

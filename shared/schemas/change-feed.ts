// SolarDesk's change feed (docs/http-api.md "Change feed"): what changed in an org
// after a cursor, as record references, and the hint events of its push stream.
// The engine answers with these schemas and the sync agent reads with them.
import { z } from 'zod';

export const CHANGE_MODELS = ['project', 'contact', 'event', 'webhook', 'private_file'] as const;
export type ChangeModel = (typeof CHANGE_MODELS)[number];

/** A cursor is an opaque string of digits: the position in the org's log. */
export const cursorSchema = z.string().regex(/^\d{1,15}$/);

export const changeEntrySchema = z.object({
  cursor: cursorSchema.describe('this change\'s place in the log; pass the last one read as `after`'),
  model: z.enum(CHANGE_MODELS),
  id: z.number().int(),
  op: z.enum(['create', 'update', 'delete']),
  project_id: z.number().int().nullable().describe('the project the record is (or was) part of; null when none'),
  modified_date: z.string().describe('the record\'s modified_date after the change (the time of the change for a delete)'),
});
export type ChangeEntry = z.infer<typeof changeEntrySchema>;

export const changeListSchema = z.object({
  changes: z.array(changeEntrySchema),
  next_cursor: cursorSchema.describe('where the next request continues (`after`); also when no change was visible to the caller'),
  has_more: z.boolean().describe('true when more changes follow next_cursor: ask again at once'),
});
export type ChangeList = z.infer<typeof changeListSchema>;

export const changeListQuerySchema = z.object({
  after: cursorSchema.optional().describe('the cursor read last; absent: no changes, only the newest cursor to start from'),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

/** The data of a `hint` (or the first `ready`) event of the stream. */
export const changeHintSchema = z.object({ cursor: cursorSchema });
export type ChangeHint = z.infer<typeof changeHintSchema>;

/** The status the change list answers when the cursor is older than the log: read everything again. */
export const CURSOR_EXPIRED_STATUS = 410;

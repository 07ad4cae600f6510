// Files on demand (issue 15): the answers of the agent's contents routes on the
// local API (main/sync/contents-routes.ts; paths in shared/api-paths.ts syncPaths).
import { z } from 'zod';

/** One file's contents: here, or on the remote, and what fetching them costs. */
export const fileContentsJsonSchema = z.object({
  id: z.number().int(),
  here: z.boolean().describe('its bytes are on this computer'),
  link_expires_at: z
    .string()
    .nullable()
    .describe("until when fetching it is free (the remote's signed link is still good); null: fetching costs one of today's file requests"),
});
export type FileContentsJson = z.infer<typeof fileContentsJsonSchema>;

export const KEPT_REASONS = ['role', 'pinned', 'opened', 'everything'] as const;
export type KeptReasonJson = (typeof KEPT_REASONS)[number];

/** GET .../sync/contents/projects/<id>/ and the answer of its pin route. */
export const projectContentsJsonSchema = z.object({
  project_id: z.number().int(),
  kept: z.boolean().describe("this project's files are kept on this computer (and written into its folder)"),
  reasons: z.array(z.enum(KEPT_REASONS)).describe('why: you hold a role in it, pinned it, opened it recently, or every project is kept'),
  pinned: z.boolean(),
  opened_days: z.number().int().describe('an opened project is kept this many days (0: opening keeps nothing)'),
  files: z.array(fileContentsJsonSchema),
});
export type ProjectContentsJson = z.infer<typeof projectContentsJsonSchema>;

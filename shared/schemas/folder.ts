// The folder watcher's status (GET .../sync/folder/, main/watch/watcher.ts): each
// file waiting, uploading or failed and why; what it ignores and will not touch.
import { z } from 'zod';

export const FOLDER_FILE_STATES = ['waiting', 'attaching', 'uploading', 'failed', 'delete_held', 'downloading'] as const;
export type FileState = (typeof FOLDER_FILE_STATES)[number];

export const folderFileStatusJsonSchema = z.object({
  path: z.string().describe('relative to the root, with "/" separators'),
  project_id: z.number().int().nullable(),
  file_id: z.number().int().nullable(),
  state: z.enum(FOLDER_FILE_STATES),
  reason: z.string(),
  bytes_sent: z.number().int().optional(),
  bytes_total: z.number().int().optional(),
});
export type FolderFileStatus = z.infer<typeof folderFileStatusJsonSchema>;

const pathWithReason = z.object({ path: z.string(), reason: z.string() });

/** The watcher's answer while project folders are on. */
export const folderWatcherStatusJsonSchema = z.object({
  enabled: z.literal(true),
  root: z.string(),
  state: z.enum(['starting', 'watching', 'root_missing', 'root_empty', 'stopped']),
  detail: z.string().nullable(),
  quiet: z.boolean().describe('nothing queued, stabilising, pending or being written: the folders match what the watcher has seen'),
  confirm_deletes: z.boolean(),
  stability_window_ms: z.number().int(),
  project_folders: z.number().int(),
  attached_files: z.number().int(),
  last_rescan_at: z.string().nullable(),
  next_rescan_at: z.string().nullable(),
  files: z.array(folderFileStatusJsonSchema),
  ignored: z.array(pathWithReason),
  outside: z.array(pathWithReason),
  refused: z.array(pathWithReason).describe('links, devices and project folders that are links: never read, never written into'),
  guards: z.array(z.object({ scope: z.string(), lost: z.number().int(), total: z.number().int(), at: z.string() })),
  recent: z.array(z.string()),
  counts: z.record(z.string(), z.number().int()),
});
export type FolderStatus = z.infer<typeof folderWatcherStatusJsonSchema>;

/** GET .../sync/folder/: the watcher's status, or `{enabled: false}` when project folders are off. */
export const folderStatusJsonSchema = z.discriminatedUnion('enabled', [z.object({ enabled: z.literal(false) }), folderWatcherStatusJsonSchema]);
export type FolderStatusJson = z.infer<typeof folderStatusJsonSchema>;

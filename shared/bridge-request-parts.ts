// The pieces the bridge's request schemas share (`invokeChannels` in
// shared/bridge.ts builds each channel's schema from them). They are made from the
// zod handed in, so neither this file nor bridge.ts loads zod: the preload bundles
// them, and shared/bridge-schemas.ts hands in the real zod.
import type { z as ZodNamespace } from 'zod';
import { HTTP_METHODS, THEMES } from './bridge.ts';
import { MAX_DOWNLOAD_HOSTS, readDownloadHostList } from './download-hosts.ts';
import { type TransferCaps, transferCapsProblem } from './transfer-caps.ts';
import { ACTIVITY_KINDS, ACTIVITY_PAGE_MAX } from './activity.ts';

type Zod = typeof ZodNamespace;

/** The pieces the request schemas share, built from the zod that shared/bridge-schemas.ts hands in. */
export function requestSchemaParts(z: Zod) {
  const positiveId = z.number().int().positive();
  const fileName = z.string().min(1).max(255);
  return {
    z,
    positiveId,
    fileName,
    /** A channel that takes nothing: no request, or an empty object. */
    empty: z.object({}).strict().optional(),
    // Typed as any Uint8Array (a Node Buffer too), as the transports hand them over.
    bytes: z.instanceof(Uint8Array) as ZodNamespace.ZodType<Uint8Array>,
    /** What a document is made of, as generate_document's query names it (shared/documents.ts checks the values again in the engine). */
    documentChoice: {
      documentType: z.string().regex(/^[a-z0-9_]{1,64}$/),
      fileFormat: z.enum(['pdf', 'csv']).optional(),
      systemUuid: z.string().min(1).max(64).optional(),
      paymentOptionId: positiveId.optional(),
      documentTemplateId: positiveId.optional(),
    },
    engineUploadId: z.string().regex(/^[0-9a-f]{32}$/, 'uploadId must be the id files.uploadStart answered'),
    apiRequest: z
      .object({
        method: z.enum(HTTP_METHODS),
        path: z
          .string()
          .regex(/^\/api\/[A-Za-z0-9_\-/.]*$/, 'path must be a local API path starting with /api/')
          .refine((path) => !path.split('/').includes('..'), 'path may not contain ".."'),
        query: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null(), z.undefined()])).optional(),
        body: z.unknown().optional(),
      })
      .strict(),
    settingsPatch: z
      .object({
        remoteUrl: z.string().url().nullable(),
        username: z.string().max(320).nullable(),
        orgId: positiveId.nullable(),
        folderRoot: z.string().min(1).max(4096),
        folderRootChosen: z.boolean(),
        downloadHosts: z
          .array(z.string().max(300))
          .max(MAX_DOWNLOAD_HOSTS)
          // Kept as the shared rule reads them: lower case, each once.
          .transform((hosts, context) => {
            const reading = readDownloadHostList(hosts.join(','));
            if (reading.error !== null) context.addIssue({ code: 'custom', message: reading.error });
            return reading.hosts ?? [];
          }),
        localWebhooks: z.boolean(),
        transferCaps: z
          .object({
            uploadKBps: z.number().nullable(),
            downloadKBps: z.number().nullable(),
            hours: z.object({ from: z.string().max(5), to: z.string().max(5) }).strict().nullable(),
            metered: z.boolean(),
          })
          .strict()
          // The rule is the shared one, so the sentence is the one Settings shows beside the field.
          .superRefine((caps: TransferCaps, context) => {
            const problem = transferCapsProblem(caps);
            if (problem !== null) context.addIssue({ code: 'custom', message: problem });
          }),
        theme: z.enum(THEMES),
        notifications: z.object({ conflict: z.boolean(), held_delete: z.boolean(), transfer_failed: z.boolean(), quota_stop: z.boolean() }).strict(),
      })
      .partial()
      .strict(),
    /** The activity log's page: words to find, a project, kinds, and where the last page ended (shared/activity.ts ActivityQuery). */
    activityQuery: z
      .object({
        search: z.string().max(200).optional(),
        projectId: positiveId.optional(),
        kinds: z.array(z.enum(ACTIVITY_KINDS)).max(ACTIVITY_KINDS.length).optional(),
        beforeId: positiveId.optional(),
        limit: z.number().int().min(1).max(ACTIVITY_PAGE_MAX).optional(),
      })
      .strict()
      .optional(),
  };
}

export type RequestSchemaParts = ReturnType<typeof requestSchemaParts>;

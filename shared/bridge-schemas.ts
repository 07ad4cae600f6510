// The bridge's requests as zod schemas: main/bridge-dispatch.ts checks every
// request against them before a handler runs, whichever transport brought it.
import { z } from 'zod';
import { HTTP_METHODS, THEMES, type InvokeChannel } from './bridge.ts';
import { MAX_DOWNLOAD_HOSTS, readDownloadHostList } from './download-hosts.ts';

const emptyRequest = z.object({}).strict().optional();
const positiveId = z.number().int().positive();
const engineUploadId = z.string().regex(/^[0-9a-f]{32}$/, 'uploadId must be the id files.uploadStart answered');

const apiRequestSchema = z
  .object({
    method: z.enum(HTTP_METHODS),
    path: z
      .string()
      .regex(/^\/api\/[A-Za-z0-9_\-/.]*$/, 'path must be a local API path starting with /api/')
      .refine((path) => !path.split('/').includes('..'), 'path may not contain ".."'),
    query: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null(), z.undefined()])).optional(),
    body: z.unknown().optional(),
  })
  .strict();

const settingsPatchSchema = z
  .object({
    remoteUrl: z.string().url().nullable(),
    username: z.string().max(320).nullable(),
    orgId: positiveId.nullable(),
    folderRoot: z.string().min(1).max(4096),
    downloadHosts: z
      .array(z.string().max(300))
      .max(MAX_DOWNLOAD_HOSTS)
      // Kept as the shared rule reads them: lower case, each once.
      .transform((hosts, context) => {
        const reading = readDownloadHostList(hosts.join(','));
        if (reading.error !== null) context.addIssue({ code: 'custom', message: reading.error });
        return reading.hosts ?? [];
      }),
    theme: z.enum(THEMES),
  })
  .partial()
  .strict();

export const bridgeRequestSchemas = {
  'session.get': emptyRequest,
  'api.request': apiRequestSchema,
  'files.upload': z
    .object({
      uploadId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
      projectId: positiveId,
      fileName: z.string().min(1).max(255),
      bytes: z.instanceof(Uint8Array),
      title: z.string().max(255).optional(),
    })
    .strict(),
  'files.uploadStart': z
    .object({
      projectId: positiveId,
      fileName: z.string().min(1).max(255),
      size: z.number().int().nonnegative(),
      title: z.string().max(255).optional(),
    })
    .strict(),
  'files.uploadPart': z.object({ uploadId: engineUploadId, fileName: z.string().min(1).max(255), part: z.number().int().min(1).max(10_000), bytes: z.instanceof(Uint8Array) }).strict(),
  'files.uploadFinish': z.object({ uploadId: engineUploadId, fileName: z.string().min(1).max(255) }).strict(),
  'files.uploadCancel': z.object({ uploadId: engineUploadId }).strict(),
  'files.download': z.object({ fileId: positiveId }).strict(),
  'files.downloadVersion': z.object({ fileId: positiveId, versionId: positiveId }).strict(),
  'files.replaceContents': z.object({ fileId: positiveId, fileName: z.string().min(1).max(255), bytes: z.instanceof(Uint8Array) }).strict(),
  'files.open': z.object({ fileId: positiveId }).strict(),
  'files.showInFolder': z.object({ fileId: positiveId }).strict(),
  'files.photoInfo': z.object({ fileId: positiveId }).strict(),
  'folder.open': z.object({ projectId: positiveId.optional() }).strict(),
  'settings.get': emptyRequest,
  'settings.set': settingsPatchSchema,
  'settings.chooseFolder': z.object({ defaultPath: z.string().max(4096).optional() }).strict().optional(),
  'auth.signIn': z
    .object({
      remoteUrl: z.string().url(),
      username: z.string().min(1).max(320),
      password: z.string().min(1).max(1024),
      orgId: positiveId.optional(),
    })
    .strict(),
  'auth.signOut': z.object({ confirm: z.boolean().optional() }).strict().optional(),
  'workspace.switch': z.object({ workspace: z.enum(['remote', 'local']) }).strict(),
  'localWork.list': emptyRequest,
  'localWork.send': z
    .object({ keys: z.array(z.string().regex(/^(project|contact|private_file|webhook):\d{1,15}$/)).min(1).max(10_000) })
    .strict(),
  'localWork.keep': emptyRequest,
  'photos.check': z.object({ projectId: positiveId }).strict(),
  'inbox.list': emptyRequest,
  'inbox.attach': z.object({ name: z.string().min(1).max(1024), projectId: positiveId }).strict(),
  'inbox.undo': z.object({ entryId: z.string().uuid() }).strict(),
} as const satisfies Record<InvokeChannel, z.ZodType>;

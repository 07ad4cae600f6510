// Private files (service.md 2.2, 4.2), their tags, and chunked uploads: what a
// client may write and what it gets back. The engine validates with these, the
// OpenAPI document is generated from them, and the renderer reads the types.
import { z } from 'zod';
import { booleanField, integerField, stringField } from './coercing-fields.ts';

const reference = () => z.union([z.string(), z.number()], { error: 'Incorrect type. Expected URL string.' });

const title = () =>
  stringField()
    .refine((text) => text.trim() !== '', 'This field may not be blank.')
    .refine((text) => text.length <= 255, 'Ensure this field has no more than 255 characters.');

/** PATCH /private_files/<id>/: unknown and read-only keys are ignored, as DRF does. */
export const privateFilePatchSchema = z.object({
  title: title().optional(),
  show_customer: booleanField().optional(),
  /** A project URL, relative path or id; null detaches the file. */
  project: reference().nullable().optional(),
  /** File tag URLs or ids; replaces the file's tags. */
  file_tags: z.array(reference(), { error: 'Expected a list of URLs.' }).optional(),
});
export type PrivateFilePatch = z.output<typeof privateFilePatchSchema>;

const atMost255 = 'Ensure this field has no more than 255 characters.';

/**
 * A generated document's fields (service.md 2.2), which a new file may be given
 * however it goes up: as parts of the multipart create, or at the start of a chunked
 * upload (docs/files.md). None is required; the engine checks input_data_hash
 * against input_data (main/engine/files/document-fields.ts).
 */
export const documentFileFieldsSchema = z.object({
  system_uuid: z.string().max(255, atMost255).optional().describe("a generated document's system"),
  input_data: z.string().optional().describe('what a generated document was made from, as JSON text'),
  input_data_hash: z.string().optional().describe('the sha256 of input_data as JSON; computed when left out, checked when sent'),
  status: z.string().max(255, atMost255).optional().describe('default "created"'),
});
export type DocumentFileFields = z.output<typeof documentFileFieldsSchema>;

/**
 * The text fields of the multipart create (the file itself is the `file_contents`
 * part). Documented here for OpenAPI; the route reads the parts as they stream.
 */
export const privateFileCreateFormSchema = z.object({
  file_contents: z.string().meta({ format: 'binary' }).optional().describe('required: the file, as a file part of the multipart body'),
  title: z.string().optional().describe("defaults to the file's name"),
  project: z.string().optional().describe('a project URL, relative path or id to attach the file to'),
  show_customer: z.string().optional().describe('true or false'),
  file_tags: z.string().optional().describe('comma list of file tag ids or URLs'),
  ...documentFileFieldsSchema.shape,
});

export const fileTagCreateSchema = z.object({
  title: title(),
  type: z.string().max(50).optional(),
});

/** POST /private_files/uploads/: starts a chunked, resumable upload. */
export const uploadCreateSchema = z.object({
  filename: stringField().refine((text) => text.trim() !== '', 'This field may not be blank.'),
  title: title().optional(),
  project: reference().nullable().optional(),
  /** The whole file's size, when known: checked against the limit now and against the parts on completion. */
  size: integerField().refine((size) => size >= 0, 'Ensure this value is greater than or equal to 0.').nullable().optional(),
  /** A generated document's fields, kept with the session and given to the file on completion. */
  ...documentFileFieldsSchema.shape,
});
export type UploadCreate = z.output<typeof uploadCreateSchema>;

export const fileTagJsonSchema = z.object({
  url: z.string(),
  title: z.string(),
  type: z.string(),
  id: z.number().int(),
});
export type FileTagJson = z.infer<typeof fileTagJsonSchema>;

export const uploadPartJsonSchema = z.object({
  part: z.number().int(),
  size: z.number().int(),
  etag: z.string().describe('sha256 of the part, hex'),
});

/** service.md 2.2, every field with its type. */
export const privateFileJsonSchema = z.object({
  url: z.string(),
  id: z.number().int(),
  org: z.string(),
  project: z.string().nullable(),
  user: z.string(),
  document_template: z.string().nullable(),
  title: z.string(),
  file_contents: z.string().describe('signed download URL, valid for one hour, no Authorization header needed'),
  filesize: z.number().int().nullable(),
  file_tags: z.array(z.string()),
  file_tags_data: z.array(fileTagJsonSchema),
  system_uuid: z.string().nullable(),
  input_data: z.unknown(),
  input_data_hash: z.string(),
  file_hash: z.string().nullable(),
  status: z.string().nullable(),
  status_message: z.string().nullable(),
  show_customer: z.boolean(),
  temporary: z.boolean(),
  upload_id: z.string(),
  parts: z.array(uploadPartJsonSchema),
  completed_on: z.string().describe('when the upload completed: the creation time, or the completion of a chunked upload'),
  created_date: z.string(),
  modified_date: z.string(),
});
export type PrivateFileJson = z.infer<typeof privateFileJsonSchema>;

export const uploadJsonSchema = z.object({
  upload_id: z.string(),
  url: z.string(),
  title: z.string(),
  filename: z.string(),
  project: z.string().nullable(),
  size: z.number().int().nullable(),
  parts: z.array(uploadPartJsonSchema),
  received_bytes: z.number().int(),
  status: z.enum(['open', 'completed']),
  private_file: z.string().nullable(),
  created_date: z.string(),
  expires_at: z.string(),
  document_fields: z
    .object({
      system_uuid: z.string().nullable(),
      input_data: z.unknown().describe('as JSON; null when the start sent none'),
      input_data_hash: z.string().nullable(),
      status: z.string().nullable().describe('the status the file gets ("created" unless the start sent one)'),
    })
    .nullable()
    .describe("a generated document's fields the start sent, which the completed file gets; null when it sent none"),
});
export type UploadJson = z.infer<typeof uploadJsonSchema>;

/**
 * PUT /private_files/<id>/contents/ (SolarDesk's extension): the multipart body's
 * parts, documented here for OpenAPI; the route reads them as they stream.
 */
export const privateFileContentsFormSchema = z.object({
  file_contents: z.string().meta({ format: 'binary' }).optional().describe("required: the new contents, as a file part; its file name becomes the file's"),
});

/** One earlier contents of a private file, kept on this computer (GET .../versions/). */
export const privateFileVersionJsonSchema = z.object({
  id: z.number().int(),
  /** The file it is a version of. */
  file: z.string(),
  file_id: z.number().int(),
  file_name: z.string(),
  content_type: z.string(),
  filesize: z.number().int(),
  file_hash: z.string(),
  /** When these contents were replaced: the version's date. */
  replaced_at: z.string(),
  /** The user who replaced them; null when sync brought the new contents or the user is gone. */
  replaced_by: z.string().nullable(),
  replaced_by_name: z.string().nullable(),
  /** GET with the token: the version's bytes. */
  contents: z.string(),
  /** POST: makes this version the file's contents again. */
  restore: z.string(),
});
export type PrivateFileVersionJson = z.infer<typeof privateFileVersionJsonSchema>;

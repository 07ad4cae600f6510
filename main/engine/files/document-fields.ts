// A generated document's fields on a new file (service.md 2.2; docs/files.md
// "Create" and "Chunked uploads"): checked once, here, whether they come as parts of
// the multipart create or at the start of a chunked upload, so a document keeps them
// however it goes up (docs/sync.md "Generated documents and tags made here").
import type { DocumentFileFields, UploadJson } from '../../../shared/schemas/private-file.ts';
import type { FieldErrors } from '../http/errors.ts';
import { inputDataHashOf } from '../documents/document-inputs.ts';
import type { NewFileRecord } from './file-service.ts';

export type DocumentFields = Pick<NewFileRecord, 'systemUuid' | 'inputData' | 'inputDataHash' | 'status'>;

/**
 * The document fields sent, as a new file's: input_data parsed from JSON text, and its
 * hash checked against it (or computed), so a save's lookup by hash stays true.
 * Problems go into `errors`, so the caller answers one 400 for all of them.
 */
export function documentFieldsOf(fields: DocumentFileFields, errors: FieldErrors): DocumentFields {
  const described: DocumentFields = {};
  if (fields.system_uuid !== undefined) described.systemUuid = fields.system_uuid.trim() || null;
  if (fields.status !== undefined) described.status = fields.status.trim() || null;
  if (fields.input_data !== undefined) {
    try {
      described.inputData = JSON.parse(fields.input_data);
    } catch {
      errors.input_data = ['Value must be valid JSON.'];
      return described;
    }
  }
  if (fields.input_data_hash !== undefined) {
    const hash = fields.input_data_hash.trim().toLowerCase();
    if (described.inputData === undefined) errors.input_data_hash = ['Send input_data with input_data_hash: the hash is the sha256 of input_data as JSON.'];
    else if (hash !== inputDataHashOf(described.inputData)) errors.input_data_hash = ['This is not the sha256 of input_data as JSON: send the hash of the input_data sent, or leave it out to have it computed.'];
    else described.inputDataHash = hash;
  } else if (described.inputData !== undefined) described.inputDataHash = inputDataHashOf(described.inputData);
  return described;
}

/** How a chunked upload keeps the checked fields until its completion (file_uploads, migration 0028): null where none was sent. */
export interface StoredDocumentFields {
  system_uuid: string | null;
  input_data: string | null;
  input_data_hash: string | null;
  /** '' for a status sent blank (the file's status is then null); null when none was sent ("created"). */
  status: string | null;
}

export function storedDocumentFields(fields: DocumentFields): StoredDocumentFields {
  return {
    system_uuid: fields.systemUuid ?? null,
    input_data: fields.inputData === undefined ? null : JSON.stringify(fields.inputData),
    input_data_hash: fields.inputDataHash ?? null,
    status: fields.status === undefined ? null : (fields.status ?? ''),
  };
}

/** The fields a completed upload gives its file: what documentFieldsOf made of the start's. */
export function documentFieldsStored(stored: StoredDocumentFields): DocumentFields {
  const fields: DocumentFields = {};
  if (stored.system_uuid !== null) fields.systemUuid = stored.system_uuid;
  if (stored.input_data !== null) fields.inputData = JSON.parse(stored.input_data);
  if (stored.input_data_hash !== null) fields.inputDataHash = stored.input_data_hash;
  if (stored.status !== null) fields.status = stored.status || null;
  return fields;
}

/** The upload JSON's `document_fields` (shared/schemas/private-file.ts): null when the start sent none. */
export function documentFieldsJson(stored: StoredDocumentFields): UploadJson['document_fields'] {
  if (stored.system_uuid === null && stored.input_data === null && stored.input_data_hash === null && stored.status === null) return null;
  const fields = documentFieldsStored(stored);
  return {
    system_uuid: fields.systemUuid ?? null,
    input_data: fields.inputData ?? null,
    input_data_hash: fields.inputDataHash ?? null,
    status: fields.status === undefined ? 'created' : fields.status,
  };
}

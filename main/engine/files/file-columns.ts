// A private file's one mapper from its record's values to its columns (issue 26):
// the engine's new files and changes (file-service.ts) and the replica's copies of
// remote files (main/sync/models/private-file.ts) store through fileColumnsOf, so a
// flag, a document's input_data or an upload's parts are stored one way whoever
// writes them. The bytes' columns (file_name, mime_type, filesize, file_hash) and
// the ids are each writer's own; the way back, row to JSON, is file-serializer.ts.
import type { PrivateFilesTable } from '../store/file-tables.ts';
import { toFlag } from '../store/portable-columns.ts';

type FileColumnName = 'title' | 'system_uuid' | 'input_data' | 'input_data_hash' | 'status' | 'status_message' | 'show_customer' | 'temporary' | 'upload_id' | 'parts' | 'completed_on';
export type FileColumns = Partial<Pick<PrivateFilesTable, FileColumnName>>;

/** A file record's values as the API names them, once checked. */
export interface FileRecordValues {
  title: string;
  system_uuid: string | null;
  /** What a generated document was made from (any JSON); null for any other file. */
  input_data: unknown;
  input_data_hash: string;
  status: string | null;
  status_message: string | null;
  show_customer: boolean;
  temporary: boolean;
  /** '' unless the file came from a chunked upload. */
  upload_id: string;
  /** The chunked upload's parts ({part, size, etag}); empty otherwise. */
  parts: readonly unknown[];
  completed_on: string | null;
}

/** The columns of the values `values` holds; one left out (undefined) sets nothing. JSON values are stored as text. */
export function fileColumnsOf(values: FileRecordValues): Required<FileColumns>;
export function fileColumnsOf(values: Partial<FileRecordValues>): FileColumns;
export function fileColumnsOf(values: Partial<FileRecordValues>): FileColumns {
  const columns: FileColumns = {};
  if (values.title !== undefined) columns.title = values.title;
  if (values.system_uuid !== undefined) columns.system_uuid = values.system_uuid;
  if (values.input_data !== undefined) columns.input_data = values.input_data === null ? null : JSON.stringify(values.input_data);
  if (values.input_data_hash !== undefined) columns.input_data_hash = values.input_data_hash;
  if (values.status !== undefined) columns.status = values.status;
  if (values.status_message !== undefined) columns.status_message = values.status_message;
  if (values.show_customer !== undefined) columns.show_customer = toFlag(values.show_customer);
  if (values.temporary !== undefined) columns.temporary = toFlag(values.temporary);
  if (values.upload_id !== undefined) columns.upload_id = values.upload_id;
  if (values.parts !== undefined) columns.parts = JSON.stringify(values.parts);
  if (values.completed_on !== undefined) columns.completed_on = values.completed_on;
  return columns;
}

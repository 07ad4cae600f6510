// Row types of the engine's tables for private files: the files, their earlier
// versions, tags, document templates, and uploads sent part by part. Part of the
// engine's tables (tables.ts composes them into EngineTables); stored as tables.ts
// says (0/1 booleans, ISO 8601 UTC text).
import type { Generated } from 'kysely';
import type { Flag } from './portable-columns.ts';

/** A private file (service.md 2.2); its bytes are the blob named by file_hash (docs/files.md). */
export interface PrivateFilesTable {
  id: Generated<number>;
  org_id: number;
  project_id: number | null;
  /** Who created it: the "files they created" access rule (service.md 5.3). */
  user_id: number;
  title: string;
  /** The uploaded file's own name: Content-Disposition and Content-Type come from it. */
  file_name: string;
  mime_type: string;
  filesize: number | null;
  /** sha256 hex of the contents, which is also the blob's name. */
  file_hash: string | null;
  system_uuid: string | null;
  /** JSON text or null. */
  input_data: string | null;
  input_data_hash: string;
  status: string | null;
  status_message: string | null;
  show_customer: Flag;
  temporary: Flag;
  /** '' unless the file came from a chunked upload. */
  upload_id: string;
  /** JSON array of {part, size, etag}. */
  parts: string;
  completed_on: string | null;
  created_date: string;
  modified_date: string;
}

/** An org's layout and words for one document type (migration 0026, docs/documents.md "Templates"). */
export interface DocumentTemplatesTable {
  id: Generated<number>;
  org_id: number;
  /** shared/documents.ts DocumentType; one template per type and org. */
  document_type: string;
  title: string;
  /** The org's name as the documents print it ('' : the org's own name). */
  org_display_name: string;
  /** An image private file of the org, printed at the top of each first page. */
  logo_file_id: number | null;
  /** #rrggbb: headings and the chart's bars. */
  primary_colour: string;
  /** #rrggbb: the running total line and rules. */
  accent_colour: string;
  intro_text: string;
  terms_text: string;
  created_date: string;
  modified_date: string;
}

/** Earlier contents of a private file, kept on this computer (migration 0008, docs/files.md "Versions"). */
export interface PrivateFileVersionsTable {
  id: Generated<number>;
  file_id: number;
  org_id: number;
  /** sha256 hex of those contents: the blob's name, as in private_files.file_hash. */
  file_hash: string;
  filesize: number;
  mime_type: string;
  file_name: string;
  /** When these contents were replaced (ISO). */
  replaced_at: string;
  /** Who replaced them; null for sync or a user since deleted. */
  replaced_by_user_id: number | null;
}

export interface FileTagsTable {
  id: Generated<number>;
  /** Null for a tag of the shared catalogue (shared/file-tags.ts); else the org that made it (migration 0016). */
  org_id: number | null;
  title: string;
  type: string;
  created_date: string;
}

export interface PrivateFileTagsTable {
  file_id: number;
  tag_id: number;
}

/** A chunked upload in progress; its parts are files under DATA/uploads/<id>/ until completed or expired. */
export interface FileUploadsTable {
  /** Random hex: the upload_id clients use in paths. */
  id: string;
  org_id: number;
  user_id: number;
  project_id: number | null;
  title: string;
  file_name: string;
  declared_size: number | null;
  /** Set on completion, so a repeated complete answers with the same file. */
  completed_file_id: number | null;
  created_date: string;
  expires_at: string;
  /** A generated document's fields sent at the start (migration 0028), given to the file on completion; null when not sent. */
  system_uuid: string | null;
  /** JSON text, as private_files.input_data. */
  input_data: string | null;
  input_data_hash: string | null;
  status: string | null;
}

export interface FileUploadPartsTable {
  upload_id: string;
  part_number: number;
  size: number;
  /** sha256 hex of the part's bytes. */
  etag: string;
  created_date: string;
}

// Issue 29: a generated document that goes up through the chunked upload keeps its
// document fields (docs/files.md "Chunked uploads"). The upload's start carries them
// as the multipart create's parts do, the session keeps them until completion, and
// the completed file gets them. Null: the start sent none (every existing upload).
// file_uploads is bookkeeping (store/write-generations.ts): no trigger to add.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('file_uploads').addColumn('system_uuid', 'text').execute();
  // JSON text, as private_files.input_data.
  await db.schema.alterTable('file_uploads').addColumn('input_data', 'text').execute();
  await db.schema.alterTable('file_uploads').addColumn('input_data_hash', 'text').execute();
  await db.schema.alterTable('file_uploads').addColumn('status', 'text').execute();
}

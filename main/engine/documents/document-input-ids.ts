// A saved document's input_data names its project by id (document-inputs.ts,
// DocumentInputData.project). On a replica, a project made offline has a provisional
// id until the remote answers its create; sync's re-key (main/sync/record-ids.ts)
// then moves every column that holds the id, and calls this for the one id kept
// inside JSON, which no column declaration can name (docs/tables.md "Record ids").
import { sql, type Transaction } from 'kysely';
import type { Database } from '../store/tables.ts';
import { inputDataHashOf } from './document-inputs.ts';

/**
 * Saved documents whose input_data names project `from` name `to` instead, and their
 * input_data_hash follows (where it was the hash of input_data), so the document stays
 * current (document-freshness.ts), a save of the same inputs still finds it, and the
 * remote's copy names a project it has.
 */
export async function rekeyDocumentProject(trx: Transaction<Database>, from: number, to: number): Promise<void> {
  // The text is narrowed by the id's digits; the JSON decides.
  const candidates = await trx
    .selectFrom('private_files')
    .select(['id', 'input_data', 'input_data_hash'])
    .where('input_data', 'is not', null)
    .where(sql<boolean>`input_data like ${`%${from}%`}`)
    .execute();
  for (const row of candidates) {
    const inputData = documentInputsOf(row.input_data);
    if (inputData?.project !== from) continue;
    // The same keys in the same order, so the hash is of the JSON a save here would write.
    const moved = { ...inputData, project: to };
    const hashFollows = row.input_data_hash === inputDataHashOf(inputData);
    await trx
      .updateTable('private_files')
      .set({ input_data: JSON.stringify(moved), ...(hashFollows ? { input_data_hash: inputDataHashOf(moved) } : {}) })
      .where('id', '=', row.id)
      .execute();
  }
}

/** A saved document's input_data as an object, or null: no document of ours (not JSON, or no object). */
function documentInputsOf(inputData: string | null): { project?: unknown } | null {
  if (inputData === null) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(inputData);
  } catch {
    return null;
  }
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed : null;
}

/** The project a saved document was made from (its input_data.project), or null for a file that is no document. */
export function documentProjectOf(inputData: string | null): number | null {
  const project = documentInputsOf(inputData)?.project;
  return typeof project === 'number' ? project : null;
}

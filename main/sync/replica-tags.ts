// File tags in the replica (docs/sync.md "File tags"): the remote's, stored as they
// come (ids under ORG_TAG_FIRST_ID as the shared catalogue's, the rest as the org's
// own), and the org's own tags made here offline (a document saved while signed in
// makes "Generated Document"), which the engine numbers from PROVISIONAL_ID_FLOOR up
// (main/engine/files/file-tags.ts). When the remote's tag of the same title arrives
// (made there by push-tags.ts, or by another computer), the tag made here becomes it:
// its files, merge bases and open conflicts follow, and the provisional row goes.
import { sql, type Transaction } from 'kysely';
import type { Database } from '../engine/store/tables.ts';
import { isCatalogueTagId } from '../../shared/file-tags.ts';
import { PROVISIONAL_ID_FLOOR } from './sync-models.ts';
import type { RemoteFileTag } from './remote-records.ts';
import { allButId } from './upsert-set.ts';

type Trx = Transaction<Database>;
const EPOCH = new Date(0).toISOString();

/** The remote's tags into the replica; a tag made here with the same title (any case) becomes the remote's. */
export async function upsertFileTags(trx: Trx, orgId: number, tags: RemoteFileTag[]): Promise<void> {
  for (const tag of tags) {
    const title = tag.title ?? '';
    const tagOrgId = isCatalogueTagId(tag.id) ? null : orgId;
    if (tagOrgId !== null) await adoptTagsMadeHere(trx, orgId, title, tag.id);
    // A date the API's schema does not name: the hosted service may send it.
    const row = { id: tag.id, org_id: tagOrgId, title, type: tag.type ?? 'private', created_date: typeof tag.created_date === 'string' ? tag.created_date : EPOCH };
    await trx.insertInto('file_tags').values(row).onConflict((conflict) => conflict.column('id').doUpdateSet(allButId(row))).execute();
  }
}

/** The org's tags made here and not yet on the remote, with this title (compared as the engine compares titles: without case). */
function tagsMadeHere(trx: Trx, orgId: number, title: string) {
  return trx
    .selectFrom('file_tags')
    .select('id')
    .where('org_id', '=', orgId)
    .where('id', '>=', PROVISIONAL_ID_FLOOR)
    .where(sql<boolean>`lower(title) = ${title.trim().toLowerCase()}`)
    .execute();
}

async function adoptTagsMadeHere(trx: Trx, orgId: number, title: string, remoteId: number): Promise<void> {
  for (const { id } of await tagsMadeHere(trx, orgId, title)) await moveTag(trx, id, remoteId);
}

/**
 * Every use of tag `from` becomes `to`: the files that carry it, the merge bases
 * and open conflicts that list it. The row of `from` goes; the caller writes the
 * row of `to` (the remote's) right after, in the same transaction.
 */
async function moveTag(trx: Trx, from: number, to: number): Promise<void> {
  // The replica is SQLite: the links may point at `to` before its row is written, later in this transaction.
  await sql`PRAGMA defer_foreign_keys = ON`.execute(trx);
  await sql`insert or ignore into private_file_tags (file_id, tag_id) select file_id, ${to} from private_file_tags where tag_id = ${from}`.execute(trx);
  await trx.deleteFrom('private_file_tags').where('tag_id', '=', from).execute();
  await trx.deleteFrom('file_tags').where('id', '=', from).execute();
  const moveIds = (ids: unknown): unknown => (Array.isArray(ids) ? [...new Set(ids.map((id) => (id === from ? to : id)))].sort() : ids);
  const bases = await trx.selectFrom('sync_records').select(['record_id', 'base']).where('model', '=', 'private_file').where('base', 'like', `%${from}%`).execute();
  for (const { record_id: recordId, base } of bases) {
    const view = JSON.parse(base) as Record<string, unknown>;
    view.file_tags = moveIds(view.file_tags);
    await trx.updateTable('sync_records').set({ base: JSON.stringify(view) }).where('model', '=', 'private_file').where('record_id', '=', recordId).execute();
  }
  const conflicts = await trx.selectFrom('sync_conflicts').selectAll().where('model', '=', 'private_file').where('field', '=', 'file_tags').execute();
  for (const conflict of conflicts) {
    const [local, remote, base] = [conflict.local_value, conflict.remote_value, conflict.base_value].map((value) => JSON.stringify(moveIds(JSON.parse(value))));
    await trx.updateTable('sync_conflicts').set({ local_value: local!, remote_value: remote!, base_value: base! }).where('id', '=', conflict.id).execute();
  }
}

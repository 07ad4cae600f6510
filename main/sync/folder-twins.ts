// Twins of a folder file: a private file pulled from the remote with the same bytes,
// in the same project, as a file a project folder here shows. Most often it is the
// copy another computer made of the same drop when both creates raced
// (push.ts settleFolderCopy): that computer deletes its copy a moment later, but a
// replica that pulled it in between would learn of the deletion only at its next
// sweep (the remote has no deletion feed), and meanwhile holds two files with those
// bytes, and writes the second into the folder as "name (2)" once the first is
// edited. So a twin is looked at again, by its detail, in the next few cycles; once
// the remote no longer has it, it leaves the replica. A twin that stays (the same
// bytes uploaded on purpose) is left alone after a few looks, like any other file.
import type { Transaction } from 'kysely';
import type { Database } from '../engine/store/tables.ts';
import type { ProjectFolderRecords } from './folder-records.ts';
import { writeAnnounced } from '../engine/changes/tracked-write.ts';
import { BY_SYNC } from '../engine/changes/change-feed.ts';
import { type SyncContext, remotePath } from './sync-context.ts';
import { throwUnlessAnswered } from './remote-errors.ts';
import { hasQueuedChanges } from './outbox.ts';
import { isProvisional } from './sync-models.ts';
import { deleteReplicaRecord } from './replica-removal.ts';
import { SYNC_MODELS } from './models/index.ts';

/** sync_state keys `folder_twin:<remote id>`, valued with how many times it was looked at since. */
export const FOLDER_TWIN_KEY = 'folder_twin:';
/** Looks at one twin (one detail request each, one per cycle) before it is taken for a file that stays. */
export const FOLDER_TWIN_LOOKS = 5;

/**
 * A private file just pulled into the replica for the first time: a twin (see above)
 * when a project folder here shows another file of its project with its bytes.
 */
export async function noteFolderTwin(trx: Transaction<Database>, file: { id: number }, folders: ProjectFolderRecords): Promise<void> {
  if (isProvisional(file.id)) return;
  const pulled = await trx.selectFrom('private_files').select(['project_id', 'file_hash']).where('id', '=', file.id).executeTakeFirst();
  if (!pulled?.file_hash || pulled.project_id === null) return;
  const shown = await folders.showsContentsInProject(trx, pulled.project_id, pulled.file_hash, file.id);
  if (!shown) return;
  await trx.insertInto('sync_state').values({ key: `${FOLDER_TWIN_KEY}${file.id}`, value: '0' }).onConflict((conflict) => conflict.column('key').doNothing()).execute();
}

/** Looks at each twin once: gone from the remote, it leaves the replica. Returns the requests made. */
export async function settleFolderTwins(sync: SyncContext, isStopped: () => boolean): Promise<number> {
  const marks = await sync.db.selectFrom('sync_state').select(['key', 'value']).where('key', 'like', `${FOLDER_TWIN_KEY}%`).execute();
  let requests = 0;
  for (const { key, value } of marks) {
    if (isStopped()) break;
    const id = Number(key.slice(FOLDER_TWIN_KEY.length));
    const looks = Number(value) + 1;
    const done = () => sync.db.deleteFrom('sync_state').where('key', '=', key).execute();
    const local = await sync.db.selectFrom('private_files').select('id').where('id', '=', id).executeTakeFirst();
    // Gone here already, or changed here (its changes go up, and a 404 then is the push's to handle).
    if (!local || (await hasQueuedChanges(sync.db, 'private_file', id))) {
      await done();
      continue;
    }
    const detail = await sync.remote.request({ method: 'GET', path: remotePath(sync, 'private_file', id), action: SYNC_MODELS.private_file.quota.detail });
    requests++;
    throwUnlessAnswered(detail); // busy or offline: the cycle stops, the mark stays
    if (detail.kind === 'rejected' && detail.status === 404) {
      await writeAnnounced(sync.engine, { orgId: sync.orgId, by: BY_SYNC }, async (trx, track) => {
        await track.privateFile(id);
        await deleteReplicaRecord(trx, 'private_file', id);
        await trx.deleteFrom('sync_records').where('model', '=', 'private_file').where('record_id', '=', id).execute();
        await trx.deleteFrom('sync_state').where('key', '=', key).execute();
      });
      continue;
    }
    if (looks >= FOLDER_TWIN_LOOKS) await done();
    else await sync.db.updateTable('sync_state').set({ value: String(looks) }).where('key', '=', key).execute();
  }
  return requests;
}

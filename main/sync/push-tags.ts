// A private file carrying a tag made on this replica (the org's own tag, with a
// provisional id: "Generated Document" on a document saved while signed in) goes up
// after its tag (docs/sync.md "File tags"). The tag is made on the remote first,
// `POST /api/orgs/<org>/file_tags/ {title, type}` (SolarDesk's extension), and takes
// the remote's id here (replica-tags.ts), so the file's create or PATCH names a tag
// the remote knows. A title the remote has already (another computer made it, or this
// one's answer was lost) is a 400: the remote's tags are read again and the tag of
// that title is adopted. A remote without tags of an org's own (the hosted service
// has only the catalogue: 404/405) is remembered, and the file goes up without the
// tags it cannot hold; the remote's answer then leaves the local file without them
// too, so both sides show the same file.
import { apiPaths } from '../../shared/api-paths.ts';
import { isProvisional } from './sync-models.ts';
import { fileView } from './models/private-file.ts';
import type { SyncContext } from './sync-context.ts';
import type { LocalRecord } from './push-requests.ts';
import { parseRemote } from './remote-records.ts';
import { throwUnlessAnswered } from './remote-errors.ts';
import { markOrgTagsAbsent, orgTagsAbsent } from './sync-state.ts';
import { upsertFileTags } from './replica-tags.ts';
import { pullSmallList } from './pull.ts';
import { type OutboxGroup, markParkedAfterSending } from './outbox.ts';

/** The tags of a file (its view) that were made here and are not on the remote yet. */
export const tagsMadeHere = (file: LocalRecord): number[] => (fileView(file).file_tags as number[]).filter(isProvisional);

/**
 * Makes the file's tags made here on the remote, so they have the remote's ids.
 * Returns how many requests it made, and whether the file may go up now: not while a
 * tag of it is still only here on a remote that takes such tags (no answer yet: the
 * file waits for its next cycle, as a file waits for its project; refused: its
 * change is parked with the remote's reason).
 */
export async function pushTagsMadeHereFirst(sync: SyncContext, group: OutboxGroup, file: LocalRecord): Promise<{ requests: number; mayGo: boolean }> {
  let requests = 0;
  let refusal: string | null = null;
  for (const id of tagsMadeHere(file)) {
    if (await orgTagsAbsent(sync.db)) break;
    const tag = await sync.db.selectFrom('file_tags').select(['title', 'type']).where('id', '=', id).executeTakeFirst();
    if (!tag) continue;
    const outcome = await sync.remote.request({ method: 'POST', path: apiPaths.fileTags(sync.orgId), json: { title: tag.title, type: tag.type }, action: 'default' });
    requests++;
    throwUnlessAnswered(outcome);
    if (outcome.kind === 'ok') {
      const made = parseRemote('file_tag', outcome.body);
      if (made.ok && !isProvisional(made.record.id)) await sync.db.transaction().execute((trx) => upsertFileTags(trx, sync.orgId, [{ ...made.record, title: made.record.title ?? tag.title }]));
    } else if (outcome.kind === 'rejected' && (outcome.status === 404 || outcome.status === 405)) {
      await markOrgTagsAbsent(sync.db);
    } else if (outcome.kind === 'rejected') {
      // A 400 for a title the remote has already: its tag list brings it, and the tag made here becomes it.
      if (outcome.status === 400) {
        await pullSmallList(sync, 'file_tag');
        requests++;
      }
      refusal = `The remote refused the file's tag "${tag.title}": ${outcome.message}`;
    }
  }
  if (await orgTagsAbsent(sync.db)) return { requests, mayGo: true };
  const fresh = await sync.db.selectFrom('private_file_tags').select('tag_id').where('file_id', '=', file.id).execute();
  const mayGo = !fresh.some((row) => isProvisional(row.tag_id));
  // A tag the remote refused for another reason than its title being taken: the file's change is
  // parked with why (the Sync screen shows it, with Retry), instead of waiting unseen.
  if (!mayGo && refusal !== null) await markParkedAfterSending(sync.db, group.rows, refusal, Math.max(...group.rows.map((row) => row.attempts)) + 1);
  return { requests, mayGo };
}

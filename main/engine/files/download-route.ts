// GET /downloads/private_files/<id>/?user=&expires=&signature=: the `file_contents`
// link. It needs no Authorization header (compatibility.md "Private files"); the
// signature stands in for it, and the user it was signed for must still be allowed
// to see the file now. Forged or expired: 403. Deleted: 404. Never the file.
// A link made for a connected org's user (`org=`) is checked against that org's
// sharing of the file's project now (file-access.ts getFileSeenThroughSharing).
// A valid link counts against no quota (issue 15): on the hosted service it points at
// file storage, outside the API's throttles, and so it does here. Only a link that is
// not valid stays counted, per client address, so forging links is still throttled.
// On an object store told `downloads=redirect`, a valid link answers 302 to the
// store itself, for no longer than the link has left (blob-response.ts).
import { z } from 'zod';
import type { TypedApp } from '../http/app.ts';
import type { EngineContext } from '../context.ts';
import { actorInOrg } from '../auth/actor.ts';
import { forbidden, notFound } from '../http/errors.ts';
import { idParam } from '../http/list-query.ts';
import { sendStoredFile } from './blob-response.ts';
import { checkDownloadLink } from './download-links.ts';
import { getFileSeenThroughSharing, getVisibleFile } from './file-access.ts';

const linkQuery = z.object({ org: z.string().optional().describe('the connected org a shared file is seen through'), user: z.string().optional(), expires: z.string().optional(), signature: z.string().optional() });

export function registerDownloadRoutes(app: TypedApp, context: EngineContext): void {
  app.get(
    '/downloads/private_files/:id/',
    {
      // Per client address (forged links cost nothing to send); taken back once the link is valid.
      config: { throttle: 'anonymous' },
      schema: {
        tags: ['private files'],
        summary: "Download a private file through its signed `file_contents` link (no Authorization header); supports Range. On an object store with `downloads=redirect`, 302 to the store",
        security: [],
        params: z.object({ id: idParam }),
        querystring: linkQuery,
      },
    },
    async (request, reply) => {
      const check = checkDownloadLink(context, request.params.id, request.query);
      if (check.status === 'invalid') throw forbidden('This download link is not valid.');
      if (check.status === 'expired') throw forbidden('This download link has expired. Fetch the file again for a fresh link.');
      const file = await context.db.selectFrom('private_files').select(['id', 'org_id']).where('id', '=', check.link.fileId).executeTakeFirst();
      if (!file) throw notFound('This file no longer exists.');
      const user = await context.db.selectFrom('users').selectAll().where('id', '=', check.link.userId).executeTakeFirst();
      if (!user) throw forbidden('The user this link was made for no longer exists.');
      // A link made for a connected org's user names that org: the file is seen through sharing.
      const viaOrgId = check.link.viaOrgId ?? file.org_id;
      const actor = await actorInOrg(context, user, viaOrgId);
      // A valid link is file storage, not an API request: its count goes back.
      await context.throttle.refund(request.throttleCounted ?? []);
      request.throttleCounted = [];
      const row = viaOrgId === file.org_id ? await getVisibleFile(context.db, actor, file.id) : await getFileSeenThroughSharing(context.db, actor, file.id);
      return sendStoredFile(context, request, reply, row, { linkExpires: check.link.expires });
    },
  );
}

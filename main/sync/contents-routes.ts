// Files on demand (issue 15) on the agent's local API: what the Files tab shows of a
// project (each file here or on the remote, and what fetching costs), the project's
// pin, an open recorded by the app, and one file fetched on demand. The embedded
// store has none of these (404): there every file is here.
import { z } from 'zod';
import type { TypedApp } from '../engine/http/app.ts';
import { idParam } from '../engine/http/list-query.ts';
import { notFound } from '../engine/http/errors.ts';
import type { SyncContext } from './sync-context.ts';
import type { ContentsPolicy } from './contents-policy.ts';
import { fileContentsJsonSchema, projectContentsJsonSchema } from '../../shared/schemas/contents.ts';

const tags = ['sync'];
const params = z.object({ org_id: z.string(), id: idParam });

export function registerContentsRoutes(app: TypedApp, running: () => { sync: SyncContext; contents: ContentsPolicy }): void {
  const projectOf = async (sync: SyncContext, id: number) => {
    const project = await sync.db.selectFrom('projects').select('id').where('id', '=', id).where('org_id', '=', sync.orgId).executeTakeFirst();
    if (!project) throw notFound('No such project on this computer.');
    return project.id;
  };

  app.get(
    '/sync/contents/projects/:id/',
    {
      config: { throttle: 'none' },
      schema: { tags, summary: "A project's files: contents here or on the remote, what fetching costs, and whether (and why) the project's files are kept here", params, response: { 200: projectContentsJsonSchema } },
    },
    async (request) => {
      const { sync, contents } = running();
      return contents.projectContents(sync.engine, await projectOf(sync, request.params.id));
    },
  );

  app.post(
    '/sync/contents/projects/:id/pin/',
    {
      config: { throttle: 'none' },
      schema: {
        tags,
        summary: "Pin (keep every file here, and in its folder) or unpin a project; unpinned, its unchanged files may be removed from this computer",
        params,
        body: z.object({ pinned: z.boolean() }),
        response: { 200: projectContentsJsonSchema },
      },
    },
    async (request) => {
      const { sync, contents } = running();
      const projectId = await projectOf(sync, request.params.id);
      await contents.setPinned(projectId, request.body.pinned);
      return contents.projectContents(sync.engine, projectId);
    },
  );

  app.post(
    '/sync/contents/projects/:id/opened/',
    {
      config: { throttle: 'none' },
      schema: { tags, summary: 'The app opened the project: its files are kept here for the opened-days window', params, response: { 200: z.object({ recorded: z.boolean() }) } },
    },
    async (request) => {
      const { sync, contents } = running();
      await contents.recordOpen(await projectOf(sync, request.params.id));
      return { recorded: true };
    },
  );

  app.post(
    '/sync/contents/files/:id/fetch/',
    {
      config: { throttle: 'none' },
      schema: {
        tags,
        summary: "Fetch one file's contents from the remote now (free while its signed link lasts, else one of the org's daily file requests)",
        params,
        response: { 200: fileContentsJsonSchema },
      },
    },
    async (request) => {
      const { sync, contents } = running();
      const file = await sync.db.selectFrom('private_files').selectAll().where('id', '=', request.params.id).where('org_id', '=', sync.orgId).executeTakeFirst();
      if (!file) throw notFound('No such file on this computer.');
      const before = await contents.fileContents(sync.engine, file);
      if (!before.here && sync.engine.fetchMissingBlob) await sync.engine.fetchMissingBlob(file, { requestClass: 'user' });
      return contents.fileContents(sync.engine, file);
    },
  );
}

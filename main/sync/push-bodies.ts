// References in a push's request bodies, as the remote's API takes them: the
// remote's URLs of the records a body names. Each model builds its own bodies
// (models/, `updateBody` and `createBody`) from these, and a document's fields
// for a file's create, whole or in parts.
import { apiPaths } from '../../shared/api-paths.ts';
import { type SyncContext, remotePath, remoteUrl } from './sync-context.ts';

export const roleUrl = (sync: SyncContext, id: number | null) => (id === null ? null : remoteUrl(sync, apiPaths.role(sync.orgId, id)));
export const projectUrl = (sync: SyncContext, id: number | null) => (id === null ? null : remoteUrl(sync, remotePath(sync, 'project', id)));
export const contactUrl = (sync: SyncContext, id: number) => remoteUrl(sync, remotePath(sync, 'contact', id));
export const fileTagUrl = (sync: SyncContext, id: number) => remoteUrl(sync, apiPaths.fileTag(id));

/**
 * A generated document's fields (docs/documents.md), as text, so the remote's copy says
 * what it was made from too: the multipart create's parts and the chunked upload's
 * start alike. Empty for a file that is no document.
 */
export async function documentFieldsToSend(sync: SyncContext, fileId: number): Promise<Record<string, string>> {
  const row = await sync.db.selectFrom('private_files').select(['system_uuid', 'input_data', 'input_data_hash', 'status']).where('id', '=', fileId).executeTakeFirstOrThrow();
  if (row.input_data === null) return {};
  return {
    input_data: row.input_data,
    input_data_hash: row.input_data_hash,
    ...(row.system_uuid === null ? {} : { system_uuid: row.system_uuid }),
    ...(row.status === null ? {} : { status: row.status }),
  };
}

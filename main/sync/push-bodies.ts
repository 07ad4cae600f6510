// References in a push's request bodies, as the remote's API takes them: the
// remote's URLs of the records a body names. Each model builds its own bodies
// (models/, `updateBody` and `createBody`) from these.
import { apiPaths } from '../../shared/api-paths.ts';
import { type SyncContext, remotePath, remoteUrl } from './sync-context.ts';

export const roleUrl = (sync: SyncContext, id: number | null) => (id === null ? null : remoteUrl(sync, apiPaths.role(sync.orgId, id)));
export const projectUrl = (sync: SyncContext, id: number | null) => (id === null ? null : remoteUrl(sync, remotePath(sync, 'project', id)));
export const contactUrl = (sync: SyncContext, id: number) => remoteUrl(sync, remotePath(sync, 'contact', id));
export const fileTagUrl = (sync: SyncContext, id: number) => remoteUrl(sync, apiPaths.fileTag(id));

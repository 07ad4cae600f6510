// What the views read again when the core says records changed (`records.changed`), and
// when the page's event stream connects again: while it was down no change event could
// arrive, so every view that has loaded reads again what it shows (the same rules as a
// change that names no project). One place, so the two cannot disagree.
import type { RecordsChanged } from '../../../shared/bridge.ts';
import { useActivityStore } from './activity-store.ts';
import { useFilesStore } from './files-store.ts';
import { useProjectStore } from './project-store.ts';
import { useProjectsStore } from './projects-store.ts';
import { useSessionStore } from './session-store.ts';
import { useSyncStore } from './sync-store.ts';
import { useWebhooksStore } from './webhooks-store.ts';

const LIST_KINDS = new Set(['projects', 'contacts', 'sync', 'unknown']);
/** What an open project shows: itself, its contacts, its activity and its files. */
const PROJECT_KINDS = new Set([...LIST_KINDS, 'events', 'private_files']);
const EVERY_KIND = [...PROJECT_KINDS, 'webhooks'];

/** Reads again what `change` may have changed: the project list's rows, the open project (unless it has edits of its own), its files, the webhooks. */
export function refreshViewsOf(change: Pick<RecordsChanged, 'kinds' | 'projectIds'>): void {
  const projects = useProjectsStore.getState();
  if (projects.orgId !== null && change.kinds.some((kind) => LIST_KINDS.has(kind))) {
    if (change.projectIds.length > 0) void projects.refreshRows(change.projectIds);
    else void projects.reload();
  }
  const open = useProjectStore.getState();
  const touchesOpenProject =
    open.projectId !== null && change.kinds.some((kind) => PROJECT_KINDS.has(kind)) && (change.projectIds.length === 0 || change.projectIds.includes(open.projectId));
  if (touchesOpenProject && Object.keys(open.pending).length === 0 && open.saveState !== 'saving') void open.reload();
  const files = useFilesStore.getState();
  if (touchesOpenProject && change.kinds.includes('private_files') && open.orgId !== null && files.projectId !== null) {
    void files.load(open.orgId, files.projectId);
    // A file's versions change with its contents (an edit in its folder, a restore, sync).
    if (files.versions !== null) void files.loadVersions();
  }
  const webhooks = useWebhooksStore.getState();
  if (change.kinds.includes('webhooks') && webhooks.orgId !== null) void webhooks.load(webhooks.orgId);
}

/**
 * The event stream connected (again): what changed while it was down was told to no
 * one. Every view that has loaded reads again; one never loaded loads when it opens.
 */
export function refreshEveryView(): void {
  refreshViewsOf({ kinds: EVERY_KIND, projectIds: [] });
  const activity = useActivityStore.getState();
  if (activity.orgId !== null && activity.loadState !== 'idle') void activity.load(activity.orgId, activity.filter);
  if (useSessionStore.getState().session !== null) void useSessionStore.getState().load();
  // The pending changes and conflicts: the stream's first event is only the state's counts, which may not have moved.
  const sync = useSyncStore.getState();
  if (sync.orgId !== null && sync.loadState !== 'idle') void sync.load(sync.orgId);
}

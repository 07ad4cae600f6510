// The bridge between the renderer and the main-process core: every channel, its
// request and its answer, in one place (docs/bridge.md). Two transports carry it:
// Electron IPC (preload/ and main/desktop/ipc-bridge.ts) and HTTP in browser mode
// (shared/bridge-http.ts and main/web/bridge-server.ts). Both hand requests to the
// same dispatcher (main/bridge-dispatch.ts), which checks them against the request
// schemas defined here (built by shared/bridge-schemas.ts): the renderer is never
// trusted to send what its types say.
//
// Each invoke channel is defined once, in `invokeChannels`: its request schema and
// the type it answers. The channel list, the request and response types and the
// dispatcher's schemas all derive from it. The schemas are written as functions of
// zod, and zod is imported here as a type only: the sandboxed preload bundles this
// file for the channel names (7 kB), and zod itself would add some 750 kB.
import type { z as ZodNamespace } from 'zod';
import type { SyncStateName } from './sync-api.ts';
import type { InboxState, ProjectPhotoPlace } from './photos.ts';
import type { RequestSchemaParts } from './bridge-request-parts.ts';
import type { TransferCaps } from './transfer-caps.ts';
import type { ActivityEntry, ActivityNotice, ActivityPage, NotificationSwitches } from './activity.ts';

// ---------------------------------------------------------------------------
// Shapes that travel over the bridge.

export const THEMES = ['system', 'light', 'dark'] as const;
export type Theme = (typeof THEMES)[number];

/** What the user chose; kept by the host (electron-store on the desktop, a file in browser mode). */
export interface Settings {
  /** The remote instance to sync with; null: this machine is the only copy (embedded). */
  remoteUrl: string | null;
  username: string | null;
  /** The org this machine works on; null: the first one the local user can act for. */
  orgId: number | null;
  /** Where each project gets a folder (files dropped there reach the project). */
  folderRoot: string;
  /**
   * Whether someone chose `folderRoot` (issue 28, item 2): the desktop's first start asks
   * before any project folder is made; until then no folders are made or watched. True
   * when given on the command line, saved before, or answered.
   */
  folderRootChosen: boolean;
  /**
   * Hosts besides the remote that its file links may point to (shared/download-hosts.ts):
   * empty by default, so a link elsewhere fails that one file with a sentence saying so.
   */
  downloadHosts: string[];
  /**
   * Let this computer deliver webhooks to itself and the local network (loopback and private
   * addresses). Off by default: a webhook could otherwise be pointed at services on this machine
   * or the office network. Applies where this app delivers webhooks (the embedded store); a server
   * decides for itself with its --allow-private-webhook-endpoints flag.
   */
  localWebhooks: boolean;
  /** Speed caps on file transfers and the metered switch (shared/transfer-caps.ts); the agent reads them at each piece, so a change holds at once. */
  transferCaps: TransferCaps;
  theme: Theme;
  /** Which notifications outside the window are on, each with its own switch (shared/activity.ts NOTIFICATION_SWITCH_WORDS). */
  notifications: NotificationSwitches;
}

export type SessionMode = 'embedded' | 'synced';

export interface SessionUser {
  id: number;
  email: string;
  displayName: string;
}

export interface SessionInfo {
  /** embedded: the local store is the only copy; synced: the sync agent keeps it in step with a remote. */
  mode: SessionMode;
  orgId: number;
  orgName: string;
  user: SessionUser;
  /** Org admins see and change webhooks. */
  isAdmin: boolean;
  remoteUrl: string | null;
  folderRoot: string;
  /**
   * Where this workspace's project folders are: the folder root itself when synced,
   * its "On this computer" folder on the embedded store (two workspaces never share
   * project folders: docs/project-folders.md, "Modes").
   */
  projectFoldersRoot: string;
  /** The orgs this machine can switch to (Settings). */
  orgs: { id: number; name: string }[];
  /** Whether this build can run the sync agent; false until it is wired in (issue 5). */
  isSyncAvailable: boolean;
  /** Signed in to a remote, but the remote no longer accepts the token. */
  needsSignIn: boolean;
  /**
   * Which workspace is open: `remote` (the signed-in org's replica, or the embedded
   * store when not signed in) or `local` (the embedded store "On this computer",
   * opened while signed in: the sign-in stays).
   */
  workspace: Workspace;
  /** The saved sign-in, in either workspace (null when not signed in): what the workspace switcher offers. */
  signedIn: { remoteUrl: string; orgName: string } | null;
  /** Whether `settings.chooseFolder` can show a folder dialog (the desktop app; not browser mode). */
  canChooseFolder: boolean;
}

/** What the folder dialog answered: the folder picked, or null when cancelled or when there is no dialog here. */
export interface FolderChoice {
  /** False in browser mode: a page cannot pick a folder of this computer; the renderer offers the text field only. */
  available: boolean;
  path: string | null;
}

/** How far moving the project folders to a new folder root has got (`folders.moveProgress`). */
export interface FolderMoveProgress {
  /** Files moved so far (a folder renamed on the same disk counts all its files at once). */
  files: number;
  totalFiles: number;
  bytes: number;
  totalBytes: number;
}

/** What changing the folder root did: the settings now, and what was moved (null when the folders were left where they were). */
export interface FolderRootChange {
  settings: Settings;
  moved: { files: number; bytes: number; copied: boolean } | null;
}

export type Workspace = 'remote' | 'local';

/** A document made for a look before it is saved (`documents.make`): its bytes, as the engine answered them. */
export interface MadeDocument {
  bytes: Uint8Array;
  /** ASCII, as the engine's Content-Disposition names it ("proposal-sd-0001-system-1.pdf"). */
  fileName: string;
  /** `application/pdf` or `text/csv` (no parameters). */
  contentType: string;
}

/** What `documents.saveCopy` did: where the copy went, or `path: null` when the user cancelled the dialog. */
export interface SavedCopy {
  path: string | null;
}

export const HTTP_METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export type QueryValue = string | number | boolean | null | undefined;

export interface ApiRequest {
  method: HttpMethod;
  /** A path of the local API, starting with /api/ (the query goes in `query`). */
  path: string;
  query?: Record<string, QueryValue>;
  /** JSON body for POST, PATCH and PUT. */
  body?: unknown;
}

export interface ApiResponse<Body = unknown> {
  status: number;
  headers: Record<string, string>;
  /** Parsed JSON, the text for other content types, null when empty. */
  body: Body;
}

/** files.upload's request: the whole file in one call. */
export type FileUploadRequest = ParsedRequestOf<'files.upload'>;

/** files.uploadStart: a chunked upload the renderer feeds part by part, so its progress and cancel are the user's own. */
export type UploadStartRequest = ParsedRequestOf<'files.uploadStart'>;

export interface UploadStarted {
  /** The engine's upload id (32 hex digits). */
  uploadId: string;
  /** Send parts of exactly this many bytes (the last may be shorter), numbered from 1. */
  partBytes: number;
}

export interface UploadProgress {
  uploadId: string;
  projectId: number;
  fileName: string;
  sentBytes: number;
  totalBytes: number;
  state: 'uploading' | 'done' | 'failed';
  error?: string;
}

export interface SyncState {
  state: SyncStateName;
  /** Changes that go to the remote with the next sync; held deletes are not among them. */
  pending: number;
  conflicts: number;
  /** Local deletes held until the user confirms them (sync-lessons.md). */
  heldDeletes: number;
  lastSyncedAt: string | null;
  nextAttemptAt: string | null;
  remoteReachable: boolean;
  /** One line for the user, e.g. why sync is waiting. */
  detail: string;
}

/** A record of the embedded store made or changed by a person on this computer (docs/sync.md, "Local work and signing in"). */
export interface LocalWorkItem {
  /** `<kind>:<id>`, the id in the embedded store. */
  key: string;
  kind: LocalWorkKind;
  id: number;
  title: string;
  /** created: made on this computer; changed: a record of the store (the demo data) edited here. */
  change: 'created' | 'changed';
  /** The fields changed, when known (empty for a record made here). */
  fields: string[];
  /** The project a file or contact belongs to, by title, when it has one. */
  projectTitle: string | null;
  changedAt: string;
}

export type LocalWorkKind = 'project' | 'contact' | 'private_file' | 'webhook';

/** What exists only on this computer, offered to the signed-in org. */
export interface LocalWorkOffer {
  /** False when not signed in, or nothing waits: then `items` is empty. */
  isOpen: boolean;
  /** The user said "Keep on this computer" for this remote: not offered on its own again (still listed). */
  isKept: boolean;
  /** The signed-in org and remote the items would go to. */
  orgName: string | null;
  remoteUrl: string | null;
  items: LocalWorkItem[];
}

export interface LocalWorkSendResult {
  sent: { key: string; title: string; remoteId: number }[];
  /** Items that did not go up, with why, in a sentence; they stay offered. */
  failed: { key: string; title: string; error: string }[];
  offer: LocalWorkOffer;
}

export interface LocalWorkProgress {
  done: number;
  total: number;
  /** The item being sent now (null once finished). */
  title: string | null;
}

/** Sign-out answers one of these: signed out, or a question first when changes have not reached the remote. */
export type SignOutAnswer =
  | { outcome: 'signed_out'; session: SessionInfo }
  | { outcome: 'needs_confirmation'; pending: number; heldDeletes: number; remoteUrl: string; question: string };

export interface RecordsChanged {
  /** API path segments of what changed: projects, contacts, private_files, webhooks, events... */
  kinds: string[];
  /** Projects known to be touched; empty when unknown (then any open project may have changed). */
  projectIds: number[];
  source: 'local' | 'sync';
}

/** A photo's EXIF as the image viewer shows it (main/core/photo-exif.ts reads it). */
export interface PhotoInfo {
  /** Camera time, "YYYY-MM-DDTHH:MM:SS" (with "+HH:MM" when the camera recorded its offset). */
  takenAt: string | null;
  latitude: number | null;
  longitude: number | null;
  /** false: the contents are on the remote only (files on demand), so nothing was read. */
  isHere: boolean;
}

// ---------------------------------------------------------------------------
// The invoke channels.


declare const answerType: unique symbol;
/** Stands for a channel's answer in `invokeChannels`: a type for the compiler, never read. */
type Answer<Response> = { readonly [answerType]: Response };
const answers = <Response>() => ({}) as Answer<Response>;

interface ChannelDefinition<Schema extends ZodNamespace.ZodType, Response> {
  /** The request's strict schema, made from the shared parts. */
  request: (parts: RequestSchemaParts) => Schema;
  answer: Answer<Response>;
}

const channel = <Schema extends ZodNamespace.ZodType, Response>(request: (parts: RequestSchemaParts) => Schema, answer: Answer<Response>): ChannelDefinition<Schema, Response> => ({
  request,
  answer,
});

type PathAnswer = { path: string; bytes: number };

/** Every invoke channel: what it takes (a strict zod schema) and what it answers. */
export const invokeChannels = {
  'session.get': channel(({ empty }) => empty, answers<SessionInfo>()),
  'api.request': channel(({ apiRequest }) => apiRequest, answers<ApiResponse>()),
  'files.upload': channel(
    ({ z, positiveId, fileName, bytes }) =>
      z
        .object({
          /** Chosen by the caller, so it can match `upload.progress` events to this upload. */
          uploadId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
          projectId: positiveId,
          fileName,
          bytes,
          title: z.string().max(255).optional(),
        })
        .strict(),
    answers<ApiResponse>(),
  ),
  /** Starts a chunked upload; a refusal (too large, quota, no permission) fails with a sentence that says what to do. */
  'files.uploadStart': channel(
    ({ z, positiveId, fileName }) =>
      z
        .object({
          projectId: positiveId,
          fileName,
          /** The whole file's size: a file over the server's limit is refused (413) before any byte is sent. */
          size: z.number().int().nonnegative(),
          title: z.string().max(255).optional(),
        })
        .strict(),
    answers<UploadStarted>(),
  ),
  /** Sends part n (from 1) of a started upload; sending it again replaces it. */
  'files.uploadPart': channel(
    ({ z, engineUploadId, fileName, bytes }) => z.object({ uploadId: engineUploadId, fileName, part: z.number().int().min(1).max(10_000), bytes }).strict(),
    answers<{ part: number; size: number }>(),
  ),
  /** Assembles the parts into the private file: the API's 201 (200 when already done). */
  'files.uploadFinish': channel(({ z, engineUploadId, fileName }) => z.object({ uploadId: engineUploadId, fileName }).strict(), answers<ApiResponse>()),
  /** Cancels an open upload: its parts are removed, nothing is attached. */
  'files.uploadCancel': channel(({ z, engineUploadId }) => z.object({ uploadId: engineUploadId }).strict(), answers<{ cancelled: boolean }>()),
  /** Saves the file in its project's folder (never over a different file) and says where. */
  'files.download': channel(({ z, positiveId }) => z.object({ fileId: positiveId }).strict(), answers<PathAnswer>()),
  /** Saves one earlier version of a file beside the project folders (never inside one, where it would be attached) and says where. */
  'files.downloadVersion': channel(({ z, positiveId }) => z.object({ fileId: positiveId, versionId: positiveId }).strict(), answers<PathAnswer>()),
  /** New contents for a file that keeps its id; the contents it replaces become a version. Answers the API's 200 with the file. */
  'files.replaceContents': channel(({ z, positiveId, fileName, bytes }) => z.object({ fileId: positiveId, fileName, bytes }).strict(), answers<ApiResponse>()),
  /** Desktop only (browser mode: `not_available`): opens the file's copy in the project folder (downloaded there first if needed) with the system's default app. */
  'files.open': channel(({ z, positiveId }) => z.object({ fileId: positiveId }).strict(), answers<{ path: string; opened: boolean }>()),
  /** Desktop only (browser mode: `not_available`): shows the file's copy in the project folder in the system's file manager. */
  'files.showInFolder': channel(({ z, positiveId }) => z.object({ fileId: positiveId }).strict(), answers<{ path: string }>()),
  /** A photo's EXIF: when and where it was taken (docs/files.md "Thumbnails and viewers"); all null when the contents are not on this computer. */
  'files.photoInfo': channel(({ z, positiveId }) => z.object({ fileId: positiveId }).strict(), answers<PhotoInfo>()),
  /**
   * Makes a document of the project on the local engine (generate_document, without
   * action=save) and answers its bytes for the preview; a refusal fails with the
   * engine's sentence as is (docs/documents.md "In the app").
   */
  'documents.make': channel(({ z, positiveId, documentChoice }) => z.object({ projectId: positiveId, ...documentChoice }).strict(), answers<MadeDocument>()),
  /** Desktop only (browser mode: `not_available`, where the page downloads it): the system's save dialog, then the bytes written where the user chose. */
  'documents.saveCopy': channel(({ z, fileName, bytes }) => z.object({ fileName, bytes }).strict(), answers<SavedCopy>()),
  /** Creates the folder if needed and opens it in the system's file manager when there is one. */
  'folder.open': channel(({ z, positiveId }) => z.object({ projectId: positiveId.optional() }).strict(), answers<{ path: string; opened: boolean }>()),
  'settings.get': channel(({ empty }) => empty, answers<Settings>()),
  'settings.set': channel(({ settingsPatch }) => settingsPatch, answers<Settings>()),
  /** Shows the system's folder dialog (starting at `defaultPath`) and answers the folder picked; it changes no setting. */
  /**
   * A new folder root. `moveFolders`: everything in the old root (project folders with their files) is moved
   * there first, with `folders.moveProgress` events; a move that fails puts back what it moved and keeps the
   * old root. Without: the old folders stay as they are and fresh ones are made in the new root.
   */
  'settings.changeFolderRoot': channel(({ z }) => z.object({ folderRoot: z.string().min(1).max(4096), moveFolders: z.boolean() }).strict(), answers<FolderRootChange>()),
  'settings.chooseFolder': channel(({ z }) => z.object({ defaultPath: z.string().max(4096).optional() }).strict().optional(), answers<FolderChoice>()),
  'auth.signIn': channel(
    ({ z, positiveId }) =>
      z
        .object({
          remoteUrl: z.string().url(),
          username: z.string().min(1).max(320),
          password: z.string().min(1).max(1024),
          orgId: positiveId.optional(),
        })
        .strict(),
    answers<SessionInfo>(),
  ),
  /** Without `confirm: true`, answers `needs_confirmation` (and stays signed in) while changes or held deletes wait. */
  'auth.signOut': channel(({ z }) => z.object({ confirm: z.boolean().optional() }).strict().optional(), answers<SignOutAnswer>()),
  /** Opens the local workspace ("On this computer") or the signed-in org's, keeping the sign-in. */
  'workspace.switch': channel(({ z }) => z.object({ workspace: z.enum(['remote', 'local']) }).strict(), answers<SessionInfo>()),
  /** What exists only on this computer and has not gone to the signed-in org. */
  'localWork.list': channel(({ empty }) => empty, answers<LocalWorkOffer>()),
  /** Sends these items (by key) to the signed-in org; `localWork.progress` events meanwhile. */
  'localWork.send': channel(
    ({ z }) => z.object({ keys: z.array(z.string().regex(/^(project|contact|private_file|webhook):\d{1,15}$/)).min(1).max(10_000) }).strict(),
    answers<LocalWorkSendResult>(),
  ),
  /** "Keep on this computer": the offer is not shown on its own again for this remote; the items stay in the local workspace. */
  'localWork.keep': channel(({ empty }) => empty, answers<LocalWorkOffer>()),
  /** Where the project's photos were taken against its site (issue 17): the far ones flagged, with the one project they match. */
  'photos.check': channel(({ z, positiveId }) => z.object({ projectId: positiveId }).strict(), answers<ProjectPhotoPlace[]>()),
  /** The inbox folder (Unsorted): what waits there with its candidates, and what it attached. Matches the waiting photos again first. */
  'inbox.list': channel(({ empty }) => empty, answers<InboxState>()),
  /** The activity log, newest first: searched, filtered by project and kind (docs/activity.md). */
  'activity.list': channel(({ activityQuery }) => activityQuery, answers<ActivityPage>()),
  /**
   * Retry now for an entry that failed or waits: its refused changes are sent again and
   * sync is asked to go at once (main/core/activity-handlers.ts retryActivityEntry).
   */
  'activity.retry': channel(({ z, positiveId }) => z.object({ entryId: positiveId }).strict(), answers<{ message: string }>()),
  /** Attaches a waiting file to the chosen project. */
  'inbox.attach': channel(({ z, positiveId }) => z.object({ name: z.string().min(1).max(1024), projectId: positiveId }).strict(), answers<InboxState>()),
  /** Puts an attached file back in the inbox and deletes its private file. */
  'inbox.undo': channel(({ z }) => z.object({ entryId: z.string().uuid() }).strict(), answers<InboxState>()),
};

/** Every event channel and its payload. Subscriptions return an unsubscribe function. */
export interface BridgeEventChannels {
  'sync.state': SyncState;
  'upload.progress': UploadProgress;
  'records.changed': RecordsChanged;
  /** The session changed: sign-in, sign-out, another org, or the remote refused the token. */
  'session.changed': SessionInfo;
  'localWork.progress': LocalWorkProgress;
  /** The inbox attached something, or what waits there changed. */
  'inbox.changed': InboxState;
  /** The project folders are being moved to a new folder root. */
  'folders.moveProgress': FolderMoveProgress;
  /** An activity log entry was written or moved (progress, a wait, done). */
  'activity.changed': ActivityEntry;
  /** Something worth a notification outside the window (its Settings switch is on); browser mode shows it with the Notification API. */
  'activity.notice': ActivityNotice;
  /** The desktop's notification was clicked: show the Activity screen at this entry. */
  'activity.open': { entryId: number };
}

export type InvokeChannel = keyof typeof invokeChannels;
export type EventChannel = keyof BridgeEventChannels;
type RequestSchemaOf<C extends InvokeChannel> = ReturnType<(typeof invokeChannels)[C]['request']>;
/** What a caller sends (the schema's input). */
export type RequestOf<C extends InvokeChannel> = ZodNamespace.input<RequestSchemaOf<C>>;
/** What a handler gets: the request as its schema parsed it. */
export type ParsedRequestOf<C extends InvokeChannel> = ZodNamespace.output<RequestSchemaOf<C>>;
export type ResponseOf<C extends InvokeChannel> = (typeof invokeChannels)[C]['answer'] extends Answer<infer Response> ? Response : never;
/** Every invoke channel with its request and answer types. */
export type BridgeInvokeChannels = { [C in InvokeChannel]: { request: RequestOf<C>; response: ResponseOf<C> } };
/** Channels whose request is empty may be invoked without one. */
export type InvokeArgs<C extends InvokeChannel> = undefined extends RequestOf<C> ? [request?: RequestOf<C>] : [request: RequestOf<C>];
export type Unsubscribe = () => void;

export const INVOKE_CHANNELS = Object.keys(invokeChannels) as InvokeChannel[];
export const EVENT_CHANNELS = ['sync.state', 'upload.progress', 'records.changed', 'session.changed', 'localWork.progress', 'inbox.changed', 'folders.moveProgress', 'activity.changed', 'activity.notice', 'activity.open'] as const satisfies readonly EventChannel[];

// A compile-time check that the event list names every channel of BridgeEventChannels.
type Exactly<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _eventListCoversEveryChannel: Exactly<(typeof EVENT_CHANNELS)[number], EventChannel> = true;
void _eventListCoversEveryChannel;

export function isInvokeChannel(value: unknown): value is InvokeChannel {
  return typeof value === 'string' && (INVOKE_CHANNELS as readonly string[]).includes(value);
}

export function isEventChannel(value: unknown): value is EventChannel {
  return typeof value === 'string' && (EVENT_CHANNELS as readonly string[]).includes(value);
}

/** What the renderer holds: `window.solardesk` under Electron, the HTTP client in a browser. */
export interface Bridge {
  invoke<C extends InvokeChannel>(channel: C, ...args: InvokeArgs<C>): Promise<ResponseOf<C>>;
  subscribe<C extends EventChannel>(channel: C, listener: (payload: BridgeEventChannels[C]) => void): Unsubscribe;
}

/** The main-process side: one function per invoke channel. */
export type BridgeHandlers = { [C in InvokeChannel]: (request: ParsedRequestOf<C>) => Promise<ResponseOf<C>> };

// ---------------------------------------------------------------------------
// Errors and envelopes: how answers cross either transport (shared/bridge-envelopes.ts).
export * from './bridge-envelopes.ts';

// A replicated file's bytes, fetched from the remote when someone opens it (or a
// prefetch wants them), and a kept version's bytes when a person asks for them:
// what the agent hands the engine as fetchMissingBlob and fetchMissingVersionBlob.
import type { FetchBlobOptions } from '../engine/context.ts';
import type { PrivateFileRow, PrivateFileVersionRow } from '../engine/store/tables.ts';
import { ApiError } from '../engine/http/errors.ts';
import fs from 'node:fs';
import { adoptBlob, blobPath, discardTempFile, FileTooLargeError, receiveToTempFile } from '../engine/files/blob-store.ts';
import { apiPaths } from '../../shared/api-paths.ts';
import { type DownloadOptions, RemoteLinkRefused, downloadStream } from './remote-client.ts';
import { REMOTE_LIMITS } from './remote-limits.ts';
import type { SyncContext } from './sync-context.ts';
import { type ContentsPolicy, rememberContentsLink } from './contents-policy.ts';
import { DownloadPart, type OpenDownload } from './download-parts.ts';
import { privateFileModel } from './models/private-file.ts';
import { MeteredWaitError } from './bandwidth-limiter.ts';
import { BudgetWaitError } from './quota-pacer.ts';

/** Which hosts a file link may name besides the remote, and where the user names them. */
export type LinkRules = Pick<DownloadOptions, 'downloadHosts' | 'whereHostsAreNamed'>;

/**
 * What a fetch tells as it goes (the activity log's download entries, docs/activity.md):
 * its bytes kept, a wait (background contents on a metered connection, or for the
 * budget of the org's daily file allowance), its end. Nothing is told when the agent
 * stops mid-way: the next start carries on and tells it then.
 */
export type DownloadEvent =
  | { state: 'running'; received: number; total: number }
  | { state: 'waiting'; reason: 'metered' }
  /** For the budget: background work spends only its share of the org's daily file allowance (quota-pacer.ts). */
  | { state: 'waiting'; reason: 'budget'; mayGoAt: number }
  | { state: 'offline'; detail: string }
  | { state: 'done' }
  | { state: 'failed'; detail: string };
export type DownloadReporter = (fileId: number, event: DownloadEvent) => void;

/** Attempts in a row that keep no new byte before a fetch gives up (its part stays for the next one). */
const STALLED_ATTEMPTS = 3;

/**
 * Content on demand: a replicated file's bytes are fetched from the remote the first
 * time someone opens it (or a prefetch for a kept project wants them), checked
 * against the file's hash, and kept as a blob. The signed link a list or detail gave
 * within the hour is used as it is (no request against the API's quota); otherwise,
 * or when that link is refused, one `private_file_detail` GET gets a fresh one. A
 * fetch a user asked for keeps the file here (contents-policy.ts recordFetched).
 *
 * The bytes arrive in a part file (download-parts.ts): a cut connection is asked again
 * at once for the rest (Range) for as long as each attempt brings more, and what is
 * kept when it gives up, or when the agent stops, is where the next fetch carries on.
 */
export async function fetchBlobFromRemote(
  sync: Pick<SyncContext, 'remote' | 'orgId' | 'engine'>,
  policy: ContentsPolicy,
  links: LinkRules,
  file: PrivateFileRow,
  options: FetchBlobOptions = {},
  report: DownloadReporter = () => undefined,
): Promise<void> {
  const requestClass = options.requestClass ?? 'user';
  try {
    // On a metered connection background contents wait (MeteredWaitError), before any request is spent.
    sync.remote.bandwidth?.assertMayStart('download', requestClass);
    if (!file.file_hash) throw new ApiError(404, { detail: `"${file.title}" has no contents to fetch.` });
    const { fileRoot } = sync.engine.store;
    const part = new DownloadPart(fileRoot, file.id, file.file_hash);
    let isFetched = false;
    await part.exclusively(async () => {
      // Fetched meanwhile by whoever held the part (a prefetch a person's open waited for).
      if (fs.existsSync(blobPath(fileRoot, part.sha256))) return;
      await part.dropOtherContents();
      await receiveIntoPart(sync, policy, links, file, part, requestClass, (received) => report(file.id, { state: 'running', received, total: file.filesize ?? received }));
      const received = await part.finish();
      if (!received) throw new ApiError(502, { detail: `The remote sent different bytes than "${file.title}" holds (hash mismatch); nothing was kept.` });
      await adoptBlob(sync.engine, received, async () => undefined);
      isFetched = true;
    });
    if (isFetched) report(file.id, { state: 'done' });
  } catch (error) {
    if (!sync.remote.stopSignal.aborted) report(file.id, downloadEndOf(error));
    throw error;
  }
  if (requestClass === 'user') await policy.recordFetched(file.id);
}

/**
 * The remote sent more bytes than the file's record here holds: the file most likely
 * changed on the remote since the record was pulled. Answered 503, as for an
 * unreachable remote (asking again later is what helps), but it is no network
 * trouble, so its activity entry does not read as offline.
 */
class ChangedOnRemoteError extends ApiError {}

/** How a fetch that threw ended, for its activity entry. */
function downloadEndOf(error: unknown): DownloadEvent {
  if (error instanceof MeteredWaitError) return { state: 'waiting', reason: 'metered' };
  if (error instanceof BudgetWaitError) return { state: 'waiting', reason: 'budget', mayGoAt: error.mayGoAt };
  const detail = error instanceof Error ? error.message : String(error);
  // Unreachable (503): it goes when the remote can be reached again; anything else is the fetch's own failure.
  const isUnreachable = error instanceof ApiError && error.statusCode === 503 && !(error instanceof ChangedOnRemoteError);
  return isUnreachable ? { state: 'offline', detail } : { state: 'failed', detail };
}

/** Fills `part` to the end, through the link a list gave or a fresh one; throws (keeping the part) once attempts stop bringing bytes. */
async function receiveIntoPart(
  sync: Pick<SyncContext, 'remote' | 'orgId' | 'engine'>,
  policy: ContentsPolicy,
  links: LinkRules,
  file: PrivateFileRow,
  part: DownloadPart,
  requestClass: 'user' | 'background',
  onKept: (bytes: number) => void,
): Promise<void> {
  const unavailable = (why: string) =>
    new ApiError(503, { detail: `The contents of "${file.title}" are on the remote and could not be fetched (${why}). Try again when the remote can be reached; what arrived so far is kept.` });
  // The record says how large the file is; a remote sending far more is refused as it streams, not stored first.
  const maxBytes = Math.min(sync.engine.files.maxUploadBytes, (file.filesize ?? sync.engine.files.maxUploadBytes) + REMOTE_LIMITS.downloadMarginBytes);
  const open = (url: string): OpenDownload => (range, onAnswer) =>
    downloadStream(url, {
      remoteBaseUrl: sync.remote.baseUrl,
      ...links,
      signal: sync.remote.stopSignal,
      ...(sync.remote.bandwidth ? { pace: { limiter: sync.remote.bandwidth, requestClass } } : {}),
      ...(range ? { range } : {}),
      onAnswer,
    });
  let link: { url: string; isFresh: boolean } | null = null;
  const remembered = await policy.freshLink(file.id);
  if (remembered) link = { url: remembered.url, isFresh: false };
  let furthest = await part.keptBytes();
  let stalled = 0;
  for (;;) {
    // Complete already (the agent stopped between the last byte and keeping it): only the hash is left to check.
    if (file.filesize !== null && furthest === file.filesize && furthest > 0) return;
    // More than the file holds can never be its contents (a range answered wrongly): start over.
    if (file.filesize !== null && furthest > file.filesize) {
      await part.discard();
      furthest = 0;
    }
    if (!link) {
      const detail = await sync.remote.request({ method: 'GET', path: apiPaths.privateFile(sync.orgId, file.id), action: privateFileModel.quota.detail, requestClass });
      if (detail.kind !== 'ok' || typeof detail.body?.file_contents !== 'string') throw unavailable('kind' in detail ? detail.kind : 'no link');
      link = { url: detail.body.file_contents, isFresh: true };
    }
    try {
      await part.receive(open(link.url), maxBytes, onKept);
      // Only a link that worked is kept for its hour: a bad one is asked for afresh next time.
      if (link.isFresh) await rememberContentsLink(sync.engine.db, file.id, link.url, sync.engine.clock.now());
      return;
    } catch (error) {
      if (error instanceof MeteredWaitError || sync.remote.stopSignal.aborted) throw error;
      const kept = await part.keptBytes();
      const isProgress = kept > furthest;
      furthest = Math.max(furthest, kept);
      stalled = isProgress ? 0 : stalled + 1;
      if (!link.isFresh && !isProgress) {
        // Expired early, or refused (the user lost access): a detail GET says which.
        await policy.forgetLink(file.id);
        link = null;
        continue;
      }
      if (isProgress) continue;
      if (error instanceof RemoteLinkRefused) {
        await policy.forgetLink(file.id);
        // A refused link is not a network trouble that passes: the sentence says what would let it through.
        throw new ApiError(502, { detail: `The contents of "${file.title}" were not fetched: ${error.message}.` });
      }
      if (error instanceof FileTooLargeError) {
        // What arrived is discarded (download-parts.ts): bytes past the record's size are no part of these contents.
        throw new ChangedOnRemoteError(503, {
          detail: `The contents of "${file.title}" could not be fetched yet: the remote sent more than the ${file.filesize ?? '?'} bytes the file holds here, so the file has most likely changed on the remote. Try again after the next sync brings its new details.`,
        });
      }
      if (stalled >= STALLED_ATTEMPTS) {
        await policy.forgetLink(file.id);
        throw unavailable((error as Error).message);
      }
    }
  }
}

/**
 * A version listed here whose bytes only the remote has (issue 35: the server's
 * contents, replaced here by an edit before they were ever fetched). A SolarDesk
 * remote keeps versions too: its list of the file's versions is asked for the one with
 * the same hash, and that version's bytes come down (checked against the hash, kept as
 * a blob). Two requests against the private files quota, made only when a person asks.
 */
export async function fetchVersionFromRemote(sync: Pick<SyncContext, 'remote' | 'orgId' | 'engine'>, file: PrivateFileRow, version: PrivateFileVersionRow): Promise<void> {
  const onlyThere = (why: string) =>
    new ApiError(404, { detail: `This version of "${file.title}" is not on this computer, and the remote could not give it (${why}).` });
  const list = await sync.remote.request({ method: 'GET', path: apiPaths.privateFileVersions(sync.orgId, file.id), action: 'private_file_versions' });
  if (list.kind === 'unreachable' || list.kind === 'retry') {
    throw new ApiError(503, { detail: `This version of "${file.title}" is on the remote only, and the remote cannot be reached (${list.message}). Try again when it can.` });
  }
  if (list.kind !== 'ok') throw onlyThere(list.message);
  if (!Array.isArray(list.body)) throw onlyThere('its answer was not a list of versions');
  const match = (list.body as Array<{ id?: unknown; file_hash?: unknown }>).find((entry) => entry.file_hash === version.file_hash && typeof entry.id === 'number');
  if (!match) throw onlyThere('it no longer keeps these contents as a version');
  const maxBytes = Math.min(sync.engine.files.maxUploadBytes, version.filesize + REMOTE_LIMITS.downloadMarginBytes);
  let received;
  try {
    const bytes = await sync.remote.downloadFromApi(apiPaths.privateFileVersionContents(sync.orgId, file.id, match.id as number), 'private_file_versions');
    received = await receiveToTempFile(sync.engine.store.fileRoot, bytes, maxBytes, 'download');
  } catch (error) {
    throw onlyThere(error instanceof FileTooLargeError ? `it sent more than the ${version.filesize} bytes the version holds` : (error as Error).message);
  }
  if (received.sha256 !== version.file_hash) {
    await discardTempFile(received.tempPath);
    throw new ApiError(502, { detail: `The remote sent different bytes than this version of "${file.title}" holds (hash mismatch); nothing was kept.` });
  }
  await adoptBlob(sync.engine, received, async () => undefined);
}

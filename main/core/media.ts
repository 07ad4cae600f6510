// The /media/ route (shared/media-paths.ts): thumbnails and the viewers' file
// contents, answered the same way to browser mode's bridge server and the
// desktop's app:// protocol. Thumbnails come from the blob on this computer only:
// contents that are not here (files on demand) get a 404 at once, never a fetch
// from the remote. A file's contents for a viewer come through the local API's
// signed link, so its access rule is the API's.
import fs from 'node:fs';
import { apiPaths } from '../../shared/api-paths.ts';
import { parseMediaPath } from '../../shared/media-paths.ts';
import type { ApiResponse } from '../../shared/bridge.ts';
import type { PrivateFileJson } from '../../shared/schemas/private-file.ts';
import { blobPath } from '../engine/files/blob-store.ts';
import type { LocalBackend } from './local-backend.ts';
import { describeApiError, type RawApiRequest } from './local-api.ts';
import { THUMBNAIL_CONTENT_TYPE, type ThumbnailService } from './thumbnails.ts';

export interface MediaAnswer {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array | ReadableStream<Uint8Array> | string;
}

export interface MediaDeps {
  backend: () => Promise<LocalBackend>;
  callApi: (request: RawApiRequest) => Promise<ApiResponse>;
  thumbnails: ThumbnailService;
}

/** A file's contents never run as a page of the app's origin, whatever they are. */
const SAFE_HEADERS = { 'x-content-type-options': 'nosniff', 'content-security-policy': "sandbox; default-src 'none'" };
/** The URL names the contents (their hash), so an answer never goes stale. */
const FOREVER = 'private, max-age=31536000, immutable';

/** Types the viewers show; anything else is opened with the system (SVG too: it may carry script). */
export function isViewableType(contentType: string): boolean {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  return type === 'application/pdf' || (type.startsWith('image/') && type !== 'image/svg+xml');
}

const text = (status: number, message: string, cache = 'no-store'): MediaAnswer => ({
  status,
  headers: { ...SAFE_HEADERS, 'content-type': 'text/plain; charset=utf-8', 'cache-control': cache },
  body: message,
});

export function createMediaRoute(deps: MediaDeps): (urlPath: string, ifNoneMatch?: string) => Promise<MediaAnswer> {
  async function thumbnail(sha256: string, ifNoneMatch?: string): Promise<MediaAnswer> {
    const backend = await deps.backend();
    // Contents of a file of this workspace's org: a hash is no key to another org's pictures.
    const known = await backend.db
      .selectFrom('private_files')
      .select('id')
      .where('file_hash', '=', sha256)
      .where('org_id', '=', backend.identity().orgId)
      .executeTakeFirst();
    if (!known) return text(404, 'No file of this organisation has these contents.');
    // 204s, not errors: a list of files on demand would fill the console with 404s otherwise.
    const notHere: MediaAnswer = { status: 204, headers: { ...SAFE_HEADERS, 'x-thumbnail': 'not-here', 'cache-control': 'no-cache' }, body: '' };
    const etag = `"${sha256}.${deps.thumbnails.size}"`;
    if (ifNoneMatch === etag) return { status: 304, headers: { etag, 'cache-control': FOREVER }, body: '' };
    const blob = blobPath(backend.fileRoot, sha256);
    // Files on demand: the contents are on the remote only. No thumbnail, and no download to make one.
    if (!fs.existsSync(blob)) return notHere;
    let bytes: Buffer | null;
    try {
      bytes = await deps.thumbnails.thumbnail(sha256, blob);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return notHere;
      throw error;
    }
    if (!bytes) return { status: 204, headers: { ...SAFE_HEADERS, etag, 'x-thumbnail': 'none', 'cache-control': FOREVER }, body: '' };
    return { status: 200, headers: { ...SAFE_HEADERS, etag, 'content-type': THUMBNAIL_CONTENT_TYPE, 'cache-control': FOREVER }, body: bytes };
  }

  async function contents(fileId: number): Promise<MediaAnswer> {
    const backend = await deps.backend();
    const described = await deps.callApi({ method: 'GET', path: apiPaths.privateFile(backend.identity().orgId, fileId) });
    if (described.status !== 200) return text(described.status, describeApiError(described));
    const file = described.body as PrivateFileJson;
    // The signed link needs no token; on a replica it fetches contents that are not here yet (files on demand).
    const response = await fetch(file.file_contents);
    if (!response.ok || !response.body) {
      await response.body?.cancel();
      return text(response.status === 200 ? 502 : response.status, `The local API could not give the contents of ${file.title} (${response.status}).`);
    }
    const contentType = response.headers.get('content-type') ?? 'application/octet-stream';
    if (!isViewableType(contentType)) {
      await response.body.cancel();
      return text(415, `${file.title} is not an image or a PDF: open it with the system instead.`);
    }
    const headers: Record<string, string> = { ...SAFE_HEADERS, 'content-type': contentType, 'cache-control': FOREVER };
    const length = response.headers.get('content-length');
    if (length) headers['content-length'] = length;
    return { status: 200, headers, body: response.body };
  }

  return async (urlPath, ifNoneMatch) => {
    const asked = parseMediaPath(urlPath);
    if (!asked) return text(404, 'Not found.');
    return asked.kind === 'thumbnail' ? thumbnail(asked.sha256, ifNoneMatch) : contents(asked.fileId);
  };
}


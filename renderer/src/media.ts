// Pictures of files from the main process (/media/, shared/media-paths.ts) as
// object URLs the page can show. Thumbnails are remembered by the contents' hash,
// so a list scrolled back and forth asks once; at most MAX_AT_ONCE requests run
// at a time, so a screen of thumbnails still leaves the browser's connections
// (six per host) free for the bridge's calls and its event stream.
import { mediaPaths } from '../../shared/media-paths.ts';
import { fetchMedia } from './bridge-client.ts';

const MAX_AT_ONCE = 3;
/** Object URLs kept; the oldest are released beyond this (a list of thousands of photos). */
const MAX_KEPT = 600;

let running = 0;
const waiting: { start: () => void; cancelled: boolean }[] = [];

function next(): void {
  while (running < MAX_AT_ONCE && waiting.length > 0) {
    const entry = waiting.shift()!;
    if (entry.cancelled) continue;
    running++;
    entry.start();
  }
}

/** Runs `work` when a slot is free; `signal` drops it from the queue if it has not started. */
function queued<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const entry = {
      cancelled: false,
      start: () => {
        work()
          .then(resolve, reject)
          .finally(() => {
            running--;
            next();
          });
      },
    };
    signal?.addEventListener('abort', () => {
      entry.cancelled = true;
      reject(new DOMException('Aborted', 'AbortError'));
    });
    waiting.push(entry);
    next();
  });
}

/** null: the contents have no thumbnail (not an image or PDF) or are not on this computer. */
const thumbnails = new Map<string, string | null>();

function remember(sha256: string, url: string | null): void {
  thumbnails.set(sha256, url);
  if (thumbnails.size <= MAX_KEPT) return;
  const [oldest, oldUrl] = thumbnails.entries().next().value!;
  thumbnails.delete(oldest);
  if (oldUrl) URL.revokeObjectURL(oldUrl);
}

/** Whether the main process made a thumbnail of these contents, said they have none (not an image or PDF), or does not know yet. */
export async function hasThumbnail(sha256: string): Promise<boolean | 'unknown'> {
  const url = await thumbnailUrl(sha256).catch(() => null);
  if (url) return true;
  return thumbnails.get(sha256) === null ? false : 'unknown';
}

/** A thumbnail already fetched: undefined when not asked yet. */
export function knownThumbnail(sha256: string): string | null | undefined {
  return thumbnails.get(sha256);
}

/** The thumbnail of these contents as an object URL, or null when they have none here. */
export async function thumbnailUrl(sha256: string, signal?: AbortSignal): Promise<string | null> {
  const known = thumbnails.get(sha256);
  if (known !== undefined) return known;
  return queued(async () => {
    const again = thumbnails.get(sha256);
    if (again !== undefined) return again;
    const response = await fetchMedia(mediaPaths.thumbnail(sha256));
    if (response.status === 204) {
      // "none": this type has none, for good. "not-here": not on this computer (yet), asked again next time.
      if (response.headers.get('x-thumbnail') === 'none') remember(sha256, null);
      return null;
    }
    if (!response.ok) return null;
    const url = URL.createObjectURL(await response.blob());
    remember(sha256, url);
    return url;
  }, signal);
}

/** A file's whole contents for a viewer: its bytes and type, or a sentence saying why not. */
export async function fileContents(fileId: number, sha256: string | null): Promise<{ blob: Blob; type: string } | { error: string; status: number }> {
  const response = await fetchMedia(mediaPaths.file(fileId, sha256));
  if (!response.ok) return { error: (await response.text()) || `The file could not be read (${response.status}).`, status: response.status };
  const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
  return { blob: await response.blob(), type };
}

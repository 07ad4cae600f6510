// Where the renderer gets pictures of files from the main process (docs/files.md
// "Thumbnails and viewers"): one local route under /media/, served by browser
// mode's bridge server (behind its secret header) and by the desktop's app://
// protocol, both through main/core/media.ts. Not the API: these cost no quota and
// are cached by the browser, keyed by the contents' hash.
export const MEDIA_PREFIX = '/media/';

export const mediaPaths = {
  /** The thumbnail of these contents (WebP): 200; 204 with `x-thumbnail: none` when their type has none, `not-here` when they are not on this computer; 404 for contents no file of the org has. */
  thumbnail: (sha256: string) => `${MEDIA_PREFIX}thumbnails/${sha256}`,
  /** A file's contents for the viewers (images and PDFs only); `v` is its hash, so a new version is a new URL. */
  file: (fileId: number, sha256: string | null) => `${MEDIA_PREFIX}files/${fileId}${sha256 ? `?v=${sha256}` : ''}`,
};

/** The one parse of a media path: what it asks for, or null. */
export function parseMediaPath(urlPath: string): { kind: 'thumbnail'; sha256: string } | { kind: 'file'; fileId: number } | null {
  const pathname = urlPath.split('?')[0]!;
  const thumbnail = /^\/media\/thumbnails\/([0-9a-f]{64})$/.exec(pathname);
  if (thumbnail) return { kind: 'thumbnail', sha256: thumbnail[1]! };
  const file = /^\/media\/files\/([1-9][0-9]{0,14})$/.exec(pathname);
  if (file) return { kind: 'file', fileId: Number(file[1]) };
  return null;
}

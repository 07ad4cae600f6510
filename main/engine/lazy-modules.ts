// Libraries that only some requests need, loaded by the first of them rather than
// at start: each was tens of milliseconds of module loading before the desktop
// app's first screen (issue 30: sharp 45 ms, exifr 29 ms, pg 46 ms, measured alone).
// Node keeps a loaded module, so each later call is only a resolved promise.

/** sharp (libvips): thumbnails, system images, the demo's pictures. */
export const loadSharp = async () => (await import('sharp')).default;

/** exifr: a photo's EXIF. */
export const loadExifr = async () => (await import('exifr')).default;

/** undici: webhook deliveries' pipelined connections, sync's change stream (81 ms alone). */
export const loadUndici = async () => {
  const undici = await import('undici');
  // Bundled (main/main-bundle.js), a CommonJS package's exports are its default only.
  return undici.default ?? undici;
};

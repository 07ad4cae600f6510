// A photo's EXIF, read with exifr (issue 17): when it was taken, where (GPS), and
// which way up. Only the first blocks of the file are needed; nothing is decoded.
import { loadExifr } from '../engine/lazy-modules.ts';

export interface PhotoExif {
  /** Capture time as the camera wrote it (no zone in EXIF): "YYYY-MM-DDTHH:MM:SS", or null. */
  takenAt: string | null;
  /** GPS position in degrees (south and west negative), or null when the photo has none. */
  lat: number | null;
  lon: number | null;
  /** EXIF orientation 1-8 (1: upright), or null. */
  orientation: number | null;
}

export const NO_EXIF: PhotoExif = { takenAt: null, lat: null, lon: null, orientation: null };

/** Files worth reading EXIF from: what cameras and phones write. */
const PHOTO_EXTENSIONS = new Set(['.jpg', '.jpeg', '.jpe', '.heic', '.heif', '.tif', '.tiff', '.png', '.webp', '.avif', '.dng']);

export function isPhotoName(name: string): boolean {
  const dot = name.lastIndexOf('.');
  return dot > 0 && PHOTO_EXTENSIONS.has(name.slice(dot).toLowerCase());
}

export function isPhotoType(contentType: string | null | undefined): boolean {
  return typeof contentType === 'string' && contentType.toLowerCase().startsWith('image/');
}

const pad = (value: number) => String(value).padStart(2, '0');

/** exifr revives EXIF dates as local-time Dates; this gives back the wall-clock time the camera wrote. */
function wallClock(value: unknown): string | null {
  if (value instanceof Date && !Number.isNaN(value.getTime())) {
    return `${value.getFullYear()}-${pad(value.getMonth() + 1)}-${pad(value.getDate())}T${pad(value.getHours())}:${pad(value.getMinutes())}:${pad(value.getSeconds())}`;
  }
  if (typeof value === 'string') {
    const match = /^(\d{4}):(\d{2}):(\d{2}) (\d{2}):(\d{2}):(\d{2})/.exec(value);
    if (match) return `${match[1]}-${match[2]}-${match[3]}T${match[4]}:${match[5]}:${match[6]}`;
  }
  return null;
}

const finiteOrNull = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : null);

/**
 * Reads capture time, GPS position and orientation. A file that is not a photo, or
 * a photo without EXIF, answers NO_EXIF: never throws for what a camera or a user
 * can put in a folder.
 */
export async function readPhotoExif(buffer: Uint8Array): Promise<PhotoExif> {
  let data: Record<string, unknown> | undefined;
  try {
    const exifr = await loadExifr();
    data = (await exifr.parse(Buffer.from(buffer.buffer, buffer.byteOffset, buffer.byteLength), {
      tiff: true,
      ifd0: { pick: ['Orientation', 'DateTime'] } as never,
      exif: { pick: ['DateTimeOriginal', 'CreateDate'] } as never,
      gps: true,
      translateValues: false,
      reviveValues: true,
      xmp: false,
      icc: false,
      iptc: false,
      jfif: false,
      ihdr: false,
    })) as Record<string, unknown> | undefined;
  } catch {
    return NO_EXIF;
  }
  if (!data) return NO_EXIF;
  const lat = finiteOrNull(data.latitude);
  const lon = finiteOrNull(data.longitude);
  const orientation = finiteOrNull(data.Orientation);
  return {
    takenAt: wallClock(data.DateTimeOriginal) ?? wallClock(data.CreateDate) ?? wallClock(data.DateTime),
    lat: lat !== null && lon !== null ? lat : null,
    lon: lat !== null && lon !== null ? lon : null,
    orientation: orientation !== null && orientation >= 1 && orientation <= 8 ? orientation : null,
  };
}

// A photo's EXIF as SolarDesk uses it: when it was taken, where (GPS), and which
// way up it stands. Read with exifr, which reads only the segments asked for.
// The Files tab's image viewer shows it (app-core's files.photoInfo); the photo
// matching of issue 17 reuses this function.
import exifr from 'exifr';

export interface PhotoExif {
  /** When it was taken as the camera's clock said, "YYYY-MM-DDTHH:MM:SS" plus its offset ("+10:00") when the camera wrote one; null when not recorded. */
  takenAt: string | null;
  latitude: number | null;
  longitude: number | null;
  /** EXIF orientation 1..8, null when absent. */
  orientation: number | null;
}

const NONE: PhotoExif = { takenAt: null, latitude: null, longitude: null, orientation: null };

/** "2026:11:24 10:30:00" (EXIF's own form) as ISO local time, or null. */
function exifDate(value: unknown, offset: unknown): string | null {
  if (typeof value !== 'string') return null;
  const match = /^(\d{4}):(\d{2}):(\d{2})[ T](\d{2}):(\d{2}):(\d{2})/.exec(value);
  if (!match || match[1] === '0000') return null;
  const zone = typeof offset === 'string' && /^[+-]\d{2}:\d{2}$/.test(offset) ? offset : '';
  return `${match[1]}-${match[2]}-${match[3]}T${match[4]}:${match[5]}:${match[6]}${zone}`;
}

const isCoordinate = (value: unknown, limit: number): value is number => typeof value === 'number' && Number.isFinite(value) && Math.abs(value) <= limit;

/** Reads the EXIF of a JPEG, PNG, HEIC, TIFF or WebP photo; a file without EXIF (or not a photo) answers all nulls, never throws. */
export async function readPhotoExif(buffer: Uint8Array): Promise<PhotoExif> {
  let tags: Record<string, unknown> | undefined;
  try {
    tags = await exifr.parse(buffer, {
      pick: ['DateTimeOriginal', 'CreateDate', 'OffsetTimeOriginal', 'Orientation', 'GPSLatitude', 'GPSLatitudeRef', 'GPSLongitude', 'GPSLongitudeRef'],
      reviveValues: false,
      translateValues: false,
      gps: true,
    });
  } catch {
    return NONE;
  }
  if (!tags) return NONE;
  // exifr adds the signed decimal `latitude` and `longitude` from the GPS block.
  const latitude = isCoordinate(tags.latitude, 90) ? tags.latitude : null;
  const longitude = isCoordinate(tags.longitude, 180) ? tags.longitude : null;
  const hasPlace = latitude !== null && longitude !== null && !(latitude === 0 && longitude === 0);
  return {
    takenAt: exifDate(tags.DateTimeOriginal, tags.OffsetTimeOriginal) ?? exifDate(tags.CreateDate, null),
    latitude: hasPlace ? latitude : null,
    longitude: hasPlace ? longitude : null,
    orientation: typeof tags.Orientation === 'number' && tags.Orientation >= 1 && tags.Orientation <= 8 ? tags.Orientation : null,
  };
}

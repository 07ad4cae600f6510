// Real JPEGs for tests (issue 17): sharp draws the picture, piexifjs writes the EXIF
// a camera would (capture time, GPS position, orientation). No hand-made bytes.
import piexif from 'piexifjs';
import sharp from 'sharp';

export interface PhotoSpec {
  /** GPS position in degrees; none: a photo without a position. */
  lat?: number;
  lon?: number;
  /** "YYYY-MM-DDTHH:MM:SS", written as DateTimeOriginal. */
  takenAt?: string;
  orientation?: number;
  /** Changes the picture, so two photos never share contents (and a hash). */
  seed?: number;
}

export async function makeJpeg(spec: PhotoSpec = {}): Promise<Buffer> {
  const seed = spec.seed ?? Math.floor(Math.random() * 1_000_000);
  const jpeg = await sharp({
    create: { width: 64, height: 48, channels: 3, background: { r: seed % 256, g: (seed >> 8) % 256, b: (seed >> 16) % 256 } },
  })
    .jpeg({ quality: 80 })
    .toBuffer();
  const zeroth: Record<number, unknown> = { [piexif.ImageIFD.Make]: 'SolarDesk test camera' };
  if (spec.orientation) zeroth[piexif.ImageIFD.Orientation] = spec.orientation;
  const exif: Record<number, unknown> = {};
  if (spec.takenAt) exif[piexif.ExifIFD.DateTimeOriginal] = spec.takenAt.replace('T', ' ').replace(/-/g, ':');
  const gps: Record<number, unknown> = {};
  if (spec.lat !== undefined && spec.lon !== undefined) {
    gps[piexif.GPSIFD.GPSLatitudeRef] = spec.lat < 0 ? 'S' : 'N';
    gps[piexif.GPSIFD.GPSLatitude] = piexif.GPSHelper.degToDmsRational(Math.abs(spec.lat));
    gps[piexif.GPSIFD.GPSLongitudeRef] = spec.lon < 0 ? 'W' : 'E';
    gps[piexif.GPSIFD.GPSLongitude] = piexif.GPSHelper.degToDmsRational(Math.abs(spec.lon));
  }
  const dumped = piexif.dump({ '0th': zeroth, Exif: exif, GPS: gps });
  return Buffer.from(piexif.insert(dumped, jpeg.toString('binary')), 'binary');
}

/** A position `meters` north of `lat, lon` (a degree of latitude is about 111.2 km). */
export function northOf(position: { lat: number; lon: number }, meters: number): { lat: number; lon: number } {
  return { lat: position.lat + meters / 111_195, lon: position.lon };
}

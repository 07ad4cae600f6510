// EXIF read from real JPEGs made here: sharp draws them, piexifjs (a library, not
// hand-made bytes) writes the GPS position, the capture time and the orientation.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import piexif from 'piexifjs';
import { readPhotoExif } from './photo-exif.ts';

/** A small JPEG with these EXIF tags written into it by piexifjs. */
async function photoWithExif(options: { latitude: number; longitude: number; takenAt: string; orientation: number }): Promise<Buffer> {
  const jpeg = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#0ea5e9' } }).jpeg().toBuffer();
  const rational = (value: number) => piexif.GPSHelper.degToDmsRational(Math.abs(value));
  const exif = piexif.dump({
    '0th': { [piexif.ImageIFD.Orientation]: options.orientation },
    Exif: { [piexif.ExifIFD.DateTimeOriginal]: options.takenAt },
    GPS: {
      [piexif.GPSIFD.GPSLatitudeRef]: options.latitude < 0 ? 'S' : 'N',
      [piexif.GPSIFD.GPSLatitude]: rational(options.latitude),
      [piexif.GPSIFD.GPSLongitudeRef]: options.longitude < 0 ? 'W' : 'E',
      [piexif.GPSIFD.GPSLongitude]: rational(options.longitude),
    },
  });
  return Buffer.from(piexif.insert(exif, jpeg.toString('binary')), 'binary');
}

test('a photo taken in Sydney: its time, its place (signed, south and east) and its orientation', async () => {
  const photo = await photoWithExif({ latitude: -33.8688, longitude: 151.2093, takenAt: '2026:11:20 09:41:07', orientation: 6 });
  const exif = await readPhotoExif(photo);
  assert.equal(exif.takenAt, '2026-11-20T09:41:07');
  assert.ok(Math.abs(exif.latitude! - -33.8688) < 1e-4, String(exif.latitude));
  assert.ok(Math.abs(exif.longitude! - 151.2093) < 1e-4, String(exif.longitude));
  assert.equal(exif.orientation, 6);
});

test('a photo with no EXIF, and bytes that are no photo, answer nulls', async () => {
  const plain = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#000' } }).jpeg().toBuffer();
  const none = { takenAt: null, latitude: null, longitude: null, orientation: null };
  assert.deepEqual(await readPhotoExif(plain), none);
  assert.deepEqual(await readPhotoExif(Buffer.from('month,kwh\n')), none);
});

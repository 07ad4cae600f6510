// EXIF read from real JPEGs (sharp draws them, piexifjs writes the tags as a camera does).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { isPhotoName, NO_EXIF, readPhotoExif } from './photo-exif.ts';
import { readPhotoExifOffThread } from './media-worker.ts';
import { makeJpeg } from './testing/photo-files.ts';

test('capture time, GPS position and orientation come back as written', async () => {
  const jpeg = await makeJpeg({ lat: -33.865143, lon: 151.2099, takenAt: '2026-03-14T09:26:53', orientation: 6, seed: 1 });
  const exif = await readPhotoExif(jpeg);
  assert.equal(exif.takenAt, '2026-03-14T09:26:53');
  assert.ok(Math.abs(exif.lat! - -33.865143) < 1e-5, `${exif.lat}`);
  assert.ok(Math.abs(exif.lon! - 151.2099) < 1e-5, `${exif.lon}`);
  assert.equal(exif.orientation, 6);
});

test('north and east positions keep their sign; west is negative', async () => {
  const exif = await readPhotoExif(await makeJpeg({ lat: 51.5007, lon: -0.1246, seed: 2 }));
  assert.ok(Math.abs(exif.lat! - 51.5007) < 1e-5);
  assert.ok(Math.abs(exif.lon! - -0.1246) < 1e-5);
  assert.equal(exif.takenAt, null);
});

test('a photo without EXIF, a text file and cut-off bytes answer nothing, never throw', async () => {
  const plain = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#888' } }).jpeg().toBuffer();
  assert.deepEqual(await readPhotoExif(plain), { takenAt: null, lat: null, lon: null, orientation: null });
  assert.deepEqual(await readPhotoExif(Buffer.from('just some notes')), { takenAt: null, lat: null, lon: null, orientation: null });
  const withGps = await makeJpeg({ lat: 10, lon: 10, seed: 3 });
  const cut = await readPhotoExif(withGps.subarray(0, 20));
  assert.equal(cut.lat, null);
});

test('photo names', () => {
  assert.equal(isPhotoName('IMG_0001.JPG'), true);
  assert.equal(isPhotoName('roof.heic'), true);
  assert.equal(isPhotoName('notes.txt'), false);
  assert.equal(isPhotoName('.jpg'), false);
});

test('read in the media worker (off the main thread), EXIF comes back the same', async () => {
  const jpeg = await makeJpeg({ lat: -33.865143, lon: 151.2099, takenAt: '2026-03-14T09:26:53', orientation: 6, seed: 1 });
  assert.deepEqual(await readPhotoExifOffThread(jpeg), await readPhotoExif(jpeg));
  assert.deepEqual(await readPhotoExifOffThread(Buffer.from('just some notes')), NO_EXIF);
});

// Thumbnails, the viewers' contents, "Open", "Show in folder" and a photo's EXIF,
// through the core on a real data folder with the demo data, and the /media/ route
// over browser mode's real HTTP server (its secret, its caching headers). The
// system's "open" and "show in folder" are recording stand-ins: no desktop here.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import piexif from 'piexifjs';
import type { BridgeEnvelope, PhotoInfo } from '../../../shared/bridge.ts';
import { BRIDGE_HTTP } from '../../../shared/bridge-http.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { mediaPaths } from '../../../shared/media-paths.ts';
import type { PrivateFileJson } from '../../../shared/schemas/private-file.ts';
import { type AppCore, startAppCore } from '../app-core.ts';
import { defaultSettings, fileSettingsStore } from '../host-stores.ts';
import { makeTempDir } from '../../engine/testing/test-server.ts';
import { type BridgeServer, startBridgeServer } from '../../web/bridge-server.ts';
import { startTestCore } from '../testing/app-core-testing.ts';

const ORG = 1;
const ok = <T>(envelope: BridgeEnvelope<unknown>): T => {
  if (!envelope.ok) assert.fail(`expected ok, got ${JSON.stringify(envelope.error)}`);
  return envelope.response as T;
};

describe('file previews', () => {
  const dataDir = makeTempDir('solardesk-preview-');
  const opened: string[] = [];
  const shown: string[] = [];
  let core: AppCore;
  let server: BridgeServer;
  let files: PrivateFileJson[];
  const byTitle = (title: string) => files.find((file) => file.title === title)!;
  const media = (urlPath: string, headers: Record<string, string> = {}) =>
    fetch(`${server.baseUrl}${urlPath}`, { headers: { [BRIDGE_HTTP.secretHeader]: server.secret, ...headers } });

  before(async () => {
    core = await startAppCore({
      dataDir,
      settings: fileSettingsStore(path.join(dataDir, 'desktop-settings.json'), defaultSettings(path.join(dataDir, 'folders'))),
      openFolder: async () => true,
      openFile: async (file) => {
        opened.push(file);
        return true;
      },
      showItemInFolder: (file) => void shown.push(file),
    });
    server = await startBridgeServer({ core, distDir: null }, 0);
    files = ok<{ body: PrivateFileJson[] }>(await core.invoke('api.request', { method: 'GET', path: apiPaths.privateFiles(ORG), query: { limit: 100 } })).body;
  });
  after(async () => {
    await server.close();
    await core.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('a demo photo and a demo PDF have thumbnails, cached by their hash for good; a CSV has none; the secret is needed', async () => {
    const photo = byTitle('Roof, north face');
    const answer = await media(mediaPaths.thumbnail(photo.file_hash!));
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('content-type'), 'image/webp');
    assert.equal(answer.headers.get('cache-control'), 'private, max-age=31536000, immutable');
    const meta = await sharp(Buffer.from(await answer.arrayBuffer())).metadata();
    assert.equal(Math.max(meta.width!, meta.height!), 256);
    // Kept in the data folder, private.
    const cached = path.join(dataDir, 'thumbnails', photo.file_hash!.slice(0, 2), `${photo.file_hash}.256.webp`);
    assert.ok(fs.existsSync(cached));
    if (process.platform !== 'win32') assert.equal(fs.statSync(cached).mode & 0o777, 0o600);
    const etag = answer.headers.get('etag')!;
    assert.equal((await media(mediaPaths.thumbnail(photo.file_hash!), { 'if-none-match': etag })).status, 304);

    const proposal = byTitle('Proposal');
    const page = await media(mediaPaths.thumbnail(proposal.file_hash!));
    assert.equal(page.status, 200);
    assert.equal((await sharp(Buffer.from(await page.arrayBuffer())).metadata()).height, 256);

    const bill = byTitle('Electricity bill 2026 Q2');
    const none = await media(mediaPaths.thumbnail(bill.file_hash!));
    assert.equal(none.status, 204);
    assert.equal(none.headers.get('x-thumbnail'), 'none');

    assert.equal((await fetch(`${server.baseUrl}${mediaPaths.thumbnail(photo.file_hash!)}`)).status, 401, 'no secret, no picture');
    assert.equal((await media(mediaPaths.thumbnail('0'.repeat(64)))).status, 404, 'contents no file of the org has');
  });

  test("the viewers get images and PDFs whole; other types are refused with what to do; an unknown file is 404", async () => {
    const proposal = byTitle('Proposal');
    const pdf = await media(mediaPaths.file(proposal.id, proposal.file_hash));
    assert.equal(pdf.status, 200);
    assert.equal(pdf.headers.get('content-type'), 'application/pdf');
    assert.match(pdf.headers.get('content-security-policy')!, /sandbox/);
    assert.equal(Buffer.from(await pdf.arrayBuffer()).subarray(0, 5).toString('latin1'), '%PDF-');

    const photo = byTitle('Switchboard');
    const jpeg = await media(mediaPaths.file(photo.id, photo.file_hash));
    assert.equal(jpeg.status, 200);
    assert.equal(Buffer.from(await jpeg.arrayBuffer()).length, photo.filesize);

    const bill = byTitle('Van stock list');
    const refused = await media(mediaPaths.file(bill.id, bill.file_hash));
    assert.equal(refused.status, 415);
    assert.match(await refused.text(), /open it with the system/);
    assert.equal((await media(mediaPaths.file(999_999, null))).status, 404);
  });

  test('Open and Show in folder use the copy in the project folder, downloading it there first', async () => {
    const photo = byTitle('Meter photo');
    const first = ok<{ path: string; opened: boolean }>(await core.invoke('files.open', { fileId: photo.id }));
    assert.equal(first.opened, true);
    assert.deepEqual(opened, [first.path]);
    assert.equal(path.extname(first.path), '.jpg');
    assert.equal(fs.statSync(first.path).size, photo.filesize);
    const shownAt = ok<{ path: string }>(await core.invoke('files.showInFolder', { fileId: photo.id }));
    assert.equal(shownAt.path, first.path, 'the same copy, not a second download');
    assert.deepEqual(shown, [first.path]);
  });

  test('a photo with GPS and a capture time: files.photoInfo reads them (written with piexifjs into a real JPEG)', async () => {
    const jpeg = await sharp({ create: { width: 320, height: 240, channels: 3, background: '#22c55e' } }).jpeg().toBuffer();
    const exif = piexif.dump({
      Exif: { [piexif.ExifIFD.DateTimeOriginal]: '2026:10:02 14:05:09' },
      GPS: {
        [piexif.GPSIFD.GPSLatitudeRef]: 'S',
        [piexif.GPSIFD.GPSLatitude]: piexif.GPSHelper.degToDmsRational(27.4698),
        [piexif.GPSIFD.GPSLongitudeRef]: 'E',
        [piexif.GPSIFD.GPSLongitude]: piexif.GPSHelper.degToDmsRational(153.0251),
      },
    });
    const bytes = new Uint8Array(Buffer.from(piexif.insert(exif, jpeg.toString('binary')), 'binary'));
    const created = ok<{ body: PrivateFileJson }>(await core.invoke('files.upload', { uploadId: 'gps-photo', projectId: 7, fileName: 'site-gps.jpg', bytes }));
    const info = ok<PhotoInfo>(await core.invoke('files.photoInfo', { fileId: created.body.id }));
    assert.equal(info.isHere, true);
    assert.equal(info.takenAt, '2026-10-02T14:05:09');
    assert.ok(Math.abs(info.latitude! + 27.4698) < 1e-4 && Math.abs(info.longitude! - 153.0251) < 1e-4, JSON.stringify(info));
    // A PDF has no EXIF: nulls, not an error.
    assert.deepEqual(ok<PhotoInfo>(await core.invoke('files.photoInfo', { fileId: byTitle('Proposal').id })), { takenAt: null, latitude: null, longitude: null, isHere: true });
  });
});

describe('file previews in browser mode', () => {
  const dataDir = makeTempDir('solardesk-preview-browser-');
  let core: AppCore;
  before(async () => {
    core = await startTestCore(dataDir);
  });
  after(async () => {
    await core.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('Open and Show in folder answer not_available, saying what to do instead', async () => {
    for (const channel of ['files.open', 'files.showInFolder'] as const) {
      const answer = await core.invoke(channel, { fileId: 1 });
      assert.equal(answer.ok, false);
      if (!answer.ok) {
        assert.equal(answer.error.code, 'not_available');
        assert.match(answer.error.message, /desktop app only.*Download/);
      }
    }
  });
});

// The names files get on disk carry an extension that matches what they are: from
// the name, else the content type, else the magic bytes (real bytes made here).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { makeTempDir } from '../engine/testing/test-server.ts';
import { headOfFile, nameWithExtension, typeOfFile } from './file-extension.ts';

const nothing = new Uint8Array();
const jpeg = () => sharp({ create: { width: 8, height: 8, channels: 3, background: '#f2a900' } }).jpeg().toBuffer();
const png = () => sharp({ create: { width: 8, height: 8, channels: 4, background: '#1c3f6e' } }).png().toBuffer();
const pdf = () => Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');

test('a name whose extension fits the type stays as it is, whatever its case', async () => {
  assert.equal(await nameWithExtension('Site plan.pdf', 'site-plan.pdf', 'application/pdf', nothing), 'Site plan.pdf');
  assert.equal(await nameWithExtension('report.PDF', 'report.PDF', 'application/pdf', nothing), 'report.PDF');
  assert.equal(await nameWithExtension('Meter.jpeg', 'meter.jpg', 'image/jpeg', nothing), 'Meter.jpeg');
  assert.equal(await nameWithExtension('IMG_0042.JPG', 'IMG_0042.JPG', 'image/jpeg', nothing), 'IMG_0042.JPG');
  assert.equal(await nameWithExtension('Clip.mov', 'clip.mov', 'video/quicktime', nothing), 'Clip.mov');
});

test('a title without an extension gets the file name\'s, else the content type\'s', async () => {
  assert.equal(await nameWithExtension('Roof, north face', 'roof-north-face.jpg', 'image/jpeg', nothing), 'Roof, north face.jpg');
  assert.equal(await nameWithExtension('Notes', 'notes.txt', 'text/plain', nothing), 'Notes.txt');
  assert.equal(await nameWithExtension('Bill', 'bill.csv', 'text/csv', nothing), 'Bill.csv');
  assert.equal(await nameWithExtension('Site photo', 'Site photo', 'image/jpeg', nothing), 'Site photo.jpg', 'image/jpeg is .jpg');
  assert.equal(await nameWithExtension('Walkthrough', 'Walkthrough', 'video/quicktime', nothing), 'Walkthrough.mov', 'video/quicktime is .mov, not .qt');
  assert.equal(await nameWithExtension('Voice memo', '', 'audio/mpeg', nothing), 'Voice memo.mp3', 'audio/mpeg is .mp3, not .mpga');
  assert.equal(await nameWithExtension('Proposal', 'Proposal', 'application/pdf; charset=binary', nothing), 'Proposal.pdf', 'parameters are not part of the type');
});

test('an extension that contradicts the type is kept and the right one added; nothing contradicts a container or an unknown type', async () => {
  assert.equal(await nameWithExtension('Invoice 2024.03', 'Invoice 2024.03', 'application/pdf', nothing), 'Invoice 2024.03.pdf');
  assert.equal(await nameWithExtension('photo.png', 'photo.png', 'image/jpeg', nothing), 'photo.png.jpg');
  assert.equal(await nameWithExtension('Contract.docx', 'Contract.docx', 'application/zip', nothing), 'Contract.docx', 'a .docx is a zip');
  assert.equal(await nameWithExtension('readme.md', 'readme.md', 'text/plain', nothing), 'readme.md', 'markdown is plain text');
  assert.equal(await nameWithExtension('v1.2 final', 'v1.2 final', 'application/octet-stream', nothing), 'v1.2 final');
  assert.equal(await nameWithExtension('data.xyz', 'data.xyz', 'application/octet-stream', nothing), 'data.xyz');
});

test('with no telling type, the magic bytes decide: a nameless JPEG, PDF and PNG made here', async () => {
  assert.equal(await nameWithExtension('Roof, north face', 'Roof, north face', 'application/octet-stream', await jpeg()), 'Roof, north face.jpg');
  assert.equal(await nameWithExtension('Contract', 'Contract', 'application/octet-stream', pdf()), 'Contract.pdf');
  assert.equal(await nameWithExtension('Output chart', '', null, await png()), 'Output chart.png');
  assert.equal(await nameWithExtension('Site plan.pdf', 'Site plan.pdf', 'application/octet-stream', pdf()), 'Site plan.pdf', 'a fitting extension is not doubled');
  assert.equal(await typeOfFile('application/zip', await png()), 'image/png', 'the bytes narrow a container type');
  assert.equal(await typeOfFile('image/png', await jpeg()), 'image/png', 'a telling content type comes before the bytes');
  // Bytes nobody recognises: no guess (octet-stream would be ".bin").
  assert.equal(await nameWithExtension('Notes', 'Notes', 'application/octet-stream', new Uint8Array([1, 2, 3, 4])), 'Notes');
});

test('the bytes are read from disk only when the type says nothing, and the name is valid on every OS', async () => {
  const dir = makeTempDir('solardesk-ext-');
  try {
    const file = path.join(dir, 'blob');
    fs.writeFileSync(file, await jpeg());
    let reads = 0;
    const head = () => {
      reads++;
      return headOfFile(file);
    };
    assert.equal(await nameWithExtension('Roof: north/south?', 'x', 'application/octet-stream', head), 'Roof north south.jpg');
    assert.equal(reads, 1);
    assert.equal(await nameWithExtension('Roof', 'roof.jpg', 'image/jpeg', head), 'Roof.jpg');
    assert.equal(reads, 1, 'a telling content type needs no read');
    assert.equal(await nameWithExtension('.env-notes', '.env-notes', 'text/plain', nothing), '_env-notes.txt');
    assert.equal(await nameWithExtension('???', '', 'application/octet-stream', nothing, 'file-7'), 'file-7');
    const long = await nameWithExtension('x'.repeat(300), '', 'image/jpeg', nothing);
    assert.ok(long.endsWith('.jpg') && long.length <= 120, long);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

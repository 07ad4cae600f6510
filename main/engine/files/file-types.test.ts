// Content types, and the extension rule every name the app writes to disk or sends follows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contentTypeFor, extensionForType, extensionFitsType, extensionOf, nameWithTypeExtension } from './file-types.ts';

test('the usual extension of a type is the one systems write, and says nothing for octet-stream', () => {
  assert.equal(extensionForType('image/jpeg'), '.jpg');
  assert.equal(extensionForType('video/quicktime'), '.mov');
  assert.equal(extensionForType('audio/mpeg'), '.mp3');
  assert.equal(extensionForType('application/pdf; charset=binary'), '.pdf');
  assert.equal(extensionForType('application/octet-stream'), '');
  assert.equal(extensionForType('application/x-made-up'), '');
});

test('a name\'s extension: fits its type in any case or alias, a container or unknown type contradicts nothing', () => {
  assert.equal(extensionOf('report.PDF'), '.PDF');
  assert.equal(extensionOf('Roof, north face'), '');
  assert.equal(extensionOf('v1.2 final'), '');
  assert.equal(extensionOf('.env'), '', 'a dot-name is all name');
  assert.ok(extensionFitsType('.JPG', 'image/jpeg'));
  assert.ok(extensionFitsType('.jpeg', 'image/jpg'), 'an alias of the type');
  assert.ok(extensionFitsType('.docx', 'application/zip'));
  assert.ok(extensionFitsType('.md', 'text/plain'));
  assert.ok(extensionFitsType('.xyz', 'application/octet-stream'));
  assert.ok(!extensionFitsType('.png', 'image/jpeg'));
  assert.ok(!extensionFitsType('', 'image/jpeg'));
});

test('nameWithTypeExtension adds, never replaces', () => {
  assert.equal(nameWithTypeExtension('Site plan.pdf', [], 'application/pdf'), 'Site plan.pdf');
  assert.equal(nameWithTypeExtension('Roof, north face', ['roof.jpeg'], 'image/jpeg'), 'Roof, north face.jpeg', "the original name's extension first");
  assert.equal(nameWithTypeExtension('Roof, north face', [], 'image/jpeg'), 'Roof, north face.jpg');
  assert.equal(nameWithTypeExtension('Invoice 2024.03', [], 'application/pdf'), 'Invoice 2024.03.pdf');
  assert.equal(nameWithTypeExtension('scan', [], contentTypeFor('', new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x2d]))), 'scan.pdf');
  assert.equal(nameWithTypeExtension('Notes', ['Notes'], 'application/octet-stream'), 'Notes');
});

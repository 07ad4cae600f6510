// Folder and file names valid on every OS, case-only clashes, and which files are ignored.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  idInFolderName,
  ignoreReason,
  isIgnoredName,
  lockFileNamesFor,
  MAX_NAME_LENGTH,
  nameKey,
  projectFolderName,
  safeName,
  uniqueName,
} from './folder-names.ts';

test('characters illegal on Windows, macOS or Linux are replaced; trailing dots and spaces go', () => {
  assert.equal(safeName('Roof: north/south? "final"*.pdf', 'x'), 'Roof north south final .pdf');
  assert.equal(safeName('a<b>c|d\\e', 'x'), 'a b c d e');
  assert.equal(safeName('bill\u0000\u001f\u007f.pdf', 'x'), 'bill .pdf');
  assert.equal(safeName('tab\there', 'x'), 'tab here');
  assert.equal(safeName('trailing dots...', 'x'), 'trailing dots');
  assert.equal(safeName('trailing space   ', 'x'), 'trailing space');
  assert.equal(safeName('???', 'fallback'), 'fallback');
  assert.equal(safeName('..', 'fallback'), 'fallback');
  assert.equal(safeName('', 'fallback'), 'fallback');
});

test('names never start with a dot (hidden, and left alone by the watcher): the leading dots become "_"', () => {
  assert.equal(safeName('.solardesk', 'x'), '_solardesk');
  assert.equal(safeName('.env-notes', 'x'), '_env-notes');
  assert.equal(safeName('../../outside', 'x'), '_outside');
  assert.equal(safeName(' . .hidden. ', 'x'), '_hidden');
  assert.equal(safeName('...', 'fallback'), 'fallback');
  assert.equal(projectFolderName({ id: 4, title: '.solardesk' }), '_solardesk (4)');
  // Names that were fine stay exactly as they were: no existing folder is renamed.
  for (const name of ['v1.2 final', 'Roof (2).pdf', 'a.b.c', 'SD-3']) assert.equal(safeName(name, 'x'), name);
});

test('reserved device names get a prefix, with or without an extension', () => {
  for (const name of ['CON', 'prn', 'Aux', 'NUL', 'COM1', 'com9', 'LPT1', 'lpt9', 'con.txt', 'NUL.tar.gz']) {
    assert.equal(safeName(name, 'x'), `_${name}`, name);
  }
  for (const name of ['CONSOLE', 'COM10', 'LPT0', 'icon', 'nullable.txt']) assert.equal(safeName(name, 'x'), name, name);
});

test('long names are cut, in characters and in UTF-8 bytes, keeping the extension', () => {
  const long = safeName(`${'a'.repeat(300)}.pdf`, 'x');
  assert.equal(long.length, MAX_NAME_LENGTH);
  assert.ok(long.endsWith('.pdf'));
  const cjk = safeName(`${'屋'.repeat(200)}.jpg`, 'x');
  assert.ok(Buffer.byteLength(cjk) <= 240, `${Buffer.byteLength(cjk)} bytes`);
  assert.ok(cjk.endsWith('.jpg'));
  const folder = projectFolderName({ id: 1234567, title: 'x'.repeat(500) });
  assert.ok(folder.endsWith(' (1234567)'));
  assert.ok(folder.length <= MAX_NAME_LENGTH + ' (1234567)'.length);
});

test('project folders are "<title> (<id>)", falling back to the identifier, and the id can be read back', () => {
  assert.equal(projectFolderName({ id: 12, title: '21 Victoria Pde, Sandy Bay', identifier: 'SD-1' }), '21 Victoria Pde, Sandy Bay (12)');
  assert.equal(projectFolderName({ id: 3, title: '', identifier: 'SD-3' }), 'SD-3 (3)');
  assert.equal(projectFolderName({ id: 4, title: null, identifier: null }), 'Project (4)');
  assert.equal(projectFolderName({ id: 5, title: 'Smith/Jones: "roof"' }), 'Smith Jones roof (5)');
  assert.equal(projectFolderName({ id: 6, title: 'CON' }), '_CON (6)');
  assert.equal(idInFolderName('Smith Jones roof (5)'), 5);
  assert.equal(idInFolderName('Roof (2) copy'), null);
  assert.equal(idInFolderName('Holiday photos'), null);
});

test('case-only and normalisation-only clashes get a distinct name', () => {
  assert.equal(nameKey('Plan.PDF'), nameKey('plan.pdf'));
  assert.equal(nameKey('Cafe\u0301.txt'), nameKey('Café.txt'), 'NFD (macOS) and NFC are one name');
  const taken = new Set(['plan.pdf', 'plan (2).pdf'].map(nameKey));
  assert.equal(uniqueName('Plan.pdf', (key) => taken.has(key)), 'Plan (3).pdf');
  assert.equal(uniqueName('Other.pdf', (key) => taken.has(key)), 'Other.pdf');
  assert.equal(uniqueName('README', (key) => key === 'readme'), 'README (2)');
  assert.equal(uniqueName('archive.tar.gz', (key) => key === 'archive.tar.gz'), 'archive.tar (2).gz');
});

test('temporary, lock, system and hidden files are ignored, with a reason', () => {
  const ignored = [
    '~$Contract.docx', 'report.tmp', 'REPORT.TMP', 'video.mp4.part', 'setup.exe.crdownload', '.~lock.budget.ods#',
    '.DS_Store', 'Thumbs.db', 'thumbs.db', 'desktop.ini', 'Desktop.ini', '.hidden', '.solardesk-abc.download',
  ];
  for (const name of ignored) assert.ok(isIgnoredName(name), name);
  for (const name of ['Contract.docx', 'temp.pdf', 'partial.pdf', 'my.tmp.pdf', 'Thumbs.db.pdf', '~notes.txt', 'a.part2']) {
    assert.equal(ignoreReason(name), null, name);
  }
  assert.match(ignoreReason('~$Contract.docx')!, /Office/);
});

test('the lock files of an editing session name the file they lock, and are themselves ignored', () => {
  const locks = lockFileNamesFor('Report.docx');
  assert.ok(locks.includes('~$Report.docx'), 'Office owner file');
  assert.ok(locks.includes('~$port.docx'), 'Word drops the first two characters of a longer name');
  assert.ok(locks.includes('.~lock.Report.docx#'), 'LibreOffice');
  for (const lock of locks) assert.ok(isIgnoredName(lock), lock);
  assert.ok(!lockFileNamesFor('Other.docx').includes('~$Report.docx'));
});

// The CSV writer of format=csv (http/csv.ts): quoting as RFC 4180 asks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { csvField, toCsv } from './csv.ts';

test('plain values are written as they are', () => {
  assert.equal(csvField('Project'), 'Project');
  assert.equal(csvField(42), '42');
  assert.equal(csvField(true), 'true');
  assert.equal(csvField(null), '');
  assert.equal(csvField(undefined), '');
});

test('a value with a comma, quote, CR or LF is quoted, with quotes doubled', () => {
  assert.equal(csvField('HTTP 503, retrying'), '"HTTP 503, retrying"');
  assert.equal(csvField('said "no"'), '"said ""no"""');
  assert.equal(csvField('line one\nline two'), '"line one\nline two"');
  assert.equal(csvField('a\r\nb'), '"a\r\nb"');
  assert.equal(csvField(' padded '), '" padded "');
  assert.equal(csvField({ a: '1,2' }), '"{""a"":""1,2""}"');
});

test('a table has a header row and a CRLF after every row, in the columns given', () => {
  const csv = toCsv(['id', 'notes', 'successful'], [
    { id: 1, notes: 'ok', successful: true, ignored: 'x' },
    { id: 2, notes: 'HTTP 500: "oops",\nbody', successful: false },
  ]);
  assert.equal(csv, 'id,notes,successful\r\n1,ok,true\r\n2,"HTTP 500: ""oops"",\nbody",false\r\n');
});

test('no rows is the header alone', () => {
  assert.equal(toCsv(['id', 'url'], []), 'id,url\r\n');
});

test('a text cell starting with =, +, -, @, a tab or a CR gets a leading quote and is quoted (OWASP: CSV Injection)', () => {
  assert.equal(csvField('=HYPERLINK("https://x.example","go")'), '"\'=HYPERLINK(""https://x.example"",""go"")"');
  assert.equal(csvField('+1 555 0100'), '"\'+1 555 0100"');
  assert.equal(csvField('-2+3'), '"\'-2+3"');
  assert.equal(csvField('@SUM(A1:A2)'), '"\'@SUM(A1:A2)"');
  assert.equal(csvField('\t=1+1'), '"\'\t=1+1"');
  assert.equal(csvField('\r=1+1'), '"\'\r=1+1"');
  assert.equal(csvField('a=b'), 'a=b', 'only the first character matters');
  assert.equal(csvField(-3), '-3', 'a number is a number, not a formula');
});

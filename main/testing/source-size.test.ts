// No source file over 500 lines (issue 26): a file that size holds several
// concerns, is hard to read whole and breaks in merges. ESLint's max-lines holds
// *.ts and *.tsx (eslint.config.js, `MAX_SOURCE_LINES`); this test holds every
// source file git tracks, CSS and JavaScript included, which ESLint does not read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FILES_OVER_MAX_LINES, MAX_SOURCE_LINES } from '../../eslint.config.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SOURCE = /\.(ts|tsx|js|mjs|cjs|css)$/;
/** Generated data, not written by hand: its size says nothing of its design. None today. */
const GENERATED_DATA: readonly string[] = [];

const lineCount = (file: string) => fs.readFileSync(path.join(repoRoot, file), 'utf8').split('\n').length - 1;

test(`every source file git tracks has at most ${MAX_SOURCE_LINES} lines, apart from generated data and the files being split`, () => {
  const files = execFileSync('git', ['ls-files'], { cwd: repoRoot, encoding: 'utf8' })
    .split('\n')
    .filter((file) => SOURCE.test(file) && !GENERATED_DATA.includes(file) && !FILES_OVER_MAX_LINES.includes(file) && fs.existsSync(path.join(repoRoot, file)));
  assert.ok(files.length > 100, `found only ${files.length} source files: is this a git checkout?`);
  const over = files.map((file) => ({ file, lines: lineCount(file) })).filter(({ lines }) => lines > MAX_SOURCE_LINES);
  assert.deepEqual(over, [], 'split these by concern (docs/layers.md), with names that say what each part holds');
});

test('every file on the list of those being split is still over the limit: one split comes off the list', () => {
  const done = FILES_OVER_MAX_LINES.filter((file) => !fs.existsSync(path.join(repoRoot, file)) || lineCount(file) <= MAX_SOURCE_LINES);
  assert.deepEqual(done, [], 'remove these from FILES_OVER_MAX_LINES in eslint.config.js');
});

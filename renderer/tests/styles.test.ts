// The renderer's style sheets are whole: every block that opens closes. A merge that
// drops one closing brace leaves every later rule inside the block before it (once,
// every style after the Design tab's applied only inside the Design tab), and the
// build does not fail on it; this does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The renderer's sources: renderer/src. */
const here = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'src');

function styleSheets(folder: string): string[] {
  return fs.readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) return styleSheets(full);
    return entry.name.endsWith('.css') ? [full] : [];
  });
}

/** Where the braces stop balancing (a line number), or null: comments and quoted strings are skipped. */
export function unbalancedBraceAt(css: string): { line: number; problem: string } | null {
  const stripped = css.replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, ' ')).replace(/"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'/g, (text) => text.replace(/[^\n]/g, ' '));
  const open: number[] = [];
  let line = 1;
  for (const char of stripped) {
    if (char === '\n') line++;
    else if (char === '{') open.push(line);
    else if (char === '}' && open.pop() === undefined) return { line, problem: 'a "}" closes nothing' };
  }
  return open.length ? { line: open.at(-1)!, problem: 'a "{" opened here is never closed' } : null;
}

test('every style sheet of the renderer closes every block it opens', () => {
  const sheets = styleSheets(here);
  assert.ok(sheets.some((sheet) => sheet.endsWith(path.join('styles', 'theme.css'))), 'the global sheets are found');
  for (const sheet of sheets) assert.equal(unbalancedBraceAt(fs.readFileSync(sheet, 'utf8')), null, path.relative(here, sheet));
});

test('the check finds a block left open and a stray close', () => {
  assert.deepEqual(unbalancedBraceAt('a {\n  color: red;\n}\n@container x {\n  b {\n    color: blue;\n  }\nc {}\n'), { line: 4, problem: 'a "{" opened here is never closed' });
  assert.deepEqual(unbalancedBraceAt('a {}\n}\n'), { line: 2, problem: 'a "}" closes nothing' });
  assert.equal(unbalancedBraceAt('a { content: "}"; } /* { */'), null);
});

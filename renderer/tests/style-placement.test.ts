// Where the renderer's styles live (docs/styles.md): the global sheets (renderer/src/styles/)
// hold what many components share, and each component's own rules sit beside it in a
// sheet only it imports. One 2,100-line styles.css for every component broke twice in
// merges; these checks keep it from growing back:
// - a rule in a global sheet that only one component's classes reach belongs beside it;
// - a component's sheet is imported by that component (or its folder), never from elsewhere,
//   and a global sheet only by main.tsx;
// - the global sheets stay under a line budget.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The renderer's sources: renderer/src. */
const sourceRoot = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'src');
const globalSheetsFolder = path.join(sourceRoot, 'styles');
const componentsFolder = path.join(sourceRoot, 'components');

/** Lines the global sheets may hold together: room for a few shared controls, not for a component's rules. */
export const GLOBAL_SHEETS_LINE_BUDGET = 650;

/** Utilities any component may use, though one component happens to use them today. */
const SHARED_UTILITY_CLASSES = new Set(['visually-hidden']);

function filesUnder(folder: string, endings: string[]): string[] {
  return fs.readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) return filesUnder(full, endings);
    return endings.some((ending) => entry.name.endsWith(ending)) ? [full] : [];
  });
}

/** Each rule's selector text (at-rules' own preludes and keyframe steps left out), in order. */
export function ruleSelectors(css: string): string[] {
  const text = css.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'/g, '""');
  const selectors: string[] = [];
  const keyframesDepths: number[] = [];
  let depth = 0;
  let prelude = '';
  for (const char of text) {
    if (char === '{') {
      const head = prelude.trim();
      if (/^@(-\w+-)?keyframes\b/.test(head)) keyframesDepths.push(depth);
      else if (!head.startsWith('@') && keyframesDepths.length === 0) selectors.push(head.replace(/\s+/g, ' '));
      depth++;
      prelude = '';
    } else if (char === '}') {
      depth--;
      if (keyframesDepths.at(-1) === depth) keyframesDepths.pop();
      prelude = '';
    } else if (char === ';') prelude = '';
    else prelude += char;
  }
  return selectors;
}

/** The class names one selector (of a list) names. */
function classesOf(selector: string): string[] {
  return [...selector.matchAll(/\.(-?[A-Za-z_][\w-]*)/g)].map((match) => match[1] ?? '');
}

/** The class names a component's source can write: every word of its quoted strings and template texts. */
export function classWordsOf(source: string): Set<string> {
  const words = new Set<string>();
  // Quoted strings anywhere (those inside a template's \${} too), then the templates' own text.
  const quoted = [...source.matchAll(/'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"/g)].map((match) => match[1] ?? match[2] ?? '');
  const templates = [...source.matchAll(/`((?:[^`\\]|\\.)*)`/g)].map((match) => (match[1] ?? '').replace(/\$\{[^}]*\}/g, ' '));
  for (const text of [...quoted, ...templates]) {
    for (const word of text.split(/\s+/)) if (/^[A-Za-z_][\w-]*$/.test(word)) words.add(word);
  }
  return words;
}

/**
 * The rules of a global sheet that belong beside one component: each selector of the rule
 * names a class that only that component writes (and none is a shared utility).
 */
export function rulesOwnedByOneComponent(css: string, componentsByClass: Map<string, string[]>): { selector: string; component: string }[] {
  const found: { selector: string; component: string }[] = [];
  for (const selectorList of ruleSelectors(css)) {
    const owners = selectorList.split(',').map((selector) => {
      const ownClass = classesOf(selector).find((name) => !SHARED_UTILITY_CLASSES.has(name) && componentsByClass.get(name)?.length === 1);
      return ownClass ? componentsByClass.get(ownClass)![0] : null;
    });
    if (owners[0] && owners.every((owner) => owner === owners[0])) found.push({ selector: selectorList, component: owners[0] });
  }
  return found;
}

function componentsByClassName(): Map<string, string[]> {
  const byClass = new Map<string, string[]>();
  for (const file of filesUnder(componentsFolder, ['.tsx'])) {
    const component = path.relative(sourceRoot, file);
    for (const word of classWordsOf(fs.readFileSync(file, 'utf8'))) byClass.set(word, [...(byClass.get(word) ?? []), component]);
  }
  return byClass;
}

/** Every `import './x.css'` of the renderer's sources: the sheet's path and the importing file's, both relative to renderer/src. */
export function styleSheetImports(): { sheet: string; importer: string }[] {
  return filesUnder(sourceRoot, ['.ts', '.tsx']).flatMap((file) =>
    [...fs.readFileSync(file, 'utf8').matchAll(/^import\s+(?:[^'"]*\sfrom\s+)?['"]([^'"]+\.css)['"]/gm)]
      .map((match) => match[1] ?? '')
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) => ({ sheet: path.relative(sourceRoot, path.resolve(path.dirname(file), specifier)), importer: path.relative(sourceRoot, file) })),
  );
}

/** What a module imports first (its first import statement's specifier). */
export function firstImportOf(source: string): string | undefined {
  return source.match(/^import\s+(?:[^'"]*\sfrom\s+)?['"]([^'"]+)['"]/m)?.[1];
}

/** Why an import of a component's sheet is out of place, or null: a sheet beside X.tsx is X's alone; any other stays in its folder. */
export function misplacedSheetImport(sheet: string, importer: string, sheetExists: (relative: string) => boolean): string | null {
  if (sheet.startsWith(`styles${path.sep}`)) return importer === 'main.tsx' ? null : `${sheet} is global: only main.tsx imports it`;
  if (!sheet.startsWith(`components${path.sep}`)) return null;
  const component = sheet.replace(/\.css$/, '.tsx');
  if (sheetExists(component)) return importer === component ? null : `${sheet} is ${path.basename(component)}'s own: only it imports the sheet`;
  return path.dirname(importer) === path.dirname(sheet) ? null : `${sheet} is its folder's: import it from ${path.dirname(sheet)}`;
}

test("no rule in a global sheet belongs to a single component: each component's own rules sit beside it", () => {
  const byClass = componentsByClassName();
  const misplaced = filesUnder(globalSheetsFolder, ['.css']).flatMap((sheet) =>
    rulesOwnedByOneComponent(fs.readFileSync(sheet, 'utf8'), byClass).map(({ selector, component }) => `${path.relative(sourceRoot, sheet)}: "${selector}" is ${component}'s only: move it to ${component.replace(/\.tsx$/, '.css')}`),
  );
  assert.deepEqual(misplaced, []);
});

test("a component's sheet is imported only by that component, as its first import; a global sheet only by main.tsx", () => {
  const imports = styleSheetImports();
  const problems = imports.map(({ sheet, importer }) => misplacedSheetImport(sheet, importer, (relative) => fs.existsSync(path.join(sourceRoot, relative)))).filter((problem) => problem !== null);
  assert.deepEqual(problems, []);
  // A component's sheet comes before its children's in the bundle only if it is imported before them.
  const notFirst = imports
    .filter(({ sheet, importer }) => importer === sheet.replace(/\.css$/, '.tsx'))
    .filter(({ sheet, importer }) => firstImportOf(fs.readFileSync(path.join(sourceRoot, importer), 'utf8')) !== `./${path.basename(sheet)}`)
    .map(({ importer }) => `${importer} imports its own sheet after other modules: make it the first import`);
  assert.deepEqual(notFirst, []);
  const imported = new Set(imports.map(({ sheet }) => sheet));
  const unused = filesUnder(sourceRoot, ['.css']).map((sheet) => path.relative(sourceRoot, sheet)).filter((sheet) => !imported.has(sheet));
  assert.deepEqual(unused, [], 'every sheet is imported (a sheet nobody imports styles nothing)');
});

test(`the global sheets stay within ${GLOBAL_SHEETS_LINE_BUDGET} lines together`, () => {
  const sheets = filesUnder(globalSheetsFolder, ['.css']);
  assert.ok(sheets.length > 0, 'renderer/src/styles/ holds the global sheets');
  const lines = sheets.reduce((total, sheet) => total + fs.readFileSync(sheet, 'utf8').split('\n').length, 0);
  assert.ok(lines <= GLOBAL_SHEETS_LINE_BUDGET, `the global sheets hold ${lines} lines: a component's own rules go beside it (docs/styles.md)`);
});

test('the checks find a component rule in a global sheet and a sheet imported from elsewhere', () => {
  const byClass = new Map([['card', ['a/A.tsx', 'b/B.tsx']], ['a-title', ['a/A.tsx']], ['b-title', ['b/B.tsx']]]);
  const css = '.card { color: red; }\n@media (max-width: 9px) {\n  .card .a-title { color: blue; }\n}\n.a-title,\n.b-title { margin: 0; }\n@keyframes spin { to { opacity: 0; } }\n';
  assert.deepEqual(rulesOwnedByOneComponent(css, byClass), [{ selector: '.card .a-title', component: 'a/A.tsx' }]);
  assert.deepEqual([...classWordsOf("className={`tab${active ? ' is-active' : ''}`} x=\"a b\"")].sort(), ['a', 'b', 'is-active', 'tab']);
  const exists = (relative: string) => relative === path.join('components', 'files', 'FileRow.tsx');
  assert.equal(misplacedSheetImport(path.join('components', 'files', 'FileRow.css'), path.join('components', 'files', 'FileRow.tsx'), exists), null);
  assert.match(misplacedSheetImport(path.join('components', 'files', 'FileRow.css'), path.join('components', 'files', 'FileList.tsx'), exists)!, /FileRow.tsx's own/);
  assert.equal(misplacedSheetImport(path.join('components', 'files', 'file-preview.css'), path.join('components', 'files', 'FileViewer.tsx'), exists), null);
  assert.match(misplacedSheetImport(path.join('components', 'files', 'file-preview.css'), path.join('components', 'project', 'FilesTab.tsx'), exists)!, /its folder's/);
  assert.match(misplacedSheetImport(path.join('styles', 'base.css'), path.join('components', 'app', 'App.tsx'), exists)!, /only main.tsx/);
  assert.equal(firstImportOf("// a row\nimport './FileRow.css';\nimport { Badge } from '../common/Badge.tsx';\n"), './FileRow.css');
  assert.equal(firstImportOf("import type { A } from './a.ts';\nimport './FileRow.css';\n"), './a.ts');
});

// The import graph has no cycle (issue 26): no module git tracks in main/, shared/,
// preload/, renderer/src/, bench/ or e2e/ reaches itself through the imports that run. A cycle
// makes load order matter (a module sees another's exports undefined while both load)
// and ties parts that the layers keep apart. Imports are read with TypeScript's parser.
// `import type` (and imports of types only) are left out: they are erased when the
// code is compiled and never load anything, and a routes module naming its app's
// type is no tie at run time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SOURCE_FOLDERS = ['main', 'shared', 'preload', 'renderer/src', 'bench', 'e2e'];

/** module -> the modules it imports at run time (relative imports only: packages cannot import us back). */
type ImportGraph = Map<string, string[]>;

/** The TypeScript modules git tracks in the source folders. */
function sourceFiles(): string[] {
  return execFileSync('git', ['ls-files', ...SOURCE_FOLDERS], { cwd: repoRoot, encoding: 'utf8' })
    .split('\n')
    .filter((file) => /\.tsx?$/.test(file) && !file.endsWith('.d.ts') && fs.existsSync(path.join(repoRoot, file)))
    .map((file) => path.join(repoRoot, file));
}

/** True when the import brings in types only: `import type {...}`, or every name marked `type`. */
function isTypeOnly(statement: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(statement)) return statement.isTypeOnly;
  const clause = statement.importClause;
  if (!clause) return false; // `import './x.ts'`: it runs
  if (clause.isTypeOnly) return true;
  const bindings = clause.namedBindings;
  return !clause.name && bindings !== undefined && ts.isNamedImports(bindings) && bindings.elements.length > 0 && bindings.elements.every((element) => element.isTypeOnly);
}

function runtimeImports(file: string): string[] {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const targets: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) continue;
    const specifier = statement.moduleSpecifier;
    if (!specifier || !ts.isStringLiteral(specifier) || !specifier.text.startsWith('.') || isTypeOnly(statement)) continue;
    targets.push(path.resolve(path.dirname(file), specifier.text));
  }
  return targets;
}

/** The groups of modules that import one another in a circle (Tarjan's strongly connected components of two or more, or one importing itself). */
export function importCycles(graph: ImportGraph): string[][] {
  let next = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (module: string): void => {
    order.set(module, next);
    low.set(module, next++);
    stack.push(module);
    onStack.add(module);
    for (const target of graph.get(module) ?? []) {
      if (!graph.has(target)) continue;
      if (!order.has(target)) {
        visit(target);
        low.set(module, Math.min(low.get(module)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(module, Math.min(low.get(module)!, order.get(target)!));
    }
    if (low.get(module) !== order.get(module)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== module);
    if (group.length > 1 || (graph.get(module) ?? []).includes(module)) cycles.push(group.sort());
  };
  for (const module of graph.keys()) if (!order.has(module)) visit(module);
  return cycles;
}

test('the finder finds a cycle, and leaves a chain alone (so the test below can fail)', () => {
  const graph: ImportGraph = new Map([
    ['a', ['b']],
    ['b', ['c']],
    ['c', ['a']],
    ['d', ['a']],
    ['e', ['e']],
  ]);
  assert.deepEqual(importCycles(graph), [['a', 'b', 'c'], ['e']]);
  assert.deepEqual(importCycles(new Map([['a', ['b']], ['b', []]])), []);
});

test('no module reaches itself through the imports that run', () => {
  const graph: ImportGraph = new Map();
  for (const file of sourceFiles()) graph.set(file, runtimeImports(file));
  assert.ok(graph.size > 500, `read only ${graph.size} modules: is this a git checkout?`);
  // Every relative import names a file that is there: a resolution gone wrong would hide edges.
  const missing = [...graph].flatMap(([file, targets]) => targets.filter((target) => !fs.existsSync(target)).map((target) => `${path.relative(repoRoot, file)} -> ${path.relative(repoRoot, target)}`));
  assert.deepEqual(missing, []);
  const cycles = importCycles(graph).map((group) => group.map((file) => path.relative(repoRoot, file)));
  assert.deepEqual(cycles, []);
});

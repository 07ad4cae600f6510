// Finds runtime import circles among a part's modules (issue 13, issue 26): a circle
// makes module load order decide whether a binding is initialised yet, and it ties
// every module in it to every other. Imports are read with TypeScript's own parser.
// `import type` and `export type ... from` are erased, so they are no edge; under
// verbatimModuleSyntax `import { type A }` still loads its module, so it is one.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** Every module under `dir` (.ts and .tsx), tests and declarations left out. */
export function modulesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : modulesUnder(full);
    return /\.tsx?$/.test(entry.name) && !/\.(test|postgres-test|spec)\.ts$|\.d\.ts$/.test(entry.name) ? [full] : [];
  });
}

/** The modules under `within` a file loads when it is loaded (static imports and re-exports, type-only ones left out). */
export function runtimeImports(file: string, within: string): string[] {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const specifiers: string[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement) && !statement.importClause?.isTypeOnly) {
      specifiers.push((statement.moduleSpecifier as ts.StringLiteral).text);
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && !statement.isTypeOnly) {
      specifiers.push((statement.moduleSpecifier as ts.StringLiteral).text);
    }
  }
  return specifiers
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => path.resolve(path.dirname(file), specifier))
    .filter((target) => target.startsWith(within + path.sep));
}

/** Groups of modules that import each other, directly or through others (Tarjan's strongly connected components). */
export function importCircles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const lowLink = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    lowLink.set(node, counter);
    counter++;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        lowLink.set(node, Math.min(lowLink.get(node)!, lowLink.get(next)!));
      } else if (onStack.has(next)) lowLink.set(node, Math.min(lowLink.get(node)!, index.get(next)!));
    }
    if (lowLink.get(node) !== index.get(node)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== node);
    if (group.length > 1 || (graph.get(node) ?? []).includes(node)) circles.push(group.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return circles;
}

/** The import circles among the modules under `dir`, each as paths relative to it. */
export function importCirclesUnder(dir: string): string[][] {
  const graph = new Map(modulesUnder(dir).map((file) => [file, runtimeImports(file, dir)]));
  return importCircles(graph).map((group) => group.map((file) => path.relative(dir, file)));
}

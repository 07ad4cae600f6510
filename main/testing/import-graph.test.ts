// No runtime import circle anywhere (issue 26): the engine's and sync's own tests
// (main/engine/tests/import-graph.test.ts, main/sync/tests/import-graph.test.ts) look
// within each part; this one looks across the whole app at once, so a circle through
// two parts (core and watch, the renderer and shared) is found too. Which imports
// count is main/testing/import-circles.ts's rule (type-only imports are erased).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { importCircles, modulesUnder, runtimeImports } from './import-circles.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** Where the app's modules are: the main process, what it shares with the page, the preload and the page. */
const SOURCE_FOLDERS = ['main', 'shared', 'preload', 'renderer/src'];

test('no module of the app reaches itself through the imports that load, across parts too', () => {
  const modules = SOURCE_FOLDERS.flatMap((folder) => modulesUnder(path.join(repoRoot, folder)));
  assert.ok(modules.length > 500, `found only ${modules.length} modules`);
  assert.ok(modules.some((file) => file.endsWith('.tsx')), "the renderer's components are read too");
  const circles = importCircles(new Map(modules.map((file) => [file, runtimeImports(file, repoRoot)])));
  assert.deepEqual(
    circles.map((group) => group.map((file) => path.relative(repoRoot, file))),
    [],
    'each group imports itself round: move what they share into a module of its own, below both',
  );
});

// The engine has no runtime import circle (issue 13). A circle makes module load
// order decide whether a binding is initialised yet, and it ties every model to
// every other, so one change recompiles and retests all. The finder reads the
// engine's imports with TypeScript's own parser and fails on any strongly connected
// group (main/testing/import-circles.ts says which imports count).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { importCircles, importCirclesUnder, modulesUnder } from '../../testing/import-circles.ts';

const ENGINE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

test('main/engine has no runtime import circle', () => {
  assert.ok(modulesUnder(ENGINE_DIR).length > 50, 'the engine’s modules were found');
  const circles = importCirclesUnder(ENGINE_DIR);
  assert.deepEqual(circles, [], `import circles in main/engine:\n${circles.map((group) => `- ${group.length} modules: ${group.join(', ')}`).join('\n')}`);
});

test('the circle finder finds a circle through three modules and ignores a chain', () => {
  const circle = new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]);
  assert.deepEqual(importCircles(circle), [['a', 'b', 'c']]);
  assert.deepEqual(importCircles(new Map([['a', ['b']], ['b', ['c']], ['c', []]])), []);
});

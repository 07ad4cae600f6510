// Sync has no runtime import circle (issue 26). Its model modules (models/) sit
// below push, pull and the replica writers, which ask their registry
// (models/index.ts); a model that imported one of those back would make the
// registry's load order decide whether a model is initialised yet.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { importCirclesUnder, modulesUnder } from '../../testing/import-circles.ts';

const SYNC_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

test('main/sync has no runtime import circle', () => {
  assert.ok(modulesUnder(SYNC_DIR).some((file) => file.endsWith(path.join('models', 'index.ts'))), 'sync’s modules were found, its models with them');
  const circles = importCirclesUnder(SYNC_DIR);
  assert.deepEqual(circles, [], `import circles in main/sync:\n${circles.map((group) => `- ${group.length} modules: ${group.join(', ')}`).join('\n')}`);
});

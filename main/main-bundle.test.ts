// The main process's bundle (main/main-bundle.js): the freshness rule that decides
// when `solardesk` builds it again, on real files, and the bundle the command
// runs is the one its sources make.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { isStale } from './main-bundle.js';
import { makeTempDir } from './engine/testing/test-server.ts';
import { repoRoot } from './renderer-files.ts';

describe('the main bundle', () => {
  const folder = makeTempDir('solardesk-main-bundle-');
  after(() => fs.rmSync(folder, { recursive: true, force: true }));
  const bundle = path.join(folder, 'cli.mjs');
  const record = path.join(folder, 'cli.build.json');
  const source = 'main/cli.ts';
  const sourceModified = fs.statSync(path.join(repoRoot, source)).mtime;
  const writeBundle = (builtAt: Date, recorded: object) => {
    fs.writeFileSync(bundle, '');
    fs.utimesSync(bundle, builtAt, builtAt);
    fs.writeFileSync(record, JSON.stringify(recorded));
  };
  const later = new Date(sourceModified.getTime() + 60_000);

  test('is current only when built in this folder after every source it lists, all still there, with its chunks', () => {
    writeBundle(later, { root: repoRoot, inputs: [source] });
    assert.equal(isStale(bundle, record), false);
    writeBundle(new Date(sourceModified.getTime() - 60_000), { root: repoRoot, inputs: [source] });
    assert.equal(isStale(bundle, record), true, 'a source edited after the build');
    writeBundle(later, { root: repoRoot, inputs: [source, 'main/no-such-file.ts'] });
    assert.equal(isStale(bundle, record), true, 'a source that went away');
    writeBundle(later, { root: path.join(folder, 'elsewhere'), inputs: [source] });
    assert.equal(isStale(bundle, record), true, 'the repository moved');
    fs.writeFileSync(path.join(folder, 'chunk-A.mjs'), '');
    writeBundle(later, { root: repoRoot, inputs: [source], outputs: ['chunk-A.mjs'] });
    assert.equal(isStale(bundle, record), false);
    fs.rmSync(path.join(folder, 'chunk-A.mjs'));
    assert.equal(isStale(bundle, record), true, 'a chunk it loads on demand was removed');
    fs.rmSync(record);
    assert.equal(isStale(bundle, record), true, 'no record of a complete build');
  });

  test('`solardesk` runs a bundle whose record lists the command line, the engine and the page’s server thread', () => {
    const help = spawnSync(process.execPath, [path.join(repoRoot, 'main/solardesk.js'), '--help'], { encoding: 'utf8' });
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, /^Usage: solardesk <command>/);
    const record = path.join(repoRoot, 'main/dist/build.json');
    const built = JSON.parse(fs.readFileSync(record, 'utf8')) as { root: string; inputs: string[]; outputs: string[] };
    assert.equal(built.root, repoRoot);
    assert.ok(built.inputs.includes('main/cli.ts'));
    assert.ok(built.inputs.includes('main/engine/engine.ts'), 'the commands, imported on demand, are in the bundle too');
    assert.ok(built.inputs.includes('node_modules/.package-lock.json'), 'an npm install makes a new build');
    assert.ok(built.inputs.includes('main/main-bundle.js'), 'so does a change to how it is built');
    assert.ok(built.inputs.includes('main/web/bridge-worker.ts'), 'the thread that serves solardesk web’s page is built with it');
    assert.ok(built.outputs.includes('bridge-worker.mjs'));
    assert.equal(isStale(path.join(repoRoot, 'main/dist/cli.mjs'), record), false);
    assert.equal(isStale(path.join(repoRoot, 'main/dist/bridge-worker.mjs'), record), false);
  });
});

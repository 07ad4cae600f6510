// A read compiled once gives what the query built each time gives, for any values,
// on a real SQLite store.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { makeTempDir } from '../engine/testing/test-server.ts';
import { openSqliteStore } from '../engine/store/database.ts';
import { compiledRead } from './compiled-read.ts';

const roots: string[] = [];
after(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true });
});

test('a read compiled once runs with each call its own values, constants kept', async () => {
  const root = makeTempDir('solardesk-compiled-read-');
  roots.push(root);
  const store = await openSqliteStore(root);
  try {
    const { db } = store;
    await db.insertInto('watch_projects').values([
      { project_id: 7, folder: 'Roof (7)', canonical: 'Roof (7)', folder_ino: null },
      { project_id: 8, folder: 'Shed (8)', canonical: 'Shed (8)', folder_ino: null },
    ]).execute();
    const build = (folder: string, notProject: number) => db.selectFrom('watch_projects').select('project_id').where('folder', '=', folder).where('project_id', '!=', notProject).limit(5);
    const read = compiledRead(db, build);
    for (const [folder, notProject] of [['Roof (7)', 0], ['Shed (8)', 0], ['Shed (8)', 8], ['Nowhere', 0]] as const) {
      assert.deepEqual(await read(folder, notProject), await build(folder, notProject).execute(), `${folder}, not ${notProject}`);
    }
    // A value the query does not use is a mistake, said at once.
    const unused = compiledRead(db, (folder: string, _unused: number) => db.selectFrom('watch_projects').select('project_id').where('folder', '=', folder));
    await assert.rejects(unused('Roof (7)', 1), /value 1 is not a parameter/);
  } finally {
    await store.close();
  }
});

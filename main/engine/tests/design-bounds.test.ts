// Issue 36: a design that inflates past MAX_DESIGN_JSON_BYTES (a few hundred KB of
// gzip, written straight into the store, as a migration, an import or a copied store
// would) is refused with a clear error by the systems list, the
// system and systems/details, and every other request keeps answering meanwhile: the
// design is decoded in the design worker, once per version, never on the thread that
// serves requests. How fast is measured by `npm run bench -- --only design.too_large`:
// a 1 s bound here failed on a loaded machine (issue 33).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { designBomb, probedWhile, timed } from '../testing/design-bomb.ts';
import { warmDesignWorker } from '../designs/design-decoder.ts';
import { DEMO_USERS } from '../seed/demo-seed.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { DESIGN_TOO_LARGE_MESSAGE } from '../../../shared/design-codec.ts';

const BOMBED_PROJECT = 3;

describe('designs too large to open', () => {
  let server: TestServer;
  let admin: string;
  let bombLength = 0;

  before(async () => {
    server = await startTestServer();
    admin = await server.tokenFor(DEMO_USERS.sunriseAdmin);
    const bomb = designBomb(300);
    bombLength = bomb.length;
    await server.engine.context.db.updateTable('projects').set({ design: bomb }).where('id', '=', BOMBED_PROJECT).execute();
    // A running server: its design worker has started (the engine starts it on listen).
    await warmDesignWorker();
  });
  after(() => server.close());

  const get = (path: string) => server.request('GET', path, { token: admin });
  const otherProject = async () => assert.equal((await get(apiPaths.project(1, 1))).status, 200, 'another project answered meanwhile');

  for (const [name, path] of [
    ['systems/details', apiPaths.systemDetails(1, BOMBED_PROJECT)],
    ['the systems list of the project', `${apiPaths.systems(1)}?fieldset=list&project=${BOMBED_PROJECT}`],
    ['the systems list of the org', `${apiPaths.systems(1)}?fieldset=list&limit=1000`],
    ['one system', `${apiPaths.system(1, BOMBED_PROJECT * 1000)}?fieldset=list`],
  ] as const) {
    test(`${name}: a clear 422, other requests answering meanwhile`, async () => {
      assert.ok(bombLength < 600_000, `the design is a few hundred KB (${bombLength} characters)`);
      const { answer, probeMs } = await probedWhile(() => timed(() => get(path)), otherProject);
      assert.equal(answer.answer.status, 422, answer.answer.text);
      assert.equal(answer.answer.json.detail, `Project ${BOMBED_PROJECT}: ${DESIGN_TOO_LARGE_MESSAGE}`);
      assert.ok(probeMs.length > 0, 'another request was made, and answered, meanwhile');
    });
  }

  test('the refusal is kept per design version: a new design of the project is read again', async () => {
    const before = await get(apiPaths.systemDetails(1, 1));
    assert.equal(before.status, 200);
    await server.engine.context.db.updateTable('projects').set({ design: designBomb(80) }).where('id', '=', 1).execute();
    assert.equal((await get(apiPaths.systemDetails(1, 1))).status, 422);
  });
});

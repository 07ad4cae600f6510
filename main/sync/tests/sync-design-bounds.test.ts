// Issue 36, on the agent: a remote sends a design of a few hundred KB that inflates
// past MAX_DESIGN_JSON_BYTES (here the remote is a real server holding it in its
// store; a PATCH of the project's notes makes the agent pull it). The agent's local API answers the project's systems/details and systems
// list with a clear error, every time, and its other requests keep answering meanwhile:
// the local engine decodes the design once per version, in its design worker (how fast:
// `npm run bench -- --only design.too_large`). Real server, real agent, real fault proxy (passing
// everything through).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSyncHarness, type SyncHarness } from '../testing/sync-harness.ts';
import { designBomb, probedWhile, timed } from '../../engine/testing/design-bomb.ts';
import { warmDesignWorker } from '../../engine/designs/design-decoder.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { DESIGN_TOO_LARGE_MESSAGE } from '../../../shared/design-codec.ts';

const ORG = 1;
const BOMBED_PROJECT = 5;

describe('an agent given a design too large to open', () => {
  let harness: SyncHarness;

  before(async () => {
    harness = await startSyncHarness({ pollIntervalSeconds: 2 });
    const bomb = designBomb(300);
    assert.ok(bomb.length < 600_000, `the design is a few hundred KB (${bomb.length} characters)`);
    await harness.server.engine.context.db.updateTable('projects').set({ design: bomb }).where('id', '=', BOMBED_PROJECT).execute();
    assert.equal((await harness.remote('PATCH', apiPaths.project(ORG, BOMBED_PROJECT), { notes: 'Designed by a hostile remote' })).status, 200);
    const started = Date.now();
    while ((await harness.local('GET', apiPaths.project(ORG, BOMBED_PROJECT))).json?.design !== bomb) {
      if (Date.now() - started > 60_000) throw new Error('the design did not reach the agent within 60 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // The agent is running: its local engine started its design worker when it began listening.
    await warmDesignWorker();
  });
  after(() => harness?.close());

  for (const [name, path] of [
    ['systems/details', apiPaths.systemDetails(ORG, BOMBED_PROJECT)],
    ['the systems list of the project', `${apiPaths.systems(ORG)}?fieldset=list&project=${BOMBED_PROJECT}`],
  ] as const) {
    // How fast: `npm run bench -- --only design.too_large`; a 1 s bound here failed on a loaded machine (issue 33).
    test(`${name}: a clear 422, twice, other requests answering meanwhile`, async () => {
      for (let round = 0; round < 2; round++) {
        const otherProject = async () => assert.equal((await harness.local('GET', apiPaths.project(ORG, 1))).status, 200, 'another project answered meanwhile');
        const { answer, probeMs } = await probedWhile(() => timed(() => harness.local('GET', path)), otherProject);
        assert.equal(answer.answer.status, 422, answer.answer.text);
        assert.equal(answer.answer.json.detail, `Project ${BOMBED_PROJECT}: ${DESIGN_TOO_LARGE_MESSAGE}`);
        assert.ok(probeMs.length > 0, 'another request was made, and answered, meanwhile');
      }
    });
  }
});

// A person's edits wait in line for the org's allowance (quota-pacer.ts: user work waits
// until the quota has room, then goes); the wait is told as the edited record's, with when
// it goes, for the activity log (main/core/activity-recorder.ts fromAllowanceWait). A real
// server and agent on 127.0.0.1 through the fault proxy; project edits limited to one a
// minute on both sides, so the second of two edits waits for the first one's minute.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSyncHarness, type SyncHarness } from '../testing/sync-harness.ts';
import { DEFAULT_THROTTLE_RATES, type ThrottleRates } from '../../../shared/throttle-rates.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import type { AllowanceWait } from '../quota-pacer.ts';

const RATES = { ...DEFAULT_THROTTLE_RATES, project_partial_update: { user: '1/min', org: '10000/day' } } as ThrottleRates;

let h: SyncHarness;
const heard: Array<{ model: string; recordId: number; wait: AllowanceWait; at: number }> = [];
before(async () => {
  h = await startSyncHarness({ serverRates: RATES, remoteRates: RATES, agent: { onAllowanceWait: (model, recordId, wait) => heard.push({ model, recordId, wait, at: Date.now() }) } });
  await h.synced();
});
after(() => h.close());

test('the second of two edits within the minute waits for the allowance, says until when, then goes', async () => {
  h.proxy.setOffline(true);
  await h.local('PATCH', apiPaths.project(1, 23), { notes: 'first edit of the minute' });
  await h.local('PATCH', apiPaths.project(1, 24), { notes: 'second edit of the minute' });
  h.proxy.setOffline(false);
  await h.synced();
  assert.equal((await h.remote('GET', apiPaths.project(1, 23))).json.notes, 'first edit of the minute');
  assert.equal((await h.remote('GET', apiPaths.project(1, 24))).json.notes, 'second edit of the minute', 'the waiting edit went');
  assert.equal(heard.length, 1, `one wait told: ${JSON.stringify(heard)}`);
  const [told] = heard;
  assert.deepEqual([told!.model, told!.recordId, told!.wait.bucket], ['project', 24, 'project_partial_update']);
  // It was to go within the minute of the first edit (and the pacer's rounding: slices of a second, a quarter-second of slack), still ahead when told.
  assert.ok(told!.wait.mayGoAt > told!.at && told!.wait.mayGoAt - told!.at <= 63_000, `goes ${told!.wait.mayGoAt - told!.at} ms after it was told`);
  assert.equal(h.proxy.log.filter((entry) => entry.status === 429).length, 0, 'the remote never had to refuse one');
});

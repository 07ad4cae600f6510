// The open project's store against the real core (renderer/tests/core-bridge.ts): its
// saves reach the engine one at a time, in the order they were made. A field such as
// usage is sent whole, so two saves in flight at once could be applied in either
// order, and the older one applied last put back a value typed over after it (a lost
// edit found at load in e2e/project-editor.spec.ts). The one thing controlled here is
// the link: the first save is held back on its way, as a slow link would hold it.
import './core-bridge.ts';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { EnvelopeBridge } from '../../shared/bridge.ts';
import { startTestCore, type TestCore } from './core-bridge.ts';
import { useProjectStore } from '../src/stores/project-store.ts';
import { apiPaths } from '../../shared/api-paths.ts';

describe('the project store', () => {
  let app: TestCore;
  before(async () => {
    app = await startTestCore();
  });
  after(() => app.close());

  test('a save made while an earlier one is still on its way goes after it, so the newer value is the one kept', async () => {
    const bridge = (globalThis as unknown as { window: { solardesk: EnvelopeBridge } }).window.solardesk;
    const invoke = bridge.invoke;
    let release: (() => void) | null = null;
    let isFirstHeld = true;
    let inFlight = 0;
    let mostInFlight = 0;
    bridge.invoke = (async (channel: string, request: { method?: string } | undefined) => {
      if (channel !== 'api.request' || request?.method !== 'PATCH') return invoke(channel as never, request as never);
      inFlight++;
      mostInFlight = Math.max(mostInFlight, inFlight);
      try {
        if (isFirstHeld) {
          isFirstHeld = false;
          await new Promise<void>((resolve) => (release = resolve));
        }
        return await invoke(channel as never, request as never);
      } finally {
        inFlight--;
      }
    }) as EnvelopeBridge['invoke'];
    try {
      const store = () => useProjectStore.getState();
      const projectId = 2;
      await store().open(app.orgId, projectId);
      store().editDraft('notes', 'Typed first', { ok: true, body: { notes: 'Typed first' } }, 'Notes');
      const first = store().flush();
      for (let turn = 0; turn < 100 && release === null; turn++) await new Promise((resolve) => setImmediate(resolve));
      assert.ok(release, 'the first save set off');
      store().editDraft('notes', 'Typed over it', { ok: true, body: { notes: 'Typed over it' } }, 'Notes');
      const second = store().flush();
      // Every step of a second save that does not wait for the first has run by the next turn of the event loop.
      await new Promise((resolve) => setImmediate(resolve));
      release!();
      await Promise.all([first, second]);
      assert.equal(mostInFlight, 1, 'one save on its way at a time');
      const stored = await app.core.invoke('api.request', { method: 'GET', path: apiPaths.project(app.orgId, projectId) });
      assert.ok(stored.ok);
      assert.equal((stored.response as { body: { notes: string } }).body.notes, 'Typed over it', 'the value typed last is the one kept');
    } finally {
      bridge.invoke = invoke;
      await useProjectStore.getState().close();
    }
  });
});

// A project's draft comes back only on the workspace it was typed in: "On this
// computer" and a signed-in org can both be org 1 with a project 4. The window's
// localStorage is a browser API Node 20 lacks, so a Map stands in for it here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readProjectDraft, writeProjectDraft } from '../src/project/project-drafts.ts';

const kept = new Map<string, string>();
Object.assign(globalThis, {
  localStorage: {
    getItem: (key: string) => kept.get(key) ?? null,
    setItem: (key: string, value: string) => void kept.set(key, value),
    removeItem: (key: string) => void kept.delete(key),
  },
});

test("a draft typed on one workspace's project never comes back on another workspace's project with the same ids", () => {
  const entries = { notes: { raw: 'measured twice', label: 'Notes', body: { notes: 'measured twice' }, error: null } };
  writeProjectDraft('on-this-computer', 1, 4, entries, new Date('2026-11-24T08:00:00Z'));
  assert.equal(readProjectDraft('https://office.example.com', 1, 4), null);
  assert.deepEqual(readProjectDraft('on-this-computer', 1, 4), { savedAt: '2026-11-24T08:00:00.000Z', entries });
  writeProjectDraft('on-this-computer', 1, 4, {});
  assert.equal(readProjectDraft('on-this-computer', 1, 4), null, 'an empty draft is forgotten');
});

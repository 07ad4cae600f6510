// The status answer on its own: what the parts reported, counted and listed as
// shared/schemas/folder.ts says. A real engine (test server store) and real outbox
// hold the held delete; nothing here depends on time.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { makeTempDir, startTestServer, type TestServer } from '../engine/testing/test-server.ts';
import { folderWatcherStatusJsonSchema } from '../../shared/schemas/folder.ts';
import { FolderReport, folderStatus, LIST_CAP, type StatusSources } from './folder-status.ts';
import { startWatchParts, type WatchParts } from '../core/testing/watch-parts.ts';

let server: TestServer;
let root: string;
let parts: WatchParts;
before(async () => {
  server = await startTestServer();
  root = makeTempDir('solardesk-status-');
  parts = await startWatchParts(server.engine.context, root);
});
after(async () => {
  await server.close();
  fs.rmSync(root, { recursive: true, force: true });
});

const sources = (overrides: Partial<StatusSources> = {}): StatusSources => ({
  root,
  state: 'watching',
  detail: null,
  confirmDeletes: false,
  stabilityWindowMs: 2000,
  projectFolders: parts.folders.size,
  lastRescanAt: Date.parse('2026-06-01T09:00:00Z'),
  nextRescanAt: Date.parse('2026-06-01T09:10:00Z'),
  waiting: [],
  downloadProblems: [],
  outbox: parts.outbox,
  folderUploads: (limit) => parts.store.folderUploads((afterId, pageSize) => parts.outbox.listFileCreates(afterId, pageSize), limit),
  attachedFiles: () => parts.store.countFiles(),
  quiet: () => false,
  ...overrides,
});

test('an idle watcher: the shape of the API, nothing listed, the counts at zero', async () => {
  const status = await folderStatus(new FolderReport(), sources({ quiet: () => true }));
  assert.doesNotThrow(() => folderWatcherStatusJsonSchema.parse(status));
  assert.equal(status.quiet, true);
  assert.equal(status.state, 'watching');
  assert.deepEqual(status.files, []);
  assert.equal(status.last_rescan_at, '2026-06-01T09:00:00.000Z');
  assert.equal(status.next_rescan_at, '2026-06-01T09:10:00.000Z');
  assert.deepEqual(
    { ignored: status.counts.ignored, outside: status.counts.outside, refused: status.counts.refused, attached: status.counts.attached, held: status.counts.held },
    { ignored: 0, outside: 0, refused: 0, attached: 0, held: 0 },
  );
});

test('every list is counted: waiting, failed, held and downloading files by state; ignored past the cap; refused files and folders', async () => {
  const report = new FolderReport();
  const project = parts.folders.projectIds()[0]!;
  const folder = parts.folders.folderOf(project)!;

  // Held: a real hold in sync's outbox, for a real attached file.
  const fileId = await parts.attachFile(project, 'layout.txt', 'string layout, east roof');
  await parts.outbox.holdDelete(server.engine.context.db, fileId, 'Deleted in the project folder (x).', '2026-06-01T09:00:00.000Z');
  // Ignored: more than the list keeps.
  for (let index = 0; index < LIST_CAP + 2; index++) report.ignored.set(`${folder}/~$draft-${index}.docx`, 'an Office owner file');
  report.outside.set('loose.pdf', 'directly in the folder root, not in a project folder: not attached');
  // Refused: a real link in the folder, and a folder that is a link.
  fs.symlinkSync('/etc/hostname', path.join(parts.dirOf(project), 'hostname'));
  await report.refuseFile(`${folder}/hostname`, path.join(parts.dirOf(project), 'hostname'), true);
  report.refusedFolders.set('Old (99)/', 'The folder of project 99 is refused: it is a link.');
  report.problems.set(`${folder}/huge.bin`, { projectId: project, reason: 'too large to attach: the limit is 10 bytes' });
  report.counts.attached = 3;
  report.counts.overflows = 1;

  const status = await folderStatus(
    report,
    sources({
      waiting: [
        { path: `${folder}/survey.pdf`, projectId: project, note: null, size: 100 },
        { path: `${folder}/plan.dwg`, projectId: project, note: 'still being written', size: 200 },
      ],
      downloadProblems: [[4242, { reason: 'the remote is unreachable' }]],
    }),
  );
  assert.doesNotThrow(() => folderWatcherStatusJsonSchema.parse(status));
  const byState = (state: string) => status.files.filter((file) => file.state === state);
  assert.equal(byState('waiting').length, 2);
  assert.equal(byState('waiting')[0]!.reason, 'Waiting until it has not changed for 2 s, so a file still being written is never attached half-done.');
  assert.equal(byState('waiting')[1]!.reason, 'Waiting: still being written.');
  assert.equal(byState('failed').length, 1);
  assert.equal(byState('delete_held').length, 1);
  assert.equal(byState('delete_held')[0]!.file_id, fileId);
  assert.equal(byState('downloading').length, 1);
  assert.equal(status.counts.waiting, 2);
  assert.equal(status.counts.failed, 1);
  assert.equal(status.counts.delete_held, 1);
  assert.equal(status.counts.downloading, 1);
  assert.equal(status.counts.attached, 3);
  assert.equal(status.counts.overflows, 1);
  assert.equal(status.ignored.length, LIST_CAP, 'the list is capped');
  assert.equal(status.counts.ignored, LIST_CAP + 2, 'the count is not');
  assert.equal(status.counts.outside, 1);
  assert.equal(status.refused.length, 2);
  assert.equal(status.counts.refused, 2);
  assert.match(status.refused.find((entry) => entry.path === `${folder}/hostname`)!.reason, /^a link to \/etc\/hostname/);
  assert.equal(status.attached_files, await parts.store.countFiles());
  assert.ok(status.recent.some((line) => line.endsWith(`${folder}/hostname refused: a link, not followed`)));
});

test('the guard is recorded once a minute per scope, on the clock it is given', () => {
  const report = new FolderReport();
  const at = Date.parse('2026-06-01T09:00:00Z');
  assert.equal(report.recordGuard({ scope: 'the folder root', lost: 9, total: 10 }, at), true);
  assert.equal(report.recordGuard({ scope: 'the folder root', lost: 9, total: 10 }, at + 59_000), false);
  assert.equal(report.recordGuard({ scope: '"Roof (5)"', lost: 6, total: 6 }, at + 59_000), true);
  assert.equal(report.recordGuard({ scope: 'the folder root', lost: 9, total: 10 }, at + 61_000), true);
  assert.equal(report.guards.length, 3);
  assert.equal(report.guards[0]!.at, '2026-06-01T09:00:00.000Z');
});

test("a folder that became a project's forgets what was said of it as not a project's folder, and of its files", () => {
  const report = new FolderReport();
  report.outside.set('Roof/', "a folder that is not a project's folder");
  report.outside.set('Roof/plan.pdf', `in "Roof", which is not a project's folder: not attached`);
  report.ignored.set('Roof/~$plan.docx', 'a lock file');
  report.outside.set('Roofing/a.pdf', 'kept: another folder');
  report.outside.set('loose.pdf', 'kept: directly in the root');
  report.forgetOutsideIn('Roof');
  assert.deepEqual([...report.outside.keys()], ['Roofing/a.pdf', 'loose.pdf']);
  assert.equal(report.ignored.size, 0);
  report.forgetOutsideIn(null);
  assert.equal(report.outside.size, 2);
});

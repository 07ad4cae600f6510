// The event intake on its own: the queue, one probe per path, and bursts that become
// rescans. No chokidar and no engine: events are handed in as chokidar would, the
// project folders are a fixed table (the real ProjectFolders needs a store and is
// tested in project-folders.test.ts), and the one wait (a new folder is looked at
// again shortly) runs on ManualTimers, so nothing waits on real time.
import { beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { EventIntake, locate } from './event-intake.ts';
import { FolderReport } from './folder-status.ts';
import { ManualTimers } from './testing/manual-timers.ts';

const ROOT = path.resolve('/srv/SolarDesk');
const THRESHOLD = 10;
const PROJECTS = new Map([
  ['Roof (5)', 5],
  ['Barn (6)', 6],
]);
const folders = { projectOfFolder: (folder: string) => PROJECTS.get(folder) ?? null };
const probe = (...parts: string[]) => ({ type: 'probe' as const, path: path.join(ROOT, ...parts) });

let intake: EventIntake;
let report: FolderReport;
let timers: ManualTimers;
let wakes: number;
let watching: boolean;
let closed: boolean;
beforeEach(() => {
  report = new FolderReport();
  timers = new ManualTimers();
  wakes = 0;
  watching = true;
  closed = false;
  intake = new EventIntake({ root: ROOT, folders, report, burstThreshold: THRESHOLD, timers, closed: () => closed, watching: () => watching, wake: () => wakes++ });
});

test('events queue in order, one probe per path, and each wakes the worker loop', () => {
  intake.enqueue(probe('Roof (5)', 'a.pdf'));
  intake.enqueue(probe('Roof (5)', 'a.pdf')); // another write to the same file
  intake.enqueue({ type: 'addDir', path: path.join(ROOT, 'New folder') });
  intake.enqueue(probe('Roof (5)', 'b.pdf'));
  assert.equal(intake.queued, 3);
  assert.equal(wakes, 3);
  assert.deepEqual(
    [intake.take(), intake.take(), intake.take(), intake.take()].map((event) => event && path.relative(ROOT, event.path)),
    [path.join('Roof (5)', 'a.pdf'), 'New folder', path.join('Roof (5)', 'b.pdf'), undefined],
  );
  // Taken: a new write to it is a new probe.
  intake.enqueue(probe('Roof (5)', 'a.pdf'));
  assert.equal(intake.queued, 1);
  assert.equal(intake.empty, false);
  intake.take();
  assert.equal(intake.empty, true);
});

test("a burst in one folder drops that folder's events and asks for a rescan of it; the others keep theirs", () => {
  intake.enqueue(probe('Barn (6)', 'kept.pdf'));
  for (let index = 0; index <= THRESHOLD; index++) intake.enqueue(probe('Roof (5)', `photo-${index}.jpg`));
  assert.deepEqual([...intake.rescanFolders], [5]);
  assert.equal(intake.queued, 1, "only the other folder's event is left");
  assert.equal(report.counts.overflows, 1);
  assert.ok(report.recent.at(-1)!.endsWith(`more than ${THRESHOLD} events for Roof (5): dropped them and rescanning it`));

  // Until it is rescanned, more events for it are not queued: the rescan will see them.
  intake.enqueue(probe('Roof (5)', 'later.jpg'));
  assert.equal(intake.queued, 1);
  assert.equal(intake.takeFolderRescan(), 5);
  intake.folderRescanned('Roof (5)');
  intake.enqueue(probe('Roof (5)', 'later.jpg'));
  assert.equal(intake.queued, 2);

  // A folder that is no project's: the root's names are looked at instead.
  for (let index = 0; index <= THRESHOLD; index++) intake.enqueue(probe('Holiday photos', `beach-${index}.jpg`));
  assert.equal(intake.rootScanWanted, true);
});

test('a storm across the whole root drops every queued event and asks for a full rescan', () => {
  const folderNames = Array.from({ length: 8 }, (_, index) => `Other ${index}`);
  // Spread so that no one folder passes the threshold, but all together pass four times it.
  for (let round = 0; round < THRESHOLD; round++) for (const folder of folderNames) intake.enqueue(probe(folder, `file-${round}.txt`));
  assert.equal(intake.fullRescanWanted, true);
  assert.equal(intake.queued, 0);
  assert.equal(report.counts.overflows, 1);
  intake.enqueue(probe('Roof (5)', 'a.pdf'));
  assert.equal(intake.queued, 0, 'nothing is queued until the full rescan starts');
  intake.startFullRescan();
  assert.equal(intake.fullRescanWanted, false);
  intake.enqueue(probe('Roof (5)', 'a.pdf'));
  assert.equal(intake.queued, 1);
});

test('nothing is taken while the root is not watched or the watcher closes', () => {
  watching = false;
  intake.enqueue(probe('Roof (5)', 'a.pdf'));
  watching = true;
  closed = true;
  intake.enqueue(probe('Roof (5)', 'b.pdf'));
  assert.equal(intake.queued, 0);
  assert.equal(wakes, 0);
});

test('a new folder is listed now and once more shortly after, on the timers', () => {
  intake.rescanFolderSoon('Barn (6)');
  assert.equal(intake.takeFolderRescan(), 6);
  assert.equal(intake.takeFolderRescan(), undefined);
  assert.deepEqual(timers.waiting, [{ inMs: 300, background: true }]);
  timers.advance(299);
  assert.equal(intake.takeFolderRescan(), undefined);
  timers.advance(1);
  assert.equal(intake.takeFolderRescan(), 6, 'looked at again');
});

test('where a path is: a project file, ignored, outside, a top-level name, our own folder', () => {
  assert.deepEqual(locate(ROOT, folders, path.join(ROOT, 'Roof (5)', 'a.pdf')), { kind: 'file', projectId: 5, folder: 'Roof (5)', name: 'a.pdf' });
  assert.equal(locate(ROOT, folders, path.join(ROOT, 'Roof (5)', '~$a.docx')).kind, 'ignored');
  assert.equal(locate(ROOT, folders, path.join(ROOT, 'Roof (5)', 'sub', 'a.pdf')).kind, 'outside');
  assert.equal(locate(ROOT, folders, path.join(ROOT, 'Holiday photos', 'a.jpg')).kind, 'outside');
  assert.deepEqual(locate(ROOT, folders, path.join(ROOT, 'loose.pdf')), { kind: 'top', name: 'loose.pdf' });
  assert.equal(locate(ROOT, folders, path.join(ROOT, '.solardesk', 'tmp', 'x')).kind, 'agent');
  assert.equal(locate(ROOT, folders, ROOT).kind, 'root');
});

test("another workspace's folder is outside, once, with its reason, whatever is inside it", () => {
  const foreign = new Map([['On this computer', "the embedded workspace's folder"]]);
  assert.deepEqual(locate(ROOT, folders, path.join(ROOT, 'On this computer', 'Roof (1)', 'a.pdf'), foreign), {
    kind: 'outside',
    rel: 'On this computer/',
    reason: "the embedded workspace's folder",
  });
  assert.deepEqual(locate(ROOT, folders, path.join(ROOT, 'On this computer'), foreign), { kind: 'top', name: 'On this computer' });
  assert.equal(locate(ROOT, folders, path.join(ROOT, 'Roof (5)', 'a.pdf'), foreign).kind, 'file');
});

test("the inbox folder's own files are the inbox's; its subfolders' are outside; without an inbox it is a folder like any other", () => {
  const none = new Map<string, string>();
  assert.deepEqual(locate(ROOT, folders, path.join(ROOT, 'Unsorted', 'IMG_1.jpg'), none, 'Unsorted'), { kind: 'inbox', name: 'IMG_1.jpg' });
  assert.equal(locate(ROOT, folders, path.join(ROOT, 'Unsorted', '.DS_Store'), none, 'Unsorted').kind, 'ignored');
  const nested = locate(ROOT, folders, path.join(ROOT, 'Unsorted', 'holiday', 'IMG_2.jpg'), none, 'Unsorted');
  assert.equal(nested.kind, 'outside');
  assert.match((nested as { reason: string }).reason, /subfolder of Unsorted/);
  assert.deepEqual(locate(ROOT, folders, path.join(ROOT, 'Unsorted'), none, 'Unsorted'), { kind: 'top', name: 'Unsorted' });
  assert.equal(locate(ROOT, folders, path.join(ROOT, 'Unsorted', 'IMG_1.jpg')).kind, 'outside');
});

test('a root gone missing drops what was queued, probes too: the same path is queued again on its return', () => {
  intake.enqueue(probe('Roof (5)', 'a.pdf'));
  intake.enqueue(probe('Roof (5)', 'b.pdf'));
  intake.dropQueued();
  assert.equal(intake.queued, 0);
  assert.equal(intake.take(), undefined);
  intake.enqueue(probe('Roof (5)', 'a.pdf'));
  assert.equal(intake.queued, 1, 'a probe dropped with the queue does not swallow the next event for its path');
  assert.equal(path.relative(ROOT, intake.take()!.path), path.join('Roof (5)', 'a.pdf'));
});

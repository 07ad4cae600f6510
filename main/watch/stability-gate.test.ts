// The stability gate on its own: real files in a temp folder, real staging into a
// file root's temp folder; only the clock is faked (ManualClock), so no test waits
// out a window in real time. What the gate hands on is recorded by its hooks.
import { after, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { makeTempDir } from '../engine/testing/test-server.ts';
import { ManualClock } from '../engine/clock.ts';
import { StabilityGate, type Candidate } from './stability-gate.ts';
import { waitFor } from './testing/folder-testing.ts';
import { FolderReport } from './folder-status.ts';

const WINDOW_MS = 2000;
const PROJECT_ID = 5;
const FOLDER = 'Roof (5)';
const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

const roots: string[] = [];
after(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true });
});

interface Setup {
  gate: StabilityGate;
  fileRoot: string;
  clock: ManualClock;
  report: FolderReport;
  folderDir: string;
  staged: Array<{ candidate: Candidate; sha256: string; bytes: Buffer }>;
  folderChanges: number;
  consider(name: string): Promise<void>;
}

/** The pool the gate stages with here: small, so a test can drop more files than it. */
const POOL = 4;
/** Called as each staged file is attached, before it is recorded (a test acts "while others are staged"). */
let onAttach: (candidate: Candidate) => Promise<void> = async () => {};

let setup: Setup;
beforeEach(() => {
  onAttach = async () => {};
  const root = makeTempDir('solardesk-gate-');
  roots.push(root);
  const folderDir = path.join(root, FOLDER);
  fs.mkdirSync(folderDir);
  const clock = new ManualClock();
  const report = new FolderReport();
  const staged: Setup['staged'] = [];
  const gate = new StabilityGate({
    windowMs: WINDOW_MS,
    clock,
    fileRoot: path.join(root, 'files'),
    maxUploadBytes: 1024 * 1024,
    stagingPool: POOL,
    report,
    hooks: {
      // Nothing is mapped yet: every file goes through the gate.
      settled: async () => false,
      // The staged copy is read here, before the gate discards it.
      attach: async (candidate, received) => {
        await onAttach(candidate);
        staged.push({ candidate, sha256: received.sha256, bytes: fs.readFileSync(received.tempPath) });
      },
      folderChanged: () => setup.folderChanges++,
      // What a step hands over is attached above, one at a time: no batch to write.
      flush: async () => {},
    },
  });
  setup = {
    fileRoot: path.join(root, 'files'),
    folderChanges: 0,
    gate,
    clock,
    report,
    folderDir,
    staged,
    consider: (name) => gate.consider(PROJECT_ID, FOLDER, name, path.join(folderDir, name), null),
  };
});

/** Runs every look that is due now on the clock (bounded: the gate never has more than a few per file). */
async function runDue(gate: StabilityGate): Promise<number> {
  let looks = 0;
  while (looks < 20 && (await gate.checkDue())) looks++;
  return looks;
}

test('a file stable for the window is staged once, with the bytes it has', async () => {
  const { gate, clock, folderDir, staged, consider } = setup;
  fs.writeFileSync(path.join(folderDir, 'notes.txt'), 'two strings, north face');
  await consider('notes.txt');
  assert.equal(gate.size, 1);
  assert.equal(gate.nextDueAt(), clock.now().getTime() + WINDOW_MS);

  clock.advance(WINDOW_MS - 1);
  assert.equal(await runDue(gate), 0, 'not due before its window has passed');
  assert.equal(staged.length, 0);

  clock.advance(1);
  await runDue(gate);
  assert.equal(staged.length, 1);
  assert.equal(staged[0]!.sha256, sha256('two strings, north face'));
  assert.equal(staged[0]!.bytes.toString(), 'two strings, north face');
  assert.equal(staged[0]!.candidate.name, 'notes.txt');
  assert.equal(gate.size, 0, 'no longer waiting');

  // Seen again (another event for the same write): the hooks decide; nothing is staged twice by the gate itself.
  clock.advance(WINDOW_MS * 5);
  assert.equal(await runDue(gate), 0);
  assert.equal(staged.length, 1);
});

test('a file still growing is not staged; once it stops for a whole window it is, with all its bytes', async () => {
  const { gate, clock, folderDir, staged, consider, report } = setup;
  const file = path.join(folderDir, 'survey.pdf');
  fs.writeFileSync(file, 'a'.repeat(1000));
  await consider('survey.pdf');
  for (let write = 0; write < 5; write++) {
    // A write every half window: never a whole window without a change. mtime is set
    // explicitly, so the size and mtime change even within one filesystem tick.
    clock.advance(WINDOW_MS / 2);
    fs.appendFileSync(file, 'b'.repeat(1000));
    fs.utimesSync(file, new Date(), new Date(Date.UTC(2026, 0, 1, 0, 0, write)));
    clock.advance(WINDOW_MS / 2);
    await runDue(gate);
    assert.equal(staged.length, 0, `not staged while still being written (write ${write})`);
  }
  const status = [...gate.waiting(path.dirname(folderDir))];
  assert.equal(status.length, 1);
  assert.equal(status[0]!.note, 'still being written');
  assert.equal(status[0]!.path, `${FOLDER}/survey.pdf`);

  clock.advance(WINDOW_MS);
  await runDue(gate);
  assert.equal(staged.length, 1, 'staged once it stopped changing for the window');
  assert.equal(staged[0]!.bytes.length, 6000, 'all of it');
  assert.equal(report.problems.size, 0);
});

test('a link is never staged: one there from the start, and one swapped in while the file waited', async () => {
  const { gate, clock, folderDir, staged, consider, report } = setup;
  const secret = path.join(path.dirname(folderDir), 'secret.txt');
  fs.writeFileSync(secret, 'not for the project');

  fs.symlinkSync(secret, path.join(folderDir, 'link.txt'));
  await consider('link.txt');
  assert.equal(gate.size, 0, 'a link does not even wait');
  assert.match(report.refusedFiles.get(`${FOLDER}/link.txt`) ?? '', /a link to .*secret\.txt/);

  const file = path.join(folderDir, 'quote.txt');
  fs.writeFileSync(file, 'the real quote');
  await consider('quote.txt');
  assert.equal(gate.size, 1);
  // mv -T: a link renamed over the waiting file.
  const swap = path.join(folderDir, 'swap.tmp');
  fs.symlinkSync(secret, swap);
  fs.renameSync(swap, file);
  clock.advance(WINDOW_MS);
  await runDue(gate);
  assert.equal(staged.length, 0, 'what the link points to is never read');
  assert.equal(gate.size, 0);
  assert.ok(report.refusedFiles.has(`${FOLDER}/quote.txt`));
});

test('a file that goes away while it waits is forgotten, and a folder that became a link stops the wait', async () => {
  const { gate, clock, folderDir, staged, consider } = setup;
  fs.writeFileSync(path.join(folderDir, 'gone.txt'), 'brief');
  await consider('gone.txt');
  fs.rmSync(path.join(folderDir, 'gone.txt'));
  clock.advance(WINDOW_MS);
  await runDue(gate);
  assert.equal(gate.size, 0);
  assert.equal(staged.length, 0);

  // The project folder swapped for a link to a folder elsewhere that has a file of that name.
  fs.writeFileSync(path.join(folderDir, 'plan.txt'), 'the plan');
  await consider('plan.txt');
  const elsewhere = path.join(path.dirname(folderDir), 'elsewhere');
  fs.mkdirSync(elsewhere);
  fs.writeFileSync(path.join(elsewhere, 'plan.txt'), 'the plan');
  fs.rmSync(folderDir, { recursive: true });
  fs.symlinkSync(elsewhere, folderDir);
  clock.advance(WINDOW_MS);
  await runDue(gate);
  assert.equal(staged.length, 0, 'nothing is read through a folder that became a link');
  assert.equal(gate.size, 0);
  assert.equal(setup.folderChanges, 1, 'the folders are checked again');
});

test("a folder that became a link before a step: none of the step's files in it is read, not even its own", async () => {
  const { gate, clock, folderDir, staged, consider } = setup;
  for (const name of ['one.txt', 'two.txt', 'three.txt']) {
    fs.writeFileSync(path.join(folderDir, name), `the real ${name}`);
    await consider(name);
  }
  // The folder moved away and a link to it put in its place: the very same files (same
  // inodes, sizes and mtimes), so only the look at the folder can refuse them.
  fs.renameSync(folderDir, `${folderDir} moved`);
  fs.symlinkSync(`${folderDir} moved`, folderDir);
  clock.advance(WINDOW_MS);
  await runDue(gate);
  assert.deepEqual({ staged: staged.length, waiting: gate.size }, { staged: 0, waiting: 0 }, 'nothing is read through a folder that became a link');
  assert.ok(setup.folderChanges >= 1, 'the folders are checked again');
});

/** Staged copies in the file root's temp folder (the gate's are named watch-*). */
function stagedCopies(fileRoot: string): number {
  const temp = path.join(fileRoot, 'tmp');
  return fs.existsSync(temp) ? fs.readdirSync(temp).filter((name) => name.startsWith('watch-')).length : 0;
}

test('many due files are staged several at once, and attached one at a time, in due order, once each', async () => {
  const { gate, clock, folderDir, staged, consider, fileRoot } = setup;
  const names = Array.from({ length: 3 * POOL + 1 }, (_, index) => `drop-${String(index).padStart(2, '0')}.txt`);
  for (const name of names) {
    fs.writeFileSync(path.join(folderDir, name), `contents of ${name}`);
    await consider(name);
    clock.advance(1); // each its own due time: the due order is the order they came in
  }
  // While the first is attached, the next ones are staged meanwhile: its copy and POOL - 1 more
  // are in the temp folder at once (a bounded wait for the copies to land, not a timed check).
  let copiesWhileFirstAttached = 0;
  let attaching = 0;
  onAttach = async (candidate) => {
    attaching++;
    assert.equal(attaching, 1, 'never two attaches at once');
    if (candidate.name === names[0]) copiesWhileFirstAttached = await waitFor('the next files staged', () => stagedCopies(fileRoot) >= POOL && stagedCopies(fileRoot), 10_000, 5);
    attaching--;
  };
  clock.advance(WINDOW_MS);
  await runDue(gate);
  assert.ok(copiesWhileFirstAttached >= POOL, 'the next files were staged while the first was attached');
  assert.deepEqual(staged.map((entry) => entry.candidate.name), names, 'attached in due order, each once');
  for (const entry of staged) assert.equal(entry.bytes.toString(), `contents of ${entry.candidate.name}`);
  assert.equal(gate.size, 0);
  assert.equal(stagedCopies(fileRoot), 0, 'no staged copy is left behind');

  clock.advance(WINDOW_MS * 5);
  assert.equal(await runDue(gate), 0, 'nothing is due again');
  assert.equal(staged.length, names.length);
});

test('a file written again while others are staged and attached starts over, and is attached once with its new bytes', async () => {
  const { gate, clock, folderDir, staged, consider, fileRoot } = setup;
  const names = ['a.txt', 'b.txt', 'c.txt', 'd.txt', 'e.txt', 'f.txt'];
  for (const name of names) {
    fs.writeFileSync(path.join(folderDir, name), `first ${name}`);
    await consider(name);
    clock.advance(1);
  }
  // c.txt is within the pool of the first attach: staged already, or being staged, when it is written again.
  onAttach = async (candidate) => {
    if (candidate.name !== 'a.txt') return;
    const file = path.join(folderDir, 'c.txt');
    fs.writeFileSync(file, 'second c.txt, longer');
    fs.utimesSync(file, new Date(), new Date(Date.UTC(2026, 0, 2)));
  };
  clock.advance(WINDOW_MS);
  await runDue(gate);
  assert.deepEqual(staged.map((entry) => entry.candidate.name), ['a.txt', 'b.txt', 'd.txt', 'e.txt', 'f.txt'], 'c.txt is not attached with bytes it no longer has');
  assert.equal(gate.size, 1);
  assert.match([...gate.waiting(path.dirname(folderDir))][0]!.note ?? '', /changed while/);

  onAttach = async () => {};
  clock.advance(WINDOW_MS);
  await runDue(gate);
  assert.equal(staged.length, names.length);
  assert.equal(staged.at(-1)!.candidate.name, 'c.txt');
  assert.equal(staged.at(-1)!.bytes.toString(), 'second c.txt, longer');
  assert.equal(gate.size, 0);
  assert.equal(stagedCopies(fileRoot), 0);
});

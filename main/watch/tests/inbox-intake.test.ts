// The inbox folder's intake (issue 26): the watcher brings the inbox folder's files
// to its sink through its own events, rescans and a stability gate, as it does a
// project folder's. Real engine, real folders, the real watcher and chokidar; the
// sink is a plain recorder, since what a sink does with the files (the photo inbox)
// is tested in main/core/tests/photo-inbox.test.ts.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { makeTempDir, startTestServer, type TestServer } from '../../engine/testing/test-server.ts';
import { DEMO_ORGS, DEMO_USERS } from '../../engine/seed/demo-seed.ts';
import { FolderWatcher } from '../watcher.ts';
import type { InboxFile, InboxFileIdentity, InboxSink } from '../inbox-intake.ts';
import { folderOutboxOf } from '../../core/agent-folders.ts';
import { waitFor, writeSlowly } from '../testing/folder-testing.ts';

const INBOX = 'Unsorted';
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** What the watcher handed over, as a sink sees it. */
class RecordingSink implements InboxSink {
  readonly taken: Array<{ name: string; hash: string; stagedBytes: Buffer }> = [];
  readonly goneNames: string[] = [];
  /** How many files each flush closed. */
  readonly batches: number[] = [];
  private readonly known = new Map<string, InboxFileIdentity>();
  private inStep = 0;

  knows(name: string, file: InboxFileIdentity): boolean {
    const known = this.known.get(name);
    return known !== undefined && known.size === file.size && known.mtimeMs === file.mtimeMs && known.ino === file.ino;
  }
  async take(file: InboxFile): Promise<void> {
    this.known.set(file.name, file);
    // The staged copy is readable until flush: read here, it must be the bytes hashed.
    this.taken.push({ name: file.name, hash: file.hash, stagedBytes: fs.readFileSync(file.stagedPath) });
    this.inStep++;
  }
  async flush(): Promise<void> {
    this.batches.push(this.inStep);
    this.inStep = 0;
  }
  gone(name: string): void {
    this.known.delete(name);
    this.goneNames.push(name);
  }
  listed(names: ReadonlySet<string>): void {
    for (const name of [...this.known.keys()]) if (!names.has(name)) this.known.delete(name);
  }
}

let server: TestServer;
let root: string;
let outsideDir: string;
let watcher: FolderWatcher;
before(async () => {
  server = await startTestServer();
  root = makeTempDir('solardesk-inbox-intake-');
  outsideDir = makeTempDir('solardesk-inbox-outside-');
});
after(async () => {
  await watcher?.close();
  await server.close();
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(outsideDir, { recursive: true, force: true });
});

test('the inbox folder: files reach the sink through the gate, whole and once; links are refused unread; nothing is attached to a project', async () => {
  const { db } = server.engine.context;
  const admin = await db.selectFrom('users').select('id').where('email', '=', DEMO_USERS.sunriseAdmin).executeTakeFirstOrThrow();
  const filesBefore = (await db.selectFrom('private_files').select(db.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n;
  // A file already there when the sink connects.
  fs.mkdirSync(path.join(root, INBOX));
  const early = Buffer.from('taken before the app started');
  fs.writeFileSync(path.join(root, INBOX, 'early.jpg'), early);

  watcher = new FolderWatcher({
    root,
    engine: server.engine.context,
    outbox: folderOutboxOf(server.engine.context),
    orgId: DEMO_ORGS.sunrise,
    userId: admin.id,
    stabilityWindowMs: 300,
    inbox: { folder: INBOX, reason: 'the inbox: sorted by the app' },
  });
  await watcher.start();
  const sink = new RecordingSink();
  const connection = watcher.connectInbox(sink)!;
  assert.equal(connection.folder, path.join(root, INBOX));

  const takenEarly = await waitFor('early.jpg handed over', () => sink.taken.find((file) => file.name === 'early.jpg'));
  assert.equal(takenEarly.hash, sha256(early));
  assert.deepEqual(takenEarly.stagedBytes, early, 'the staged copy is the file');

  // A copy still being written is handed over once, whole, after it has settled.
  const slow = await writeSlowly(path.join(root, INBOX, 'slow.jpg'), 8, 4096, 120);
  // A link is refused: what it points to is never read.
  const secret = path.join(outsideDir, 'secret.txt');
  fs.writeFileSync(secret, 'not for the inbox');
  fs.symlinkSync(secret, path.join(root, INBOX, 'link.jpg'));
  // A subfolder's files are not sorted.
  fs.mkdirSync(path.join(root, INBOX, 'holiday'));
  fs.writeFileSync(path.join(root, INBOX, 'holiday', 'beach.jpg'), 'in a subfolder');

  const takenSlow = await waitFor('slow.jpg handed over', () => sink.taken.find((file) => file.name === 'slow.jpg'));
  assert.equal(takenSlow.hash, sha256(slow));
  assert.deepEqual(takenSlow.stagedBytes, slow);
  await waitFor('link.jpg refused', () => /link/.test(connection.whyWaiting('link.jpg') ?? ''));
  await waitFor('the watcher quiet', () => watcher.isQuiet());
  assert.deepEqual(sink.taken.map((file) => file.name).sort(), ['early.jpg', 'slow.jpg'], 'each file once; no link, nothing from the subfolder');
  assert.equal(
    sink.batches.reduce((sum, size) => sum + size, 0),
    sink.taken.length,
    'each file handed over was in a step that flushed',
  );
  assert.equal(connection.whyWaiting('early.jpg'), null, 'nothing waits for a file handed over');

  // A file removed from the inbox: the sink hears of it.
  fs.rmSync(path.join(root, INBOX, 'early.jpg'));
  await waitFor('early.jpg gone', () => sink.goneNames.includes('early.jpg'));

  // The watcher attached nothing to a project, and lists the inbox folder as the inbox.
  const filesAfter = (await db.selectFrom('private_files').select(db.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n;
  assert.equal(filesAfter, filesBefore);
  const status = await watcher.status();
  assert.equal(status.outside.find((entry) => entry.path === `${INBOX}/`)?.reason, 'the inbox: sorted by the app');

  // Disconnected, a sink hears nothing more; the next one to connect is handed everything there.
  connection.disconnect();
  fs.writeFileSync(path.join(root, INBOX, 'after.jpg'), 'after the first sink went');
  const next = new RecordingSink();
  watcher.connectInbox(next);
  await waitFor('both files handed to the next sink', () => ['after.jpg', 'slow.jpg'].every((name) => next.taken.some((file) => file.name === name)));
  await waitFor('the watcher quiet again', () => watcher.isQuiet());
  assert.deepEqual(next.taken.map((file) => file.name).sort(), ['after.jpg', 'slow.jpg']);
  assert.ok(!sink.taken.some((file) => file.name === 'after.jpg'), 'not to the one disconnected');
});

// Faults: `solardesk server` killed with SIGKILL while clients write (PATCHes,
// contacts, projects with new contacts) and while they upload (multipart files of
// megabytes, chunked uploads part by part), 20 times on one data folder, with a
// webhook subscribed to a receiver on 127.0.0.1. After each restart: SQLite's
// integrity and foreign key checks pass; no record is half-written (every project
// made with two new contacts has both, and its activity event); every
// acknowledged write is there, exactly; every blob is named by a file row and
// every file row's blob is there with its bytes; no temp files are left; and every
// acknowledged change's webhook arrives.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { startWebhookReceiver, type ReceivedCall, type WebhookReceiver } from '../engine/testing/webhook-receiver.ts';
import { filesBelow } from '../engine/testing/file-testing.ts';
import { outputTail } from './checks.ts';
import { multipartBytes, multipartRequest } from './fixtures.ts';
import { NO_QUOTAS, jsonRequest, startHardeningServer, type HardeningServer, type RawRequest, type RawResponse } from './hardening-server.ts';
import { StoreInspector } from './store-inspector.ts';
import { newTally, reportTally, runSeed, seededRandom } from './summary.ts';
import { apiPaths } from '../../shared/api-paths.ts';
import { STATE_HANG_GUARD_MS } from '../testing/hang-guards.ts';

const RUNS = 20;
const MiB = 1024 * 1024;
const DELIVERY_TIMEOUT_MS = STATE_HANG_GUARD_MS;
const seed = runSeed();
const tally = newTally('faults');

const { between } = seededRandom(seed);

/** What a change acknowledged with 2xx must have left: its record, and its webhook delivery. */
interface Acknowledged {
  describe: string;
  /** Checks the store after the restart; returns what is wrong, or null. */
  present: (store: StoreInspector) => string | null;
  /** The delivery that shows the change reached the webhook. */
  delivered: (call: ReceivedCall) => boolean;
}

const PATCHED_PROJECTS = [10, 11];
const UPLOAD_PROJECTS = [12, 13];

let dataDir: string;
let server: HardeningServer;
let receiver: WebhookReceiver;
/** The notes each patched project must hold: the last acknowledged value, or the one in flight at the kill. */
const notes = new Map<number, { acknowledged: string; inFlight: string | null }>();

before(async () => {
  receiver = await startWebhookReceiver();
  server = await startServer();
  dataDir = server.dataDir;
  const token = await server.tokenFor('sunriseAdmin');
  const created = await server.request(
    jsonRequest('POST', '/api/orgs/1/webhooks/', {
      endpoint: receiver.url,
      enabled: true,
      debug: false,
      trigger_fields: ['project.notes', 'project.private_files', 'contact.*'],
      payload_fields: ['project.notes', 'project.private_files', 'contact.*'],
    }, token),
  );
  assert.equal(created.status, 201, created.text);
  for (const project of PATCHED_PROJECTS) {
    const current = await server.request(jsonRequest('GET', apiPaths.project(1, project), undefined, token));
    notes.set(project, { acknowledged: current.json.notes, inFlight: null });
  }
});

after(async () => {
  await server?.stop();
  await receiver?.close();
  if (dataDir) fs.rmSync(path.dirname(dataDir), { recursive: true, force: true });
});

function startServer(): Promise<HardeningServer> {
  return startHardeningServer({ dataDir, throttleRates: NO_QUOTAS, extraArgs: ['--allow-private-webhook-endpoints'] });
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const blobPath = (hash: string) => path.join(dataDir, 'blobs', hash.slice(0, 2), hash.slice(2, 4), hash);
const fileUrlPattern = (id: number) => new RegExp(`/private_files/${id}/$`);

/** Runs `write` again and again until the server stops answering; each 2xx is acknowledged. */
async function writer(run: number, name: string, write: (step: number) => Promise<Acknowledged | 'refused' | null>, acknowledged: Acknowledged[]): Promise<void> {
  for (let step = 1; step <= 10_000; step++) {
    let result: Acknowledged | 'refused' | null;
    try {
      result = await write(step);
    } catch {
      return; // the server is gone: whatever was in flight is unacknowledged
    }
    if (result === 'refused') throw new Error(`run ${run} ${name} step ${step}: the live server refused a valid write`);
    if (result) acknowledged.push(result);
  }
}

/** A request that must succeed if answered at all. */
async function acknowledge(request: RawRequest): Promise<RawResponse | 'refused'> {
  const response = await server.request({ ...request, timeoutMs: 20_000 });
  return response.status < 300 ? response : 'refused';
}

/** PATCHes one project's notes, one after another, each a new value. */
function patcher(run: number, token: string, project: number, acknowledged: Acknowledged[]): Promise<void> {
  return writer(run, `PATCH ${project}`, async (step) => {
    const value = `run ${run} step ${step}`;
    notes.get(project)!.inFlight = value;
    const response = await acknowledge(jsonRequest('PATCH', apiPaths.project(1, project), { notes: value }, token));
    if (response === 'refused') return response;
    notes.set(project, { acknowledged: value, inFlight: null });
    return {
      describe: `PATCH ${project} notes ${value}`,
      present: () => null, // checked against `notes`, which knows about the write in flight
      delivered: (call) => call.body.model === 'Project' && call.body.model_id === project && call.body.fields?.notes === value,
    };
  }, acknowledged);
}

/** Creates records one after another: each acknowledged one must exist with its name and be delivered as a CREATE. */
function creator(run: number, token: string, acknowledged: Acknowledged[], kind: { model: 'Contact' | 'Project'; table: 'contacts' | 'projects'; column: string; body: (name: string, step: number) => Record<string, unknown> }): Promise<void> {
  return writer(run, `${kind.table}`, async (step) => {
    const name = `Fault ${kind.model} ${run}-${step}`;
    const response = await acknowledge(jsonRequest('POST', apiPaths.orgRecords(1, kind.table), kind.body(name, step), token));
    if (response === 'refused') return response;
    const id = response.json.id as number;
    return {
      describe: `${kind.model} ${id}`,
      present: (store) => (store.all(`select id from ${kind.table} where id = ? and ${kind.column} = ?`, id, name).length === 1 ? null : `${kind.model} ${id} ${name} is missing`),
      delivered: (call) => call.body.model === kind.model && call.body.model_id === id && call.body.event === 'CREATE',
    };
  }, acknowledged);
}

function writeWorkload(run: number, token: string, acknowledged: Acknowledged[]): Array<Promise<void>> {
  return [
    ...PATCHED_PROJECTS.map((project) => patcher(run, token, project, acknowledged)),
    creator(run, token, acknowledged, { model: 'Contact', table: 'contacts', column: 'first_name', body: (name, step) => ({ first_name: name, email: `fault${run}.${step}@example.com` }) }),
    // A project made with two new contacts: one transaction, so after a kill it has both or does not exist.
    creator(run, token, acknowledged, { model: 'Project', table: 'projects', column: 'title', body: (name) => ({ title: name, contacts_new: [{ first_name: `${name} a` }, { first_name: `${name} b` }] }) }),
  ];
}

function fileAcknowledged(id: number, project: number, bytes: Buffer): Acknowledged {
  const hash = sha256(bytes);
  return {
    describe: `file ${id} (${bytes.length} bytes)`,
    present: (store) => {
      const row = store.all<{ file_hash: string; filesize: number; project_id: number }>('select file_hash, filesize, project_id from private_files where id = ?', id)[0];
      if (!row) return `file ${id} is missing`;
      if (row.file_hash !== hash || row.filesize !== bytes.length || row.project_id !== project) return `file ${id} is not what was sent: ${JSON.stringify(row)}`;
      if (!fs.existsSync(blobPath(hash)) || sha256(fs.readFileSync(blobPath(hash))) !== hash) return `file ${id}'s blob is missing or damaged`;
      return null;
    },
    delivered: (call) =>
      call.body.model === 'Project' && call.body.model_id === project && (call.body.fields?.private_files ?? []).some((url: string) => fileUrlPattern(id).test(url)),
  };
}

function uploadWorkload(run: number, token: string, acknowledged: Acknowledged[]): Array<Promise<void>> {
  const uploader = (project: number) =>
    writer(run, `uploads to ${project}`, async (step) => {
      const bytes = randomBytes(between(MiB, 8 * MiB));
      const multipart = multipartBytes({ title: `Fault upload ${run}-${step}`, project: String(project) }, { fileName: `fault-${run}-${step}.bin`, bytes });
      const response = await acknowledge(multipartRequest('/api/orgs/1/private_files/', token, multipart));
      return response === 'refused' ? response : fileAcknowledged(response.json.id, project, bytes);
    }, acknowledged);
  const chunked = writer(run, 'chunked uploads', async (step) => {
    const project = UPLOAD_PROJECTS[0]!;
    const started = await acknowledge(jsonRequest('POST', '/api/orgs/1/private_files/uploads/', { filename: `chunked-${run}-${step}.bin`, project }, token));
    if (started === 'refused') return started;
    const upload = started.json.upload_id as string;
    const parts: Buffer[] = [];
    for (let part = 1; part <= between(2, 4); part++) {
      const bytes = randomBytes(between(MiB / 2, 2 * MiB));
      const sent = await acknowledge({ method: 'PUT', path: apiPaths.fileUploadPart(1, upload, part), headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' }, body: bytes });
      if (sent === 'refused') return sent;
      parts.push(bytes);
      const etag = sha256(bytes);
      // An acknowledged part is kept until the upload completes: the client resumes from it.
      acknowledged.push({
        describe: `part ${part} of upload ${upload}`,
        present: (store) => {
          const done = store.all<{ completed_file_id: number | null }>('select completed_file_id from file_uploads where id = ?', upload)[0];
          if (!done) return `upload ${upload} is missing`;
          if (done.completed_file_id !== null) return null;
          const row = store.all<{ etag: string; size: number }>('select etag, size from file_upload_parts where upload_id = ? and part_number = ?', upload, part)[0];
          if (row?.etag !== etag) return `part ${part} of upload ${upload} is missing or changed`;
          const file = path.join(dataDir, 'uploads', upload, `${part}.part`);
          return fs.existsSync(file) && fs.statSync(file).size === row.size ? null : `part ${part} of upload ${upload} has no file`;
        },
        delivered: () => true,
      });
    }
    const completed = await acknowledge({ method: 'POST', path: apiPaths.fileUploadComplete(1, upload), headers: { authorization: `Bearer ${token}` } });
    return completed === 'refused' ? completed : fileAcknowledged(completed.json.id, project, Buffer.concat(parts));
  }, acknowledged);
  return [...UPLOAD_PROJECTS.map(uploader), chunked, patcher(run, token, PATCHED_PROJECTS[0]!, acknowledged)];
}

/** Every check of one restart; returns how many acknowledged changes were lost. */
async function checkAfterRestart(run: number, acknowledged: Acknowledged[], callsBefore: number): Promise<number> {
  const store = new StoreInspector(dataDir);
  let lost = 0;
  try {
    assert.equal(store.integrityCheck(), 'ok', `run ${run}: PRAGMA integrity_check`);
    assert.deepEqual(store.foreignKeyViolations(), [], `run ${run}: PRAGMA foreign_key_check`);
    // No half-written record: a project made with two new contacts has both, and its activity event.
    const halfWritten = store.all(
      `select p.id, (select count(*) from project_contacts pc where pc.project_id = p.id) as contacts,
              (select count(*) from events e where e.project_id = p.id and e.event_type = 'project_created') as events
       from projects p where p.title like 'Fault Project %' and (contacts != 2 or events != 1)`,
    );
    assert.deepEqual(halfWritten, [], `run ${run}: projects without both their contacts or their event`);
    for (const [project, expected] of notes) {
      const [row] = store.all<{ attributes: string }>('select attributes from projects where id = ?', project);
      const stored = (JSON.parse(row!.attributes) as { notes?: string }).notes ?? '';
      if (stored !== expected.acknowledged && stored !== expected.inFlight) {
        lost++;
        assert.fail(`run ${run}: project ${project} holds notes ${JSON.stringify(stored)}, not the acknowledged ${JSON.stringify(expected.acknowledged)} (or ${JSON.stringify(expected.inFlight)} in flight)`);
      }
      notes.set(project, { acknowledged: stored, inFlight: null });
    }
    for (const change of acknowledged) {
      const problem = change.present(store);
      if (problem) lost++;
      assert.equal(problem, null, `run ${run}: acknowledged ${change.describe}`);
    }
    // Blobs and file rows name each other exactly; nothing is left in DATA/tmp/.
    const blobs = filesBelow(path.join(dataDir, 'blobs')).map((file) => path.basename(file)).sort();
    const named = store.all<{ file_hash: string }>('select distinct file_hash from private_files where file_hash is not null order by file_hash').map((row) => row.file_hash);
    assert.deepEqual(blobs, named, `run ${run}: every blob is named by a file and every file's blob exists`);
    assert.deepEqual(filesBelow(path.join(dataDir, 'tmp')), [], `run ${run}: no temp files survive a restart`);
    // Parts of uploads still open have their files (a completed upload's parts went into its file).
    const partRows = store.all<{ upload_id: string; part_number: number; size: number }>(
      'select p.upload_id, p.part_number, p.size from file_upload_parts p join file_uploads u on u.id = p.upload_id where u.completed_file_id is null',
    );
    for (const part of partRows) {
      const file = path.join(dataDir, 'uploads', part.upload_id, `${part.part_number}.part`);
      assert.ok(fs.existsSync(file) && fs.statSync(file).size === part.size, `run ${run}: the part file of ${JSON.stringify(part)}`);
    }
    // And the other way: every part file on disk is a recorded part of an upload still open.
    const recorded = new Set(partRows.map((part) => path.join(part.upload_id, `${part.part_number}.part`)));
    const stray = filesBelow(path.join(dataDir, 'uploads')).filter((file) => !recorded.has(file));
    assert.deepEqual(stray, [], `run ${run}: part files no open upload records`);
  } finally {
    store.close();
  }
  // Every acknowledged change is delivered to the webhook after the restart.
  const deadline = Date.now() + DELIVERY_TIMEOUT_MS;
  let missing = acknowledged;
  while (Date.now() < deadline) {
    const calls = receiver.calls.slice(callsBefore);
    missing = acknowledged.filter((change) => !calls.some((call) => change.delivered(call)));
    if (missing.length === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  lost += missing.length;
  assert.deepEqual(missing.map((change) => change.describe), [], `run ${run}: acknowledged changes whose webhook never arrived`);
  return lost;
}

test(`SIGKILL during writes and during uploads, ${RUNS} times: nothing acknowledged is lost`, async (t) => {
  let acknowledgedTotal = 0;
  let cutOffUploads = 0;
  for (let run = 1; run <= RUNS; run++) {
    const kind = run % 2 === 1 ? 'writes' : 'uploads';
    const token = await server.tokenFor('sunriseAdmin');
    const callsBefore = receiver.calls.length;
    const acknowledged: Acknowledged[] = [];
    const writers = (kind === 'writes' ? writeWorkload : uploadWorkload)(run, token, acknowledged);
    if (kind === 'writes') {
      // The kill falls while writes are being acknowledged: after the first one, then at a random
      // moment. A fixed delay from the start could pass before any write was answered on a loaded
      // machine (load 17: none within 150 ms), and the run would check nothing.
      const deadline = Date.now() + STATE_HANG_GUARD_MS;
      while (acknowledged.length === 0) {
        assert.ok(Date.now() < deadline, `run ${run}: no write was acknowledged within ${STATE_HANG_GUARD_MS / 1000} s (${outputTail(server)})`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
    await new Promise((resolve) => setTimeout(resolve, between(kind === 'writes' ? 0 : 150, 1500)));
    const killed = await server.stop('SIGKILL');
    assert.equal(killed, null, `run ${run}: the server was killed, not exited (${outputTail(server)})`);
    tally.faults++;
    await Promise.all(writers);
    // Uploads the kill cut off are temp files now; the restart must remove them.
    if (filesBelow(path.join(dataDir, 'tmp')).length > 0) cutOffUploads++;
    acknowledgedTotal += acknowledged.length;
    tally.inputs += acknowledged.length;
    server = await startServer();
    tally.lost += await checkAfterRestart(run, acknowledged, callsBefore);
  }
  tally.notes.push(`${RUNS} SIGKILLs (${RUNS / 2} during writes, ${RUNS / 2} during uploads of 1-8 MB and chunked uploads); ${acknowledgedTotal} acknowledged changes checked after each restart, every one present and delivered to the webhook; ${cutOffUploads} kills cut an upload off mid-stream (temp files, removed at restart); seed ${seed}`);
  assert.equal(tally.lost, 0);
  reportTally(t, tally);
});

// Issue 25, item 4: a full disk. The server's data folder is on a small tmpfs of
// its own (mounted here: the suite runs as root in CI's container and on the
// development machine); a filler file takes what is left, then uploads and edits are
// sent through a real server. Each must be answered (never a reset), refused with
// 507 and a sentence while the disk is full (never a 500), and every answer that
// said "saved" must hold after the disk is freed and the server serves again. Where
// mounting is refused (not root), the test is skipped and says so.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { makeTempDir } from '../engine/testing/test-server.ts';
import { apiPaths } from '../../shared/api-paths.ts';
import { DEFAULT_THROTTLE_RATES } from '../../shared/throttle-rates.ts';
import { startHardeningServer, jsonRequest, type HardeningServer, type RawResponse } from './hardening-server.ts';
import { multipartBytes, multipartRequest } from './fixtures.ts';
import { outputTail } from './checks.ts';
import { newTally, reportTally } from './summary.ts';

const tally = newTally('full disk');

const DISK_BYTES = 24 * 1024 * 1024;

function mountSmallDisk(): { dir: string; unmount(): void } | { refused: string } {
  const dir = makeTempDir('solardesk-full-disk-');
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${DISK_BYTES},mode=0700`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (error) {
    fs.rmSync(dir, { recursive: true, force: true });
    return { refused: String((error as { stderr?: Buffer }).stderr ?? error).trim() };
  }
  return {
    dir,
    unmount: () => {
      execFileSync('umount', [dir], { stdio: 'pipe' });
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Fills the disk to the last byte with one file (written until ENOSPC). */
function fillDisk(file: string): void {
  const chunk = Buffer.alloc(64 * 1024, 7);
  const fd = fs.openSync(file, 'w');
  try {
    for (;;) {
      try {
        fs.writeSync(fd, chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
        // The last bytes: smaller writes until not one more fits.
        for (let size = 32 * 1024; size >= 1; size = Math.floor(size / 2)) {
          try {
            while (fs.writeSync(fd, chunk, 0, size) > 0);
          } catch {
            // next smaller size
          }
        }
        return;
      }
    }
  } finally {
    fs.closeSync(fd);
  }
}

test('on a full disk uploads and edits get 507 with a sentence, never a 500 or a reset; nothing acknowledged is lost; the server serves again once space is freed', async (t) => {
  const disk = mountSmallDisk();
  if ('refused' in disk) {
    t.skip(`mounting a small tmpfs was refused (${disk.refused}); run as root to test a full disk`);
    return;
  }
  let server: HardeningServer | undefined;
  try {
    // Quotas on (the throttle writes its counts to the full disk too), high enough for the edits sent here.
    const throttleRates = { ...DEFAULT_THROTTLE_RATES, project_partial_update: { user: '1000/min', org: '10000/day' } };
    server = await startHardeningServer({ dataDir: path.join(disk.dir, 'data'), logLevel: 'error', throttleRates });
    const token = await server.tokenFor('sunriseAdmin');
    const filler = path.join(disk.dir, 'filler');
    const saved: Array<{ id: number }> = [];
    const savedNotes = new Map<number, string>();
    const upload = async (n: number): Promise<RawResponse> => {
      const bytes = Buffer.alloc(200 * 1024, n % 251);
      bytes.write(`upload ${n}`);
      const response = await server!.request({ ...multipartRequest(apiPaths.privateFiles(1), token, multipartBytes({ title: `full disk ${n}` }, { fileName: `f${n}.bin`, bytes })), timeoutMs: 30_000 });
      if (response.status === 201) saved.push({ id: response.json.id });
      return response;
    };
    const edit = async (n: number): Promise<RawResponse> => {
      const notes = `full disk edit ${n} ${'x'.repeat(2000)}`;
      const response = await server!.request({ ...jsonRequest('PATCH', apiPaths.project(1, 12), { notes }, token), timeoutMs: 30_000 });
      if (response.status === 200) savedNotes.set(12, notes);
      return response;
    };
    assert.equal((await upload(0)).status, 201, 'an upload while there is room');
    fillDisk(filler);
    const refused = { upload: [] as RawResponse[], edit: [] as RawResponse[] };
    // Bounded: 12 uploads and 12 edits on the full disk. Each is answered (a reset or a hang rejects here).
    for (let n = 1; n <= 12; n++) {
      for (const [kind, response] of [['upload', await upload(n)], ['edit', await edit(n)]] as const) {
        tally.inputs++;
        assert.ok(response.status < 500 || response.status === 507, `no 500: ${response.status} ${response.text}\n${outputTail(server)}`);
        if (response.status === 507) refused[kind].push(response);
      }
    }
    assert.ok(refused.upload.length > 0 && refused.edit.length > 0, `the full disk refused uploads (${refused.upload.length}) and edits (${refused.edit.length})`);
    for (const response of [...refused.upload, ...refused.edit]) assert.match(response.json?.detail ?? '', /disk is full.*free space/i, response.text);
    tally.notes.push(`${DISK_BYTES / 1024 / 1024} MiB tmpfs filled: ${refused.upload.length} uploads and ${refused.edit.length} edits refused with 507, none 500`);
    assert.ok(server.alive(), outputTail(server));
    assert.doesNotMatch(server.output(), /cannot rollback|no transaction is active/);

    fs.rmSync(filler);
    const afterFreed = await upload(100);
    assert.equal(afterFreed.status, 201, `serves again once space is freed: ${afterFreed.text}`);
    assert.equal((await edit(100)).status, 200);
    for (const file of saved) {
      const described = await server.request(jsonRequest('GET', apiPaths.privateFile(1, file.id), undefined, token));
      if (described.status !== 200) tally.lost++;
    }
    assert.equal(tally.lost, 0, 'every acknowledged upload is there');
    const project = await server.request(jsonRequest('GET', apiPaths.project(1, 12), undefined, token));
    assert.equal(project.json.notes, savedNotes.get(12), 'the last acknowledged edit holds');
  } finally {
    await server?.stop();
    disk.unmount();
  }
});

test('summary', (t) => reportTally(t, tally));

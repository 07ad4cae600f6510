// Private file uploads: how fast a multipart upload lands compared with the disk
// itself, and whether the server's memory stays flat whatever the file's size.
//   files.upload         100 MB through a real server on 127.0.0.1 vs copying the same bytes with fs
//   files.upload_memory  peak RSS growth of a server process (solardesk server) during a
//                        200 MB upload, against its growth during a 1 MB upload
//   files.create_at_1000 a small private-file create into a project holding 1,000 files,
//                        against the same create into a project holding 10 (issue 18)
//   files.list_at_1000   a page of a project's files when it holds 1,000, against 10
// The test bytes are generated into a temp file and streamed: nothing here holds them in memory.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import type { Benchmark, BenchResult } from './bench-types.ts';
import { startTestServer } from '../main/engine/testing/test-server.ts';
import { STOP_WITH_PARENT } from '../main/testing/child-process.ts';
import { DEMO_PASSWORD, DEMO_USERS } from '../main/engine/seed/demo-seed.ts';
import { multipartBody, postMultipart } from '../main/engine/testing/multipart-upload.ts';
import { apiPaths } from '../shared/api-paths.ts';
import { processMemoryMb } from './process-memory.ts';

const MB = 1024 * 1024;
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** A file of random bytes, written a megabyte at a time. */
export async function makeTestFile(dir: string, megabytes: number, tag = ''): Promise<string> {
  const file = path.join(dir, `test-${megabytes}mb${tag}.bin`);
  await pipeline(
    (function* () {
      for (let index = 0; index < megabytes; index++) yield randomBytes(MB);
    })(),
    fs.createWriteStream(file),
  );
  return file;
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/** The best of a few runs: the least disturbed by whatever else the machine does. */
export async function bestOf(runs: number, work: () => Promise<unknown>): Promise<number> {
  let best = Infinity;
  for (let run = 0; run < runs; run++) best = Math.min(best, await timed(work));
  return best;
}

export async function signIn(baseUrl: string): Promise<string> {
  const response = await fetch(`${baseUrl}/api-token-auth/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: DEMO_USERS.sunriseAdmin, password: DEMO_PASSWORD }),
  });
  return ((await response.json()) as { token: string }).token;
}

export async function upload(baseUrl: string, token: string, file: string): Promise<void> {
  const response = await postMultipart(`${baseUrl}${apiPaths.privateFiles(1)}`, token, multipartBody({}, { fileName: path.basename(file), contents: { path: file } }));
  if (response.status !== 201) throw new Error(`upload failed: ${response.status} ${JSON.stringify(response.json)}`);
}

const uploadThroughput: Benchmark = {
  name: 'files.upload',
  description: '100 MB multipart upload through a server on 127.0.0.1, vs copying the same bytes with fs',
  async run(): Promise<BenchResult[]> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'solardesk-bench-files-'));
    const server = await startTestServer();
    try {
      const source = await makeTestFile(dir, 100);
      const token = await server.tokenFor(DEMO_USERS.sunriseAdmin);
      const copySeconds = await bestOf(3, async () => {
        const target = path.join(dir, 'copy.bin');
        await pipeline(fs.createReadStream(source), fs.createWriteStream(target));
        fs.rmSync(target);
      });
      const uploadSeconds = await bestOf(3, () => upload(server.baseUrl, token, source));
      const uploadRate = 100 / uploadSeconds;
      const copyRate = 100 / copySeconds;
      return [
        {
          name: 'files.upload',
          value: uploadRate,
          baseline: copyRate,
          ratio: uploadRate / copyRate,
          unit: 'MB/s',
          notes: 'best of 3; the upload also hashes (sha256), parses multipart and crosses the loopback; ratio = fraction of plain disk copy speed',
        },
      ];
    } finally {
      await server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
};

/** `solardesk server` in its own process, so its memory is its own. */
export async function startServerProcess(dataDir: string, extraArgs: string[] = []): Promise<{ child: ChildProcess; baseUrl: string }> {
  // SOLARDESK_PROFILE_DIR: the server writes a V8 CPU profile there when it stops, as test servers do (docs/benchmarks.md, "Profiles").
  const profile = process.env.SOLARDESK_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.SOLARDESK_PROFILE_DIR}`] : [];
  const child = spawn(process.execPath, [...profile, 'main/solardesk.js', 'server', '--port', '0', '--data', dataDir, '--seed', 'demo', '--log-level', 'silent', STOP_WITH_PARENT, ...extraArgs], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const baseUrl = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk) => {
      output += String(chunk);
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the server exited (${code}) before listening: ${output}`)));
  });
  return { child, baseUrl };
}

/** Growth of the process's peak RSS over its RSS before the work, in MB. Linux resets the peak on "5" > clear_refs. */
export async function peakGrowthMb(pid: number, work: () => Promise<void>): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 300));
  fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
  // Right after the reset the peak is the RSS of that moment: the level growth is measured from.
  const before = processMemoryMb(pid, 'VmHWM');
  await work();
  return processMemoryMb(pid, 'VmHWM') - before;
}

const uploadMemory: Benchmark = {
  name: 'files.upload_memory',
  description: 'peak RSS growth of a solardesk server process during a 200 MB upload, vs during a 1 MB upload',
  async run(): Promise<BenchResult[]> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'solardesk-bench-memory-'));
    const { child, baseUrl } = await startServerProcess(path.join(dir, 'data'));
    try {
      const small = await makeTestFile(dir, 1);
      const warmUp = await makeTestFile(dir, 50);
      const large = await makeTestFile(dir, 200);
      const token = await signIn(baseUrl);
      // The first large upload grows V8's young generation to its working size once for all; measured apart.
      const warmUpGrowth = await peakGrowthMb(child.pid!, () => upload(baseUrl, token, warmUp));
      const smallGrowth = await peakGrowthMb(child.pid!, () => upload(baseUrl, token, small));
      const largeGrowth = await peakGrowthMb(child.pid!, () => upload(baseUrl, token, large));
      // A growth under 1 MB is noise; dividing by it would say nothing.
      const baseline = Math.max(smallGrowth, 1);
      return [
        {
          name: 'files.upload_memory',
          value: largeGrowth,
          baseline: smallGrowth,
          ratio: largeGrowth / baseline,
          unit: 'MB',
          notes:
            `peak RSS growth (VmHWM after a reset) during a 200 MB upload vs a 1 MB upload, baseline floored at 1 MB; ` +
            `memory that stays flat keeps the ratio near 1 (absolute: ${largeGrowth.toFixed(1)} MB for 200 MB; ` +
            `the first upload after start, 50 MB, grew V8's young generation and buffers once by ${warmUpGrowth.toFixed(1)} MB)`,
        },
      ];
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
};

const FEW_FILES = 10;
const MANY_FILES = 1000;
const MEASURED_CREATES = 60;

/** The median of some numbers. */
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

async function timedMs(work: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

const createAtScale: Benchmark = {
  name: 'files.create_at_1000',
  description: `private-file create (and a page of the project's files) at ${MANY_FILES} files in the project vs at ${FEW_FILES}`,
  async run(): Promise<BenchResult[]> {
    const server = await startTestServer();
    try {
      const token = await server.tokenFor(DEMO_USERS.sunriseAdmin);
      const [few, many] = [30, 31];
      let made = 0;
      const create = async (projectId: number) => {
        const name = `reading ${++made}.txt`;
        const response = await postMultipart(`${server.baseUrl}${apiPaths.privateFiles(1)}`, token, multipartBody({ project: String(projectId) }, { fileName: name, contents: Buffer.from(`meter reading ${made}\n`) }));
        if (response.status !== 201) throw new Error(`create failed: ${response.status} ${JSON.stringify(response.json)}`);
      };
      for (let index = 0; index < FEW_FILES; index++) await create(few);
      for (let index = 0; index < MANY_FILES; index++) await create(many);
      // Alternating, so whatever else the machine does falls on both alike; the median of each.
      const fewMs: number[] = [];
      const manyMs: number[] = [];
      for (let index = 0; index < MEASURED_CREATES; index++) {
        fewMs.push(await timedMs(() => create(few)));
        manyMs.push(await timedMs(() => create(many)));
      }
      const page = async (projectId: number) => {
        const response = await fetch(`${server.baseUrl}${apiPaths.privateFiles(1)}?project=${projectId}&limit=10`, { headers: { authorization: `Bearer ${token}` } });
        if (response.status !== 200) throw new Error(`list failed: ${response.status}`);
        await response.arrayBuffer();
      };
      const fewListMs: number[] = [];
      const manyListMs: number[] = [];
      for (let index = 0; index < MEASURED_CREATES; index++) {
        fewListMs.push(await timedMs(() => page(few)));
        manyListMs.push(await timedMs(() => page(many)));
      }
      const createMany = median(manyMs);
      const createFew = median(fewMs);
      const listMany = median(manyListMs);
      const listFew = median(fewListMs);
      return [
        {
          name: 'files.create_at_1000',
          value: createMany,
          baseline: createFew,
          ratio: createMany / createFew,
          unit: 'ms per create',
          notes:
            `median of ${MEASURED_CREATES} multipart creates of a ~20-byte file into a project holding ${MANY_FILES}+ files, vs into one holding ${FEW_FILES}+, ` +
            `alternating; in-process test server, no webhooks; lower is better, target at most 1.2`,
        },
        {
          name: 'files.list_at_1000',
          value: listMany,
          baseline: listFew,
          ratio: listMany / listFew,
          unit: 'ms per page',
          notes: `median of ${MEASURED_CREATES} GETs of a 10-file page of the project's files (?project=), ${MANY_FILES}+ files vs ${FEW_FILES}+; lower is better`,
        },
      ];
    } finally {
      await server.close();
    }
  },
};

export const benchmarks: Benchmark[] = [uploadThroughput, uploadMemory, createAtScale];

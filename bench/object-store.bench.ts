// File contents in an object store (issue 31), against a bare S3 client talking to
// the same store (s3rver on 127.0.0.1, in this process) in the same run:
//   objectstore.upload          MB/s of a multipart upload through the server vs the bare client's
//                               multipart upload of the same file (target ratio >= 0.6)
//   objectstore.download        MB/s of a signed-link download through the server vs the bare
//                               client's GET of the same object (target ratio >= 0.8)
//   objectstore.download_redirect  the same through a server told `downloads=redirect`: the link
//                               answers 302 to a presigned URL and the client reads the store
// s3rver runs in a process of its own (bench/object-store-process.ts), as a store does.
//   objectstore.upload_memory   peak RSS growth of a `solardesk server --blob-store` process during
//                               a large upload (BENCH_OBJECT_STORE_MB, default 1024) vs a 1 MB one
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { Readable } from 'node:stream';
import type { Benchmark, BenchResult } from './bench-types.ts';
import { startObjectStoreProcess } from './object-store-process.ts';
import { multipartBody, postMultipart } from '../main/engine/testing/multipart-upload.ts';
import { apiPaths } from '../shared/api-paths.ts';
import { bestOf, makeTestFile, peakGrowthMb, signIn, startServerProcess, upload } from './files.bench.ts';

const THROUGHPUT_MB = 100;
/** The best time of each job, the jobs run in turn `runs` times. */
async function alternatedBest(runs: number, jobs: Array<() => Promise<unknown>>): Promise<number[]> {
  const best = jobs.map(() => Infinity);
  for (let run = 0; run < runs; run++) {
    for (const [index, job] of jobs.entries()) best[index] = Math.min(best[index]!, await bestOf(1, job));
  }
  return best;
}
const discard = () => new Writable({ write: (_chunk, _encoding, callback) => callback() });

/** GETs `url` with node:http, following at most one redirect (a client of a redirecting link), and reads the bytes. */
async function readLink(url: string, redirects = 1): Promise<void> {
  const [response] = (await once(http.get(url), 'response')) as [http.IncomingMessage];
  if (response.statusCode === 302 && redirects > 0 && response.headers.location) {
    response.resume();
    return readLink(response.headers.location, redirects - 1);
  }
  if (response.statusCode !== 200) throw new Error(`download failed: ${response.statusCode}`);
  await pipeline(response, discard());
}

const throughput: Benchmark = {
  name: 'objectstore.throughput',
  description: `${THROUGHPUT_MB} MB up and down through a server process on an object store, vs a bare S3 client to the same store`,
  async run(): Promise<BenchResult[]> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'solardesk-bench-s3-'));
    // Each in its own process, as in production: the store, the server and the bench's client share no thread.
    const objects = await startObjectStoreProcess('bench');
    const { child, baseUrl } = await startServerProcess(path.join(dir, 'data'), ['--blob-store', objects.address('server')]);
    // A prefix of its own: each server removes, at start, the blobs its own database does not name.
    const redirecting = await startServerProcess(path.join(dir, 'data-redirect'), ['--blob-store', `${objects.address('redirect')}&downloads=redirect`]);
    try {
      // Different bytes for each run: identical contents are stored once, and a second upload of the same file would skip the store.
      const sources = [await makeTestFile(dir, THROUGHPUT_MB, 'a'), await makeTestFile(dir, THROUGHPUT_MB, 'b')];
      const token = await signIn(baseUrl);
      let bareRun = 0;
      const bareUpload = await bestOf(2, () => {
        const source = sources[bareRun++ % 2]!;
        return new Upload({ client: objects.client, params: { Bucket: objects.bucket, Key: `bare/${bareRun}`, Body: fs.createReadStream(source) }, partSize: 8 * 1024 * 1024, queueSize: 4 }).done();
      });
      let serverRun = 0;
      let fileUrl = '';
      const serverUpload = await bestOf(2, async () => {
        const source = sources[serverRun++ % 2]!;
        const response = await postMultipart(`${baseUrl}${apiPaths.privateFiles(1)}`, token, multipartBody({}, { fileName: 'big.bin', contents: { path: source } }));
        if (response.status !== 201) throw new Error(`upload failed: ${response.status}`);
        fileUrl = response.json.file_contents;
      });
      const redirectToken = await signIn(redirecting.baseUrl);
      const redirected = await postMultipart(`${redirecting.baseUrl}${apiPaths.privateFiles(1)}`, redirectToken, multipartBody({}, { fileName: 'big.bin', contents: { path: sources[0]! } }));
      if (redirected.status !== 201) throw new Error(`upload failed: ${redirected.status}`);
      // Alternated, best of 3 each: on a shared machine a slow spell then falls on every side, not on one.
      const [bareDownload, serverDownload, redirectDownload] = (await alternatedBest(3, [
        async () => {
          const answer = await objects.client.send(new GetObjectCommand({ Bucket: objects.bucket, Key: 'bare/1' }));
          await pipeline(answer.Body as Readable, discard());
        },
        // Read with node:http, as the SDK reads the bare GET: fetch's web streams would cost the bench's side more.
        () => readLink(fileUrl, 0),
        () => readLink(redirected.json.file_contents),
      ])) as [number, number, number];
      const rate = (seconds: number) => THROUGHPUT_MB / seconds;
      const note = 'uploads best of 2, downloads best of 3 alternated, different bytes each upload; s3rver, the server and the bench each in their own process on 127.0.0.1; the server also hashes, writes a temp file and adds a loopback hop';
      return [
        { name: 'objectstore.upload', value: rate(serverUpload), baseline: rate(bareUpload), ratio: bareUpload / serverUpload, unit: 'MB/s', notes: `${note}; target ratio >= 0.6` },
        { name: 'objectstore.download', value: rate(serverDownload), baseline: rate(bareDownload), ratio: bareDownload / serverDownload, unit: 'MB/s', notes: `${note}; target ratio >= 0.8` },
        {
          name: 'objectstore.download_redirect',
          value: rate(redirectDownload),
          baseline: rate(bareDownload),
          ratio: bareDownload / redirectDownload,
          unit: 'MB/s',
          notes: 'the link of a server with downloads=redirect: its 302, then the presigned GET from the store, read with node:http; alternated with the two above; target ratio >= 0.8',
        },
      ];
    } finally {
      for (const server of [child, redirecting.child]) {
        server.kill('SIGTERM');
        if (server.exitCode === null) await once(server, 'exit');
      }
      await objects.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
};

const uploadMemory: Benchmark = {
  name: 'objectstore.upload_memory',
  description: 'peak RSS growth of a solardesk server --blob-store process during a large upload, vs a 1 MB upload',
  async run(): Promise<BenchResult[]> {
    const largeMb = Number(process.env.BENCH_OBJECT_STORE_MB ?? 1024);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'solardesk-bench-s3-memory-'));
    const objects = await startObjectStoreProcess('bench');
    const { child, baseUrl } = await startServerProcess(path.join(dir, 'data'), ['--blob-store', objects.address('memory')]);
    try {
      const small = await makeTestFile(dir, 1);
      const warmUp = await makeTestFile(dir, 50);
      const large = await makeTestFile(dir, largeMb);
      const token = await signIn(baseUrl);
      await peakGrowthMb(child.pid!, () => upload(baseUrl, token, warmUp));
      const smallGrowth = await peakGrowthMb(child.pid!, () => upload(baseUrl, token, small));
      const started = Date.now();
      const largeGrowth = await peakGrowthMb(child.pid!, () => upload(baseUrl, token, large));
      const seconds = (Date.now() - started) / 1000;
      return [
        {
          name: 'objectstore.upload_memory',
          value: largeGrowth,
          baseline: smallGrowth,
          ratio: largeGrowth / Math.max(smallGrowth, 1),
          unit: 'MB',
          notes: `peak RSS growth during a ${largeMb} MB upload (${seconds.toFixed(0)} s) vs a 1 MB upload, baseline floored at 1 MB; flat memory keeps the ratio near 1`,
        },
      ];
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
      await objects.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
};

export const benchmarks: Benchmark[] = [throughput, uploadMemory];

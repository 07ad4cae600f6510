// The object store for the object-store bench, in a process of its own, as a real
// store is: when s3rver shared the bench's thread, it also served the bare client
// and consumed the server's answer on that one thread, so either side's figure
// moved with the other's (download ratios of 0.13 and 2.82 in two runs).
// Run as a child (`node --import tsx bench/object-store-process.ts BUCKET`): it
// prints its endpoint as one JSON line and serves until it is sent SIGTERM.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createS3Client } from '../main/engine/files/object-store-blobs.ts';
import { parseObjectStoreAddress } from '../main/engine/files/object-store-address.ts';
import { startTestObjectStore } from '../main/engine/testing/s3rver-for-tests.ts';
import type { S3Client } from '@aws-sdk/client-s3';

const thisFile = fileURLToPath(import.meta.url);

export interface ObjectStoreProcess {
  /** The --blob-store address of `prefix` in the bucket. */
  address(prefix: string): string;
  /** A bare client of the same store, in the bench's process. */
  readonly client: S3Client;
  readonly bucket: string;
  close(): Promise<void>;
}

export async function startObjectStoreProcess(bucket: string): Promise<ObjectStoreProcess> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', thisFile, bucket], { cwd: path.dirname(path.dirname(thisFile)), stdio: ['ignore', 'pipe', 'inherit'] });
  const started = await new Promise<{ endpoint: string; credentials: Record<string, string> }>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk) => {
      output += String(chunk);
      const line = output.split('\n').find((candidate) => candidate.startsWith('{'));
      if (line) resolve(JSON.parse(line));
    });
    child.once('exit', (code) => reject(new Error(`the object store exited (${code}) before it listened: ${output}`)));
  });
  // The server child and the bare client read the store's credentials from the environment.
  Object.assign(process.env, started.credentials);
  const address = (prefix: string) =>
    `s3://${bucket}/${prefix}?endpoint=${encodeURIComponent(started.endpoint)}&region=us-east-1&force_path_style=true`;
  const client = createS3Client(parseObjectStoreAddress(address('bare')));
  return {
    address,
    client,
    bucket,
    async close() {
      client.destroy();
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
    },
  };
}

if (process.argv[1] === thisFile) {
  const store = await startTestObjectStore(process.argv[2]);
  const credentials = { AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID!, AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY! };
  process.stdout.write(`${JSON.stringify({ endpoint: store.endpoint, credentials })}\n`);
  process.once('SIGTERM', () => void store.close().then(() => process.exit(0)));
}

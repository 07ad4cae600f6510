// A real S3-compatible server for tests: s3rver, on 127.0.0.1, keeping its
// objects in a temp folder, started and stopped by the test itself. It can be
// stopped and started again on the same port and folder, as a store that goes
// down and comes back.
import fs from 'node:fs';
import path from 'node:path';
import S3rver from 's3rver';
import { type S3Client, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { makeTempDir } from './test-server.ts';
import { createS3Client } from '../files/object-store-blobs.ts';
import { parseObjectStoreAddress } from '../files/object-store-address.ts';

/** s3rver's fixed credentials. The engine reads them from the environment, as it reads real ones. */
const S3RVER_CREDENTIALS = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' };

export interface TestObjectStore {
  /** The --blob-store address of `prefix` in the test bucket. */
  address(prefix?: string): string;
  readonly endpoint: string;
  /** A bare client of the same store, for looking at what is kept. */
  readonly client: S3Client;
  readonly bucket: string;
  /** Keys under `prefix`. */
  keys(prefix: string): Promise<string[]>;
  /** Makes an object look written `ms` ago (its LastModified, which s3rver reads from its file's mtime). */
  age(key: string, ms: number): void;
  /** What the store has done to objects so far, as its event notifications name it ('ObjectCreated:Copy' and the key), oldest first. */
  readonly events: ReadonlyArray<{ name: string; key: string }>;
  /** Stops answering (connections refused) until start(). */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function startTestObjectStore(bucket = 'solardesk-test'): Promise<TestObjectStore> {
  Object.assign(process.env, S3RVER_CREDENTIALS);
  const directory = makeTempDir('solardesk-s3rver-');
  let port = 0;
  let server: S3rver | null = null;
  const events: Array<{ name: string; key: string }> = [];
  const start = async () => {
    server = new S3rver({ port, address: '127.0.0.1', directory, silent: true, configureBuckets: [{ name: bucket, configs: [] }] });
    // s3rver tells each write and removal as an S3 event notification (a Koa app's event).
    (server as unknown as NodeJS.EventEmitter).on('event', (event: { Records: Array<{ eventName: string; s3: { object: { key: string } } }> }) => {
      for (const record of event.Records) events.push({ name: record.eventName, key: decodeURIComponent(record.s3.object.key) });
    });
    const bound = await server.run();
    port = bound.port;
  };
  await start();
  const endpoint = `http://127.0.0.1:${port}`;
  const address = (prefix = 'files') => `s3://${bucket}/${prefix}?endpoint=${encodeURIComponent(endpoint)}&region=us-east-1&force_path_style=true&request_timeout_ms=5000`;
  const client = createS3Client(parseObjectStoreAddress(address()));
  return {
    address,
    endpoint,
    client,
    bucket,
    events,
    age(key, ms) {
      const store = (server as unknown as { store: { getResourcePath(bucket: string, key: string, resource: string): string } }).store;
      const when = new Date(Date.now() - ms);
      fs.utimesSync(store.getResourcePath(bucket, key, 'object'), when, when);
    },
    async keys(prefix) {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
        for (const entry of page.Contents ?? []) keys.push(entry.Key!);
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return keys.sort();
    },
    async stop() {
      await server?.close();
      server = null;
    },
    start,
    async close() {
      client.destroy();
      await server?.close();
      server = null;
      fs.rmSync(path.resolve(directory), { recursive: true, force: true });
    },
  };
}

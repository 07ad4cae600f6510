// File storage's part in the engine's life: tidy up after any crash before the
// first request (and drop file versions that have aged out of retention), then
// sweep expired uploads until the engine closes.
import type { EngineContext } from '../context.ts';
import { releaseBlob } from './blob-store.ts';
import { pruneAgedVersions } from './file-versions.ts';
import { startUploadSweeper, sweepExpiredUploads } from './uploads.ts';

/** Returns what to call on close. */
export async function startFileStorage(context: EngineContext, onSweepError: (error: unknown) => void): Promise<() => Promise<void>> {
  const { db } = context;
  for (const hash of new Set(await pruneAgedVersions(db, context.clock))) await releaseBlob(context, hash);
  await context.blobs.removeLeftovers();
  await sweepExpiredUploads(context);
  return startUploadSweeper(context, onSweepError);
}

// What the engine derived from each project's design, kept per design version
// (issue 36): the systems list, systems/details, the system image and proposal data
// read a project's digest from here, and a design is decoded once per version, in
// the design worker, never on the thread that serves requests.
//
// The version is the encoded design's length and last 16 characters (its gzip
// trailer: a CRC-32 and size of the JSON), as the systems list's counts use: a new
// design is a new key, and reading the key costs nothing.
import type { EngineContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import type { DesignDigest, DesignOutcome } from './design-digest.ts';
import { decodeInWorker } from './design-decoder.ts';

/** Digests kept per engine, and the memory they may hold together; the least recently used go first. */
const MAX_CACHED_DESIGNS = 5000;
const MAX_CACHED_BYTES = 128 * 1024 * 1024;

interface Entry {
  key: string;
  outcome: Promise<DesignOutcome>;
  sizeBytes: number;
}

export const designVersionKey = (encoded: string): string => `${encoded.length}:${encoded.slice(-16)}`;

export class DesignCache {
  private readonly entries = new Map<number, Entry>();
  private totalBytes = 0;

  /** The project's design outcome for this version of it: kept, or decoded in the worker now (once, however many ask). */
  outcome(projectId: number, encoded: string): Promise<DesignOutcome> {
    const key = designVersionKey(encoded);
    const kept = this.entries.get(projectId);
    if (kept?.key === key) {
      // Most recently used last: a Map iterates in insertion order.
      this.entries.delete(projectId);
      this.entries.set(projectId, kept);
      return kept.outcome;
    }
    if (kept) this.forget(projectId);
    const entry: Entry = { key, outcome: decodeInWorker(encoded), sizeBytes: 0 };
    this.entries.set(projectId, entry);
    entry.outcome.then(
      (outcome) => {
        if (this.entries.get(projectId) !== entry) return;
        entry.sizeBytes = 'digest' in outcome ? outcome.digest.sizeBytes : 0;
        this.totalBytes += entry.sizeBytes;
        this.evict();
      },
      // A worker that died is not an answer about the design: the next request tries again.
      () => {
        if (this.entries.get(projectId) === entry) this.forget(projectId);
      },
    );
    this.evict();
    return entry.outcome;
  }

  private forget(projectId: number): void {
    const entry = this.entries.get(projectId);
    if (!entry) return;
    this.totalBytes -= entry.sizeBytes;
    this.entries.delete(projectId);
  }

  private evict(): void {
    for (const projectId of this.entries.keys()) {
      if (this.entries.size <= MAX_CACHED_DESIGNS && this.totalBytes <= MAX_CACHED_BYTES) return;
      this.forget(projectId);
    }
  }
}

const caches = new WeakMap<EngineContext, DesignCache>();

export function designCache(context: EngineContext): DesignCache {
  let cache = caches.get(context);
  if (!cache) caches.set(context, (cache = new DesignCache()));
  return cache;
}

/** 422 with the decoder's sentence: the design exists but is too large to open here. */
export const designTooLarge = (projectId: number, message: string) => new ApiError(422, { detail: `Project ${projectId}: ${message}` });

/**
 * The digest of a project's design: null when it has none or one that cannot be read
 * (no systems, as before), a 422 when it is too large to open.
 */
export async function projectDigest(context: EngineContext, project: { id: number; design: string | null }): Promise<DesignDigest | null> {
  if (!project.design) return null;
  const outcome = await designCache(context).outcome(project.id, project.design);
  if ('digest' in outcome) return outcome.digest;
  if (outcome.failure.reason === 'too-large') throw designTooLarge(project.id, outcome.failure.message);
  return null;
}

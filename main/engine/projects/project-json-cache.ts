// A project's JSON, built once per version and reused by every detail and list
// answer that shows it (issue 18). An answer is the JSON text the serializer
// would write, byte for byte; the cache only saves building it again.
//
// A row's JSON depends on more than the row: its contacts, roles, events, files,
// the org's name and workflows, the caller's plan and file access, the server's
// public URL. An entry therefore records the store's write count
// (WriteGenerations.records: any write of this process to a table a view is built
// from) when its reads began, and is used only while that count is unchanged, for
// the same view. A JSON that carries signed download links (which expire an hour
// from when they are made, to the second) is reused only within the clock second
// it was made in, so it is the same text a fresh build would give.
//
// Only where one process owns the store (SQLite): on a shared PostgreSQL another
// process may change a record at any time, so there every answer is built afresh.
import { createHash } from 'node:crypto';
import type { ProjectRow } from '../store/tables.ts';
import type { EngineContext } from '../context.ts';
import { loadRelations, serializeProject, type Fieldset, type ProjectView } from './project-serializer.ts';

interface Entry {
  /** What the JSON was built from: the write count, the view and the row's version. */
  stamp: string;
  json: string;
  /** A short hash of `json`, for list ETags. */
  hash: string;
  /** The clock second the JSON's signed links were made in; null when it has none. */
  linkSecond: number | null;
}

/** Entries kept per engine: a few pages of studio rows for several viewers. */
const CACHE_SIZE = 20_000;
const caches = new WeakMap<EngineContext, Map<string, Entry>>();

function cacheOf(context: EngineContext): Map<string, Entry> | null {
  if (context.store.shared) return null;
  let cache = caches.get(context);
  if (!cache) caches.set(context, (cache = new Map()));
  return cache;
}

function viewKey(context: EngineContext, view: ProjectView): string {
  const viewer = view.fileViewer;
  const files = viewer ? `${viewer.userId}:${viewer.isFilesUser ? 1 : 0}:${viewer.canExport ? 1 : 0}` : 'all';
  return `${context.publicUrl}|${view.orgName}|${view.includeDesign ? 1 : 0}|${files}`;
}

/** The write count to note before reading the rows a JSON will be built from. */
export function readGeneration(context: EngineContext): number {
  return context.store.writes.records;
}

export interface ProjectJson {
  id: number;
  json: string;
  hash: string;
}

/**
 * The JSON text of each row in `fieldset`, in order: from the cache where an entry
 * for the same version and view is still valid, otherwise loaded and built (related
 * records for the missing rows only) and kept. `generation` is readGeneration()'s
 * value from before `rows` were read.
 */
export async function projectJsonTexts(
  context: EngineContext,
  orgId: number,
  view: ProjectView,
  rows: readonly ProjectRow[],
  fieldset: Fieldset,
  generation: number,
): Promise<ProjectJson[]> {
  const cache = cacheOf(context);
  const nowSecond = Math.floor(context.clock.now().getTime() / 1000);
  const viewStamp = viewKey(context, view);
  const stampOf = (row: ProjectRow) => `${generation}|${viewStamp}|${row.modified_date}`;
  const answers: Array<ProjectJson | undefined> = rows.map((row) => {
    const entry = cache?.get(`${fieldset}|${row.id}`);
    const valid =
      entry !== undefined &&
      generation === context.store.writes.records &&
      entry.stamp === stampOf(row) &&
      (entry.linkSecond === null || entry.linkSecond === nowSecond);
    return valid ? { id: row.id, json: entry.json, hash: entry.hash } : undefined;
  });
  const missing = rows.filter((_, index) => answers[index] === undefined);
  if (missing.length > 0) {
    const relations = await loadRelations(context.db, context, orgId, missing, fieldset);
    // Still the same count: nothing was written while the relations were read, so the entries may be kept.
    const keep = cache !== null && generation === context.store.writes.records;
    for (const row of missing) {
      const json = JSON.stringify(serializeProject(context, view, row, relations, fieldset));
      const hash = createHash('sha1').update(json).digest('base64url').slice(0, 16);
      const carriesLinks = view.fileViewer !== undefined && (relations.files.get(row.id)?.length ?? 0) > 0;
      answers[rows.indexOf(row)] = { id: row.id, json, hash };
      if (keep) {
        if (cache.size >= CACHE_SIZE) cache.clear();
        cache.set(`${fieldset}|${row.id}`, { stamp: stampOf(row), json, hash, linkSecond: carriesLinks ? nowSecond : null });
      }
    }
  }
  return answers as ProjectJson[];
}

/** A list answer's ETag: its rows' JSON (by hash) and the query that chose them, so any change to either changes it. */
export function listTag(query: string, rows: readonly ProjectJson[]): string {
  const digest = createHash('sha1').update(query);
  for (const row of rows) digest.update(`\n${row.id}:${row.hash}`);
  return `W/"${digest.digest('base64url').slice(0, 27)}"`;
}

/** Whether an If-None-Match header names `tag` (weak comparison, RFC 9110 13.1.2), or is `*`. */
export function ifNoneMatchHits(header: string | string[] | undefined, tag: string): boolean {
  const text = (Array.isArray(header) ? header.join(',') : (header ?? '')).trim();
  if (text === '') return false;
  if (text === '*') return true;
  const opaque = (value: string) => value.trim().replace(/^W\//, '');
  return text.split(',').some((candidate) => opaque(candidate) === opaque(tag));
}

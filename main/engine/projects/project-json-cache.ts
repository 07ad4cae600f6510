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
// On a shared PostgreSQL the count also moves for every other process's committed
// writes, read as the request's caller was resolved (actor.ts, WriteGenerations.refresh),
// so an answer never shows less than what was committed before the request began.
import { createHash } from 'node:crypto';
import type { ProjectRow } from '../store/tables.ts';
import type { EngineContext } from '../context.ts';
import { loadRelations, serializeProject, type Fieldset, type ProjectRelations, type ProjectView } from './project-serializer.ts';

interface Entry {
  /** What the JSON was built from: the write count, the view and the row's version. */
  stamp: string;
  answer: ProjectJson;
  /** The clock second the JSON's signed links were made in; null when it has none. */
  linkSecond: number | null;
}

/** Entries kept per engine: a few pages of studio rows for several viewers. */
const CACHE_SIZE = 20_000;
const caches = new WeakMap<EngineContext, Map<string, Entry>>();

function cacheOf(context: EngineContext): Map<string, Entry> {
  let cache = caches.get(context);
  if (!cache) caches.set(context, (cache = new Map()));
  return cache;
}

function viewKey(context: EngineContext, view: ProjectView): string {
  const viewer = view.fileViewer;
  const files = viewer ? `${viewer.userId}:${viewer.isFilesUser ? 1 : 0}:${viewer.canExport ? 1 : 0}` : 'all';
  // A connected org's view: its id and the roles in force (a role's permissions never change once made).
  const partner = view.partner ? `|partner:${view.partner.orgId}:${JSON.stringify([...view.partner.permissions])}` : '';
  return `${context.publicUrl}|${view.orgName}|${view.includeDesign ? 1 : 0}|${files}${partner}`;
}

/** The write count to note before reading the rows a JSON will be built from. */
export function readGeneration(context: EngineContext): number {
  return context.store.writes.records;
}

/**
 * A project's JSON text. Its short hash is taken only when a list's ETag asks for
 * it: a write's answer and a detail never do, and hashing 18 KB was about 1 % of a
 * PATCH's CPU (issue 30).
 */
export class ProjectJson {
  #hash: string | undefined;
  constructor(
    readonly id: number,
    readonly json: string,
  ) {}

  get hash(): string {
    return (this.#hash ??= createHash('sha1').update(this.json).digest('base64url').slice(0, 16));
  }
}

/** What a cached JSON is checked against: the row's id and version. */
export type ProjectVersion = Pick<ProjectRow, 'id' | 'modified_date'>;

/**
 * The JSON text of each project in `fieldset`, in order: from the cache where an
 * entry for the same version and view is still valid, otherwise built from the
 * rows `loadRows` reads (related records for those rows only) and kept.
 * `generation` is readGeneration()'s value from before `versions` were read.
 */
export async function projectJsonTexts(
  context: EngineContext,
  orgId: number,
  view: ProjectView,
  versions: readonly ProjectVersion[],
  fieldset: Fieldset,
  generation: number,
  loadRows: (ids: number[]) => Promise<readonly ProjectRow[]>,
  /** The rows' related records when the caller has them already (a write's answer). */
  knownRelations?: ProjectRelations,
): Promise<ProjectJson[]> {
  const cache = cacheOf(context);
  const nowSecond = Math.floor(context.clock.now().getTime() / 1000);
  const viewStamp = viewKey(context, view);
  const stampOf = (row: ProjectVersion) => `${generation}|${viewStamp}|${row.modified_date}`;
  const unchanged = generation === context.store.writes.records;
  const answers = new Map<number, ProjectJson>();
  for (const version of versions) {
    const entry = unchanged ? cache?.get(`${fieldset}|${version.id}`) : undefined;
    if (entry && entry.stamp === stampOf(version) && (entry.linkSecond === null || entry.linkSecond === nowSecond)) {
      answers.set(version.id, entry.answer);
    }
  }
  const missing = versions.filter((version) => !answers.has(version.id)).map((version) => version.id);
  if (missing.length > 0) {
    const rows = await loadRows(missing);
    const relations = knownRelations ?? (await loadRelations(context.db, context, orgId, rows, fieldset));
    // Still the same count: nothing was written while the rows were read, so the entries may be kept.
    const keep = cache !== null && generation === context.store.writes.records;
    for (const row of rows) {
      const answer = new ProjectJson(row.id, JSON.stringify(serializeProject(context, view, row, relations, fieldset)));
      const carriesLinks = view.fileViewer !== undefined && (relations.files.get(row.id)?.length ?? 0) > 0;
      answers.set(row.id, answer);
      if (keep) {
        if (cache.size >= CACHE_SIZE) cache.clear();
        cache.set(`${fieldset}|${row.id}`, { stamp: stampOf(row), answer, linkSecond: carriesLinks ? nowSecond : null });
      }
    }
  }
  // A row deleted between the two reads is left out, as a list read a moment later would.
  return versions.flatMap((version) => answers.get(version.id) ?? []);
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

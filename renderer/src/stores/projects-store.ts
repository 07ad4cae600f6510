// The project list: search, stage filter and order are the engine's (search covers
// title, address, identifier and contacts), the rows arrive page by page so the
// first ones show at once, and a newer query silently replaces an older one.
import { z } from 'zod';
import { create } from 'zustand';
import { apiPaths } from '../../../shared/api-paths.ts';
import type { QueryValue } from '../../../shared/bridge.ts';
import { apiOkUnchecked, messageOf } from '../api/api-client.ts';
import { projectDetailJsonSchema, projectStudioJsonSchema, type ProjectDetailJson, type ProjectStudioJson } from '../../../shared/schemas/project.ts';

export const PROJECT_ORDERINGS = [
  { value: '-modified_date', label: 'Recently changed' },
  { value: 'title', label: 'Title A–Z' },
  { value: '-title', label: 'Title Z–A' },
  { value: '-created_date', label: 'Newest first' },
  { value: 'created_date', label: 'Oldest first' },
  { value: 'priority', label: 'Priority' },
  { value: 'identifier', label: 'Identifier' },
  { value: 'address', label: 'Address' },
] as const;

/** '' (every stage), 'stage:<id>' or 'milestone:<n>'. */
export type StageFilter = '' | `stage:${number}` | `milestone:${number}`;

export interface ProjectQuery {
  search: string;
  stageFilter: StageFilter;
  ordering: string;
}

interface ProjectsState {
  orgId: number | null;
  query: ProjectQuery;
  rows: ProjectStudioJson[];
  status: 'loading' | 'ready' | 'error';
  isComplete: boolean;
  error: string | null;
  /** The highlighted row (keyboard or pointer); opening it is a separate step. */
  highlightedId: number | null;
  start(orgId: number): void;
  setSearch(search: string): void;
  setStageFilter(filter: StageFilter): void;
  setOrdering(ordering: string): void;
  reload(): Promise<void>;
  highlight(id: number | null): void;
  /** Keeps the highlighted row if the list still shows it, else highlights the first: ↓ from search lands on a row Enter opens. */
  highlightFirstUnlessShown(): void;
  /** Puts a project's latest JSON into its row (after a save or a change event). */
  replaceRow(project: ProjectDetailJson | ProjectStudioJson): void;
  refreshRows(ids: readonly number[]): Promise<void>;
}

/** Small, so the first rows paint almost at once; the rest follow in big pages. */
const FIRST_PAGE_SIZE = 60;
const PAGE_SIZE = 1000;
const SEARCH_DELAY_MS = 180;

let generation = 0;
let searchTimer: ReturnType<typeof setTimeout> | undefined;

function queryParams(query: ProjectQuery): Record<string, QueryValue> {
  const [kind, value] = query.stageFilter.split(':');
  return {
    fieldset: 'studio',
    ordering: query.ordering,
    search: query.search.trim() || undefined,
    active_stage_id: kind === 'stage' ? Number(value) : undefined,
    stage: kind === 'milestone' ? Number(value) : undefined,
  };
}

export const useProjectsStore = create<ProjectsState>((set, get) => {
  async function load(): Promise<void> {
    const mine = ++generation;
    const { orgId, query } = get();
    if (orgId === null) return;
    set({ status: get().rows.length === 0 ? 'loading' : get().status, error: null });
    const params = queryParams(query);
    const fetchPage = (page: number, limit: number) => apiOkUnchecked(z.array(projectStudioJsonSchema), 'GET', apiPaths.projects(orgId), { query: { ...params, page, limit } });
    try {
      const first = await fetchPage(1, FIRST_PAGE_SIZE);
      if (mine !== generation) return;
      set({ rows: first, status: 'ready', isComplete: first.length < FIRST_PAGE_SIZE });
      if (first.length < FIRST_PAGE_SIZE) return;
      const all: ProjectStudioJson[] = [];
      for (let page = 1; ; page++) {
        const batch = await fetchPage(page, PAGE_SIZE);
        if (mine !== generation) return;
        all.push(...batch);
        set({ rows: all.length >= first.length ? all.slice() : [...all, ...first.slice(all.length)] });
        if (batch.length < PAGE_SIZE) break;
      }
      set({ isComplete: true });
    } catch (error) {
      if (mine === generation) set({ status: 'error', error: messageOf(error) });
    }
  }

  const requery = (patch: Partial<ProjectQuery>, delayMs = 0) => {
    set({ query: { ...get().query, ...patch } });
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => void load(), delayMs);
  };

  return {
    orgId: null,
    query: { search: '', stageFilter: '', ordering: '-modified_date' },
    rows: [],
    status: 'loading',
    isComplete: false,
    error: null,
    highlightedId: null,
    start(orgId) {
      if (get().orgId === orgId && get().rows.length > 0) return;
      set({ orgId, rows: [], highlightedId: null, status: 'loading' });
      void load();
    },
    setSearch: (search) => requery({ search }, SEARCH_DELAY_MS),
    setStageFilter: (stageFilter) => requery({ stageFilter }),
    setOrdering: (ordering) => requery({ ordering }),
    reload: load,
    highlight: (highlightedId) => set({ highlightedId }),
    highlightFirstUnlessShown() {
      const { rows, highlightedId } = get();
      if (rows.length > 0 && !rows.some((row) => row.id === highlightedId)) set({ highlightedId: rows[0]!.id });
    },
    replaceRow(project) {
      const rows = get().rows;
      const index = rows.findIndex((row) => row.id === project.id);
      if (index === -1) return;
      const next = rows.slice();
      // The list keeps summaries: a design (hundreds of kB) has no place in 10,000 rows.
      const { design: _design, ...summary } = project as ProjectDetailJson;
      next[index] = { ...rows[index]!, ...summary };
      set({ rows: next });
    },
    async refreshRows(ids) {
      const orgId = get().orgId;
      if (orgId === null) return;
      for (const id of ids) {
        try {
          get().replaceRow(await apiOkUnchecked(projectDetailJsonSchema, 'GET', apiPaths.project(orgId, id)));
        } catch {
          // A deleted or hidden project: the next full reload drops its row.
        }
      }
    },
  };
});

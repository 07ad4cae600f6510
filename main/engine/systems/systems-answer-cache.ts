// The systems answers (GET .../systems/?fieldset=list pages and
// .../projects/<id>/systems/details/) as JSON text, built once and sent again as
// long as nothing they are built from has changed (issue 36: "the same answer served
// from a cache").
//
// The designs themselves are decoded once per version (designs/design-cache.ts);
// what remains per request is reading the rows and writing the JSON, which for a
// designed project is most of the work. An answer depends on the project rows (their
// fields and designs), the viewer's access, the query and the plan. Like the projects'
// JSON cache (projects/project-json-cache.ts), an entry records the store's write count
// (WriteGenerations.records, which on a shared PostgreSQL also counts other processes'
// commits, refreshed as each request's caller is resolved) from before its reads
// began, and is used only while that count is unchanged and for the same key. The
// caller still checks access for every request before asking: a cached answer never
// stands in for a permission check.
import type { EngineContext } from '../context.ts';
import { readGeneration } from '../projects/project-json-cache.ts';

interface Entry {
  generation: number;
  text: string;
}

/** The memory the kept answers may hold together (UTF-16 length, roughly bytes x 2); the least recently used go first. */
const MAX_CACHED_CHARS = 32 * 1024 * 1024;
/** An answer larger than this is built each time: keeping it would push out every other. */
const MAX_ENTRY_CHARS = 8 * 1024 * 1024;

class AnswerTexts {
  private readonly entries = new Map<string, Entry>();
  private totalChars = 0;

  async remember(key: string, generation: number, build: () => Promise<unknown> | unknown): Promise<string> {
    const kept = this.entries.get(key);
    if (kept && kept.generation === generation) {
      // Most recently used last: a Map iterates in insertion order.
      this.entries.delete(key);
      this.entries.set(key, kept);
      return kept.text;
    }
    if (kept) this.forget(key);
    const text = JSON.stringify(await build());
    // The count may have moved while building: then the answer is right for this request only.
    if (text.length <= MAX_ENTRY_CHARS && readGeneration(this.context) === generation) {
      this.entries.set(key, { generation, text });
      this.totalChars += text.length;
      for (const oldest of this.entries.keys()) {
        if (this.totalChars <= MAX_CACHED_CHARS) break;
        this.forget(oldest);
      }
    }
    return text;
  }

  constructor(private readonly context: EngineContext) {}

  private forget(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.totalChars -= entry.text.length;
    this.entries.delete(key);
  }
}

const caches = new WeakMap<EngineContext, AnswerTexts>();

/**
 * The JSON text of an answer under `key` (everything the answer depends on besides the
 * store's rows: viewer, query, plan), kept while the store's write count stays at
 * what it was before `build`'s reads. Read the count with `readGeneration` before
 * checking access, and pass it here.
 */
export function systemsAnswerText(context: EngineContext, key: string, generation: number, build: () => Promise<unknown> | unknown): Promise<string> {
  let cache = caches.get(context);
  if (!cache) caches.set(context, (cache = new AnswerTexts(context)));
  return cache.remember(key, generation, build);
}

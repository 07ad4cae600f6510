// A project's unsaved edits, kept in localStorage by org and project so they
// outlive leaving the project, another screen, a reload and a closed window.
// Written as the user types (project-store.ts); read when the project opens again.

export interface DraftEntry {
  /** What the input held: text, a flag, or a small form object. */
  raw: unknown;
  /** How the draft reads in the banner. */
  label: string;
  /** The PATCH body it amounts to when valid, null for an invalid value or an unsent form. */
  body: Record<string, unknown> | null;
  error: string | null;
}

export interface StoredDraft {
  /** When it was last typed in (ISO). */
  savedAt: string;
  entries: Record<string, DraftEntry>;
}

const PREFIX = 'solardesk.project-draft.';

function keyOf(orgId: number, projectId: number): string {
  return `${PREFIX}${orgId}.${projectId}`;
}

function storage(): Storage | null {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null;
  }
}

/** Stores the project's drafts (or forgets them when there are none). */
export function writeProjectDraft(orgId: number, projectId: number, entries: Record<string, DraftEntry>, now = new Date()): void {
  const store = storage();
  if (!store) return;
  try {
    if (Object.keys(entries).length === 0) store.removeItem(keyOf(orgId, projectId));
    else store.setItem(keyOf(orgId, projectId), JSON.stringify({ savedAt: now.toISOString(), entries } satisfies StoredDraft));
  } catch {
    // A full or unavailable storage: the drafts stay in memory for this session.
  }
}

export function readProjectDraft(orgId: number, projectId: number): StoredDraft | null {
  const text = storage()?.getItem(keyOf(orgId, projectId));
  if (!text) return null;
  try {
    const parsed = JSON.parse(text) as StoredDraft;
    return typeof parsed.savedAt === 'string' && typeof parsed.entries === 'object' && parsed.entries !== null ? parsed : null;
  } catch {
    return null;
  }
}

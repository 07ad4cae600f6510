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

/**
 * By workspace too: "On this computer" and a signed-in org can both be org 1 with a
 * project 4, and a draft must never come back on another workspace's project.
 */
function keyOf(workspace: string, orgId: number, projectId: number): string {
  return `${PREFIX}${encodeURIComponent(workspace)}.${orgId}.${projectId}`;
}

/** The part of the window's localStorage drafts use (also what a Node test stands in for it). */
interface DraftStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

function storage(): DraftStorage | null {
  try {
    return (globalThis as { localStorage?: DraftStorage }).localStorage ?? null;
  } catch {
    return null;
  }
}

/** Stores the project's drafts (or forgets them when there are none). */
export function writeProjectDraft(workspace: string, orgId: number, projectId: number, entries: Record<string, DraftEntry>, now = new Date()): void {
  const store = storage();
  if (!store) return;
  try {
    if (Object.keys(entries).length === 0) store.removeItem(keyOf(workspace, orgId, projectId));
    else store.setItem(keyOf(workspace, orgId, projectId), JSON.stringify({ savedAt: now.toISOString(), entries } satisfies StoredDraft));
  } catch {
    // A full or unavailable storage: the drafts stay in memory for this session.
  }
}

export function readProjectDraft(workspace: string, orgId: number, projectId: number): StoredDraft | null {
  const text = storage()?.getItem(keyOf(workspace, orgId, projectId));
  if (!text) return null;
  try {
    const parsed = JSON.parse(text) as StoredDraft;
    return typeof parsed.savedAt === 'string' && typeof parsed.entries === 'object' && parsed.entries !== null ? parsed : null;
  } catch {
    return null;
  }
}

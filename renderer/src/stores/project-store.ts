// The open project: its JSON, what the user is typing, and autosave. Valid edits
// are gathered for a moment and saved in one PATCH to the local engine, which
// answers at once; sync takes them to the remote in the background.
//
// No edit is dropped silently. Every input's text is a draft in this store, kept
// per project in localStorage as it is typed (project-drafts.ts). Leaving a project
// (another project, another screen, closing the window) saves what is valid; what
// is not (an invalid value, a form not yet submitted) stays as that project's
// draft, and opening the project again brings it back with a banner: "Unsaved
// changes from <time> — Save / Discard".
import { create } from 'zustand';
import { apiPaths } from '../../../shared/api-paths.ts';
import { WRITABLE_PLAIN_FIELDS, type WritablePlainField } from '../../../shared/project-fields.ts';
import { ApiFailure, apiOkUnchecked, messageOf } from '../api/api-client.ts';
import { labelOf } from '../format.ts';
import { projectDetailJsonSchema, type ProjectDetailJson } from '../../../shared/schemas/project.ts';
import { checkPlainField, inputTextOf, sameInput, type RawInput } from '../project/field-validation.ts';
import { type DraftEntry, readProjectDraft, writeProjectDraft } from '../project/project-drafts.ts';
import { useProjectsStore } from './projects-store.ts';
import { currentWorkspaceKey } from './session-store.ts';
import { useUiStore } from './ui-store.ts';

type SaveState = 'idle' | 'saving' | 'saved' | 'error';

/** What a draft amounts to: a body to save, a message to show, or a form kept until it is submitted. */
export type DraftCheck = { ok: true; body: Record<string, unknown> } | { ok: false; message: string } | { ok: 'form' };

interface ProjectState {
  orgId: number | null;
  projectId: number | null;
  project: ProjectDetailJson | null;
  status: 'idle' | 'loading' | 'ready' | 'error';
  error: string | null;
  /** What each edited input holds right now, by key: a plain field's name, or `usage`, `country_iso2`, `note`, `contact:<id|new>`. */
  drafts: Partial<Record<string, unknown>>;
  /** How each draft reads in the banner ("Priority", "Energy usage"). */
  draftLabels: Partial<Record<string, string>>;
  fieldErrors: Partial<Record<string, string>>;
  /** Valid values not yet saved, as body fragments by key. */
  pending: Record<string, Record<string, unknown>>;
  /** Valid values of a restored draft: saved when the user says so (the banner's Save). */
  held: Record<string, Record<string, unknown>>;
  /** When the restored draft was last typed in (ISO), while the banner shows. */
  restoredAt: string | null;
  saveState: SaveState;
  saveError: string | null;
  open(orgId: number, projectId: number): Promise<void>;
  close(): Promise<void>;
  reload(): Promise<void>;
  edit(field: WritablePlainField, raw: RawInput): void;
  /** Any other draft: a valid one saves like a field, an invalid one shows its message, a form is only kept. */
  editDraft(key: string, raw: unknown, check: DraftCheck, label: string): void;
  /** Drops a draft (a form submitted or cancelled). */
  clearDraft(key: string): void;
  /** Saves what is pending now, without waiting. */
  flush(): Promise<void>;
  /** Writes fields at once (pickers, contacts): pending edits go with them. */
  save(body: Record<string, unknown>): Promise<boolean>;
  /** The banner's Save: the restored valid values are saved; invalid ones stay marked. */
  saveRestored(): Promise<void>;
  /** The banner's Discard: every draft of the project goes, the stored values show. */
  discardDrafts(): void;
}

const AUTOSAVE_DELAY_MS = 600;
let autosaveTimer: ReturnType<typeof setTimeout> | undefined;

const EMPTY_EDITS = { drafts: {}, draftLabels: {}, fieldErrors: {}, pending: {}, held: {}, restoredAt: null } as const;

function isPlainField(key: string): key is WritablePlainField {
  return Object.hasOwn(WRITABLE_PLAIN_FIELDS, key);
}

export const useProjectStore = create<ProjectState>((set, get) => {
  /** Mirrors the open project's drafts into localStorage, so closing the window loses nothing. */
  const persist = () => {
    const { orgId, projectId, drafts, draftLabels, fieldErrors, pending, held } = get();
    if (orgId === null || projectId === null) return;
    const entries: Record<string, DraftEntry> = {};
    for (const [key, raw] of Object.entries(drafts)) {
      entries[key] = { raw, label: draftLabels[key] ?? key, body: pending[key] ?? held[key] ?? null, error: fieldErrors[key] ?? null };
    }
    writeProjectDraft(currentWorkspaceKey(), orgId, projectId, entries);
  };

  const scheduleAutosave = () => {
    clearTimeout(autosaveTimer);
    if (Object.keys(get().pending).length > 0) autosaveTimer = setTimeout(() => void get().flush(), AUTOSAVE_DELAY_MS);
  };

  const applySaved = (project: ProjectDetailJson, sentDrafts: Partial<Record<string, unknown>>) => {
    // An input typed into again while the save was in flight keeps its newer text.
    const drafts = { ...get().drafts };
    const draftLabels = { ...get().draftLabels };
    for (const [key, raw] of Object.entries(sentDrafts)) {
      if (drafts[key] === raw) {
        delete drafts[key];
        delete draftLabels[key];
      }
    }
    set({ project, drafts, draftLabels, saveState: 'saved', saveError: null, restoredAt: Object.keys(drafts).length > 0 ? get().restoredAt : null });
    persist();
    useProjectsStore.getState().replaceRow(project);
  };

  /**
   * One save in flight at a time, in the order they were made. A field such as usage is
   * sent whole: two saves of it in flight at once could be applied in either order, and
   * the older one arriving last put back a value the user had typed over (at load, a
   * month's kWh reverted after the next box was typed).
   */
  let saveQueue: Promise<unknown> = Promise.resolve();
  function patch(fragments: Record<string, Record<string, unknown>>, extra: Record<string, unknown> = {}): Promise<boolean> {
    // What each input held when its value was taken: its draft ends at the answer only if not typed into since.
    const sentDrafts = Object.fromEntries(Object.keys(fragments).map((key) => [key, get().drafts[key]]));
    const queued = saveQueue.then(() => patchNow(fragments, extra, sentDrafts));
    saveQueue = queued.catch(() => undefined);
    return queued;
  }

  async function patchNow(fragments: Record<string, Record<string, unknown>>, extra: Record<string, unknown>, sentDrafts: Partial<Record<string, unknown>>): Promise<boolean> {
    const { orgId, projectId, project: current } = get();
    if (orgId === null || projectId === null) return false;
    // A partner's project (shared with this org) is read-only here; the views disable its inputs too.
    if (current && current.org_id !== orgId) {
      set({ saveState: 'error', saveError: `This project belongs to ${current.org_name}: it is read-only here.` });
      return false;
    }
    const body = Object.assign({}, ...Object.values(fragments), extra) as Record<string, unknown>;
    set({ saveState: 'saving' });
    try {
      const project = await apiOkUnchecked(projectDetailJsonSchema, 'PATCH', apiPaths.project(orgId, projectId), { body });
      if (get().projectId !== projectId) return true;
      applySaved(project, sentDrafts);
      return true;
    } catch (error) {
      if (get().projectId !== projectId) return false;
      const fieldErrors = { ...get().fieldErrors };
      if (error instanceof ApiFailure) for (const [field, messages] of Object.entries(error.fieldErrors)) fieldErrors[field] = messages[0];
      set({ saveState: 'error', saveError: messageOf(error), fieldErrors });
      persist();
      return false;
    }
  }

  /** Saves what is valid, then tells the user what stays as a draft of the project being left. */
  async function leave(): Promise<void> {
    const { project } = get();
    await get().flush();
    const left = Object.keys(get().drafts).length;
    if (project && left > 0) {
      const name = project.title || project.address || `Project ${project.id}`;
      useUiStore.getState().toast(`Unsaved changes to “${name}” are kept as a draft: they come back when you open it again.`);
    }
  }

  /** Brings back the project's stored draft, minus what the project already holds. */
  const restore = (project: ProjectDetailJson) => {
    const stored = readProjectDraft(currentWorkspaceKey(), project.org_id, project.id);
    if (!stored) return;
    const drafts: Record<string, unknown> = {};
    const draftLabels: Record<string, string> = {};
    const fieldErrors: Record<string, string> = {};
    const held: Record<string, Record<string, unknown>> = {};
    for (const [key, entry] of Object.entries(stored.entries)) {
      if (isPlainField(key)) {
        const raw = entry.raw as RawInput;
        if (sameInput(raw, inputTextOf(WRITABLE_PLAIN_FIELDS[key].kind, project[key]))) continue;
        const check = checkPlainField(key, raw);
        if (check.ok) held[key] = { [key]: check.value };
        else fieldErrors[key] = check.message;
      } else if (entry.error) fieldErrors[key] = entry.error;
      else if (entry.body) held[key] = entry.body;
      drafts[key] = entry.raw;
      draftLabels[key] = entry.label;
    }
    if (Object.keys(drafts).length === 0) {
      writeProjectDraft(currentWorkspaceKey(), project.org_id, project.id, {});
      return;
    }
    set({ drafts, draftLabels, fieldErrors, held, pending: {}, restoredAt: stored.savedAt });
  };

  return {
    orgId: null,
    projectId: null,
    project: null,
    status: 'idle',
    error: null,
    ...EMPTY_EDITS,
    saveState: 'idle',
    saveError: null,

    async open(orgId, projectId) {
      if (get().projectId !== projectId) await leave();
      set({ orgId, projectId, project: null, status: 'loading', error: null, ...EMPTY_EDITS, saveState: 'idle', saveError: null });
      await get().reload();
      const project = get().project;
      if (project && get().projectId === projectId) restore(project);
    },

    async close() {
      await leave();
      set({ projectId: null, project: null, status: 'idle', ...EMPTY_EDITS });
    },

    async reload() {
      const { orgId, projectId } = get();
      if (orgId === null || projectId === null) return;
      try {
        const project = await apiOkUnchecked(projectDetailJsonSchema, 'GET', apiPaths.project(orgId, projectId));
        if (get().projectId === projectId) set({ project, status: 'ready' });
      } catch (error) {
        if (get().projectId === projectId) set({ status: 'error', error: messageOf(error) });
      }
    },

    edit(field, raw) {
      const check = checkPlainField(field, raw);
      get().editDraft(field, raw, check.ok ? { ok: true, body: { [field]: check.value } } : check, labelOf(field));
    },

    editDraft(key, raw, check, label) {
      const drafts = { ...get().drafts, [key]: raw };
      const draftLabels = { ...get().draftLabels, [key]: label || get().draftLabels[key] || key };
      const fieldErrors = { ...get().fieldErrors };
      const pending = { ...get().pending };
      const held = { ...get().held };
      delete held[key];
      delete fieldErrors[key];
      delete pending[key];
      if (check.ok === true) pending[key] = check.body;
      else if (check.ok === false) fieldErrors[key] = check.message;
      set({ drafts, draftLabels, fieldErrors, pending, held });
      persist();
      scheduleAutosave();
    },

    clearDraft(key) {
      const drop = <T extends object>(record: T): T => {
        const copy = { ...record } as Record<string, unknown>;
        delete copy[key];
        return copy as T;
      };
      const { drafts, draftLabels, fieldErrors, pending, held } = get();
      const remaining = drop(drafts);
      set({
        drafts: remaining,
        draftLabels: drop(draftLabels),
        fieldErrors: drop(fieldErrors),
        pending: drop(pending),
        held: drop(held),
        restoredAt: Object.keys(remaining).length > 0 ? get().restoredAt : null,
      });
      persist();
    },

    async flush() {
      clearTimeout(autosaveTimer);
      const pending = get().pending;
      if (Object.keys(pending).length === 0) return;
      set({ pending: {} });
      await patch(pending);
    },

    async save(body) {
      clearTimeout(autosaveTimer);
      const pending = get().pending;
      set({ pending: {} });
      return patch(pending, body);
    },

    async saveRestored() {
      const held = get().held;
      set({ held: {}, pending: { ...held, ...get().pending } });
      await get().flush();
    },

    discardDrafts() {
      clearTimeout(autosaveTimer);
      set({ ...EMPTY_EDITS, saveState: 'idle', saveError: null });
      persist();
    },
  };
});

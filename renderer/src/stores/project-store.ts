// The open project: its JSON, what the user is typing, and autosave. Valid edits
// are gathered for a moment and saved in one PATCH to the local engine, which
// answers at once; sync takes them to the remote in the background.
import { create } from 'zustand';
import { apiPaths } from '../../../shared/api-paths.ts';
import type { WritablePlainField } from '../../../shared/project-fields.ts';
import { ApiFailure, apiOkUnchecked, messageOf } from '../api/api-client.ts';
import { projectDetailJsonSchema, type ProjectDetailJson } from '../../../shared/schemas/project.ts';
import { checkPlainField, type RawInput } from '../project/field-validation.ts';
import { useProjectsStore } from './projects-store.ts';

type SaveState = 'idle' | 'saving' | 'saved' | 'error';

interface ProjectState {
  orgId: number | null;
  projectId: number | null;
  project: ProjectDetailJson | null;
  status: 'idle' | 'loading' | 'ready' | 'error';
  error: string | null;
  /** What each edited input holds right now. */
  drafts: Partial<Record<string, RawInput>>;
  fieldErrors: Partial<Record<string, string>>;
  /** Valid values not yet saved. */
  pending: Record<string, unknown>;
  saveState: SaveState;
  saveError: string | null;
  open(orgId: number, projectId: number): Promise<void>;
  close(): void;
  reload(): Promise<void>;
  edit(field: WritablePlainField, raw: RawInput): void;
  /** Saves what is pending now, without waiting. */
  flush(): Promise<void>;
  /** Writes fields at once (pickers, usage, contacts): pending edits go with them. */
  save(body: Record<string, unknown>): Promise<boolean>;
}

const AUTOSAVE_DELAY_MS = 600;
let autosaveTimer: ReturnType<typeof setTimeout> | undefined;

export const useProjectStore = create<ProjectState>((set, get) => {
  const applySaved = (project: ProjectDetailJson, sentDrafts: Partial<Record<string, RawInput>>) => {
    // An input typed into again while the save was in flight keeps its newer text.
    const drafts = { ...get().drafts };
    for (const [field, raw] of Object.entries(sentDrafts)) if (drafts[field] === raw) delete drafts[field];
    set({ project, drafts, saveState: 'saved', saveError: null });
    useProjectsStore.getState().replaceRow(project);
  };

  async function patch(body: Record<string, unknown>): Promise<boolean> {
    const { orgId, projectId } = get();
    if (orgId === null || projectId === null) return false;
    const sentDrafts = Object.fromEntries(Object.keys(body).map((field) => [field, get().drafts[field]]));
    set({ saveState: 'saving' });
    try {
      const project = await apiOkUnchecked(projectDetailJsonSchema, 'PATCH', apiPaths.project(orgId, projectId), { body });
      if (get().projectId !== projectId) return true;
      applySaved(project, sentDrafts);
      return true;
    } catch (error) {
      const fieldErrors = { ...get().fieldErrors };
      if (error instanceof ApiFailure) for (const [field, messages] of Object.entries(error.fieldErrors)) fieldErrors[field] = messages[0];
      set({ saveState: 'error', saveError: messageOf(error), fieldErrors });
      return false;
    }
  }

  return {
    orgId: null,
    projectId: null,
    project: null,
    status: 'idle',
    error: null,
    drafts: {},
    fieldErrors: {},
    pending: {},
    saveState: 'idle',
    saveError: null,

    async open(orgId, projectId) {
      if (get().projectId !== projectId) await get().flush();
      set({ orgId, projectId, project: null, status: 'loading', error: null, drafts: {}, fieldErrors: {}, pending: {}, saveState: 'idle', saveError: null });
      await get().reload();
    },

    close() {
      void get().flush();
      set({ projectId: null, project: null, status: 'idle' });
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
      const drafts = { ...get().drafts, [field]: raw };
      const fieldErrors = { ...get().fieldErrors };
      const pending = { ...get().pending };
      if (check.ok) {
        delete fieldErrors[field];
        pending[field] = check.value;
      } else {
        fieldErrors[field] = check.message;
        delete pending[field];
      }
      set({ drafts, fieldErrors, pending });
      clearTimeout(autosaveTimer);
      if (Object.keys(pending).length > 0) autosaveTimer = setTimeout(() => void get().flush(), AUTOSAVE_DELAY_MS);
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
      return patch({ ...pending, ...body });
    },
  };
});

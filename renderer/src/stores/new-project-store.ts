// The "New project" form: whether it shows (in the detail pane, in place of the
// open project) and the create itself. The create goes to the local engine like
// every other write, so it works offline and in either workspace; sync takes it to
// the remote from the outbox, and the folder watcher makes its folder.
import { create } from 'zustand';
import { apiPaths } from '../../../shared/api-paths.ts';
import type { ProjectDetailJson } from '../../../shared/schemas/project.ts';
import { apiRequest, messageOf } from '../api/api-client.ts';
import { boxErrorsOfResponse, type BoxErrors, createBodyOf, emptyNewProjectDraft, errorsBeforeSend, NEW_PROJECT_BOXES, type NewProjectDraft } from '../project/new-project.ts';
import { useProjectStore } from './project-store.ts';
import { useProjectsStore } from './projects-store.ts';
import { currentWorkspaceKey } from './session-store.ts';

interface NewProjectState {
  isOpen: boolean;
  /**
   * What is typed. It outlives the form being hidden (a project opened from the
   * list meanwhile): "New project" brings it back. Cancel and a create clear it.
   */
  draft: NewProjectDraft;
  /** The workspace and org the draft was typed for: another one starts from an empty form. */
  draftScope: string | null;
  isSaving: boolean;
  /** Messages by box (new-project.ts, BoxErrors). */
  errors: BoxErrors;
  open(orgId: number): void;
  /** Hides the form, keeping what is typed. */
  hide(): void;
  /** Hides the form and forgets what was typed. */
  cancel(): void;
  edit(patch: Partial<NewProjectDraft>, box?: string): void;
  /** Checks, sends, and on success opens the new project; false when something must be mended first. */
  submit(orgId: number): Promise<boolean>;
  /** Clears a box's message once the user changes it. */
  clearError(box: string): void;
}

export const useNewProjectStore = create<NewProjectState>((set, get) => ({
  isOpen: false,
  isSaving: false,
  errors: {},
  draft: emptyNewProjectDraft(),
  draftScope: null,
  open(orgId) {
    const scope = `${currentWorkspaceKey()} ${orgId}`;
    if (get().draftScope !== scope) set({ draft: emptyNewProjectDraft(), draftScope: scope, errors: {} });
    set({ isOpen: true });
  },
  hide: () => set({ isOpen: false }),
  cancel: () => set({ isOpen: false, errors: {}, draft: emptyNewProjectDraft() }),
  edit(patch, box) {
    set({ draft: { ...get().draft, ...patch } });
    if (box) get().clearError(box);
  },
  clearError(box) {
    if (!(box in get().errors)) return;
    const { [box]: _cleared, ...rest } = get().errors;
    set({ errors: rest });
  },
  async submit(orgId) {
    const draft = get().draft;
    if (get().isSaving) return false;
    const before = errorsBeforeSend(draft);
    if (Object.keys(before).length > 0) {
      set({ errors: before });
      return false;
    }
    set({ isSaving: true, errors: {} });
    try {
      const response = await apiRequest<ProjectDetailJson>('POST', apiPaths.projects(orgId), { body: createBodyOf(draft) });
      if (response.status >= 300) {
        const errors = boxErrorsOfResponse(response.body, NEW_PROJECT_BOXES);
        if (Object.keys(errors).length === 0) errors.form = [`The project was not created (HTTP ${response.status}). Try again; if it keeps failing, restart SolarDesk.`];
        set({ isSaving: false, errors });
        return false;
      }
      const project = response.body;
      set({ isOpen: false, isSaving: false, errors: {}, draft: emptyNewProjectDraft() });
      const projects = useProjectsStore.getState();
      projects.highlight(project.id);
      await useProjectStore.getState().open(orgId, project.id);
      void projects.reload();
      return true;
    } catch (error) {
      set({ isSaving: false, errors: { form: [`The project was not created: ${messageOf(error)}. Your entries are still here: try again.`] } });
      return false;
    }
  },
}));

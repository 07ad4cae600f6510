// Which view is showing, the open project's tab, and short messages for the user.
import { create } from 'zustand';

export type MainView = 'projects' | 'contacts' | 'schedule' | 'webhooks' | 'sync' | 'activity' | 'settings';
export type ProjectTab = 'details' | 'contacts' | 'notes' | 'files' | 'design' | 'activity';

export interface Toast {
  id: number;
  kind: 'info' | 'error';
  text: string;
}

interface UiState {
  view: MainView;
  projectTab: ProjectTab;
  toasts: Toast[];
  isConnected: boolean;
  /** The conflict the Sync screen brings into sight (an activity entry's Resolve the conflict). */
  focusedConflictId: number | null;
  /** The activity entry a notification was clicked for: the Activity screen brings it into sight. */
  focusedActivityId: number | null;
  show(view: MainView): void;
  showConflict(conflictId: number): void;
  showActivityEntry(entryId: number): void;
  showTab(tab: ProjectTab): void;
  toast(text: string, kind?: Toast['kind']): void;
  dismiss(id: number): void;
  setConnected(isConnected: boolean): void;
}

let nextToastId = 1;
const TOAST_MS = 6000;

export const useUiStore = create<UiState>((set, get) => ({
  view: 'projects',
  projectTab: 'details',
  toasts: [],
  isConnected: true,
  focusedConflictId: null,
  focusedActivityId: null,
  show: (view) => set({ view }),
  showConflict: (focusedConflictId) => set({ view: 'sync', focusedConflictId }),
  showActivityEntry: (focusedActivityId) => set({ view: 'activity', focusedActivityId }),
  showTab: (projectTab) => set({ projectTab }),
  toast(text, kind = 'info') {
    const id = nextToastId++;
    set({ toasts: [...get().toasts.slice(-3), { id, kind, text }] });
    setTimeout(() => get().dismiss(id), TOAST_MS);
  },
  dismiss: (id) => set({ toasts: get().toasts.filter((toast) => toast.id !== id) }),
  setConnected: (isConnected) => set({ isConnected }),
}));

// Which view is showing, the open project's tab, and short messages for the user.
import { create } from 'zustand';

export type MainView = 'projects' | 'contacts' | 'schedule' | 'webhooks' | 'sync' | 'settings';
export type ProjectTab = 'details' | 'contacts' | 'notes' | 'files' | 'design';

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
  show(view: MainView): void;
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
  show: (view) => set({ view }),
  showTab: (projectTab) => set({ projectTab }),
  toast(text, kind = 'info') {
    const id = nextToastId++;
    set({ toasts: [...get().toasts.slice(-3), { id, kind, text }] });
    setTimeout(() => get().dismiss(id), TOAST_MS);
  },
  dismiss: (id) => set({ toasts: get().toasts.filter((toast) => toast.id !== id) }),
  setConnected: (isConnected) => set({ isConnected }),
}));

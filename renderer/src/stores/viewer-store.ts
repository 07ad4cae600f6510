// The file viewer's one open file, and the files next/previous step through. The
// Files list opens it (Enter, Space, double-click on a row: openViewer) and the
// viewer (components/files/, issue 17 "Previews") renders from it and closes it.
import { create } from 'zustand';

export interface OpenViewer {
  fileId: number;
  /** The files visible in the list when it opened, in their order: what next/previous walk. */
  ids: number[];
}

interface ViewerState {
  open: OpenViewer | null;
  show(fileId: number, ids: readonly number[]): void;
  close(): void;
}

export const useViewerStore = create<ViewerState>((set) => ({
  open: null,
  show: (fileId, ids) => set({ open: { fileId, ids: [...ids] } }),
  close: () => set({ open: null }),
}));

/** Opens the viewer on one file of the list; `ids` is the list as the user sees it (filtered and sorted). */
export function openViewer(fileId: number, ids: readonly number[]): void {
  useViewerStore.getState().show(fileId, ids);
}

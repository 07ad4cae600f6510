// Which file the viewer shows (docs/files.md "Thumbnails and viewers"), and the
// files next/previous walk through: the ids of the list as it is shown (its sort
// and filter), so the viewer follows what the user sees.
import { create } from 'zustand';

export interface OpenViewer {
  fileId: number;
  /** The visible list's file ids, in its order. */
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

/** The id `step` places away from the open one in its list (wrapping), or null when the list has only it. */
export function neighbourOf(open: OpenViewer, step: 1 | -1): number | null {
  const index = open.ids.indexOf(open.fileId);
  if (open.ids.length < 2 || index === -1) return null;
  return open.ids[(index + step + open.ids.length) % open.ids.length]!;
}

/** Opens the viewer on one file of the list; `ids` is the list as the user sees it (filtered and sorted). */
export function openViewer(fileId: number, ids: readonly number[]): void {
  useViewerStore.getState().show(fileId, ids);
}

// Where the window opens: where it was last time, unless that place is no longer
// on any screen (a monitor was unplugged), in which case the default size, centred.
import type { WindowBounds } from './window-policy.ts';

export interface SavedWindowState {
  bounds: WindowBounds;
  isMaximized: boolean;
}

export interface DisplayArea {
  x: number;
  y: number;
  width: number;
  height: number;
}

export const DEFAULT_BOUNDS: WindowBounds = { width: 1280, height: 820 };
/** How much of the title bar must be on a screen for the saved place to count as visible. */
const MIN_VISIBLE = 80;

export function restoreWindowState(saved: unknown, displays: readonly DisplayArea[]): SavedWindowState {
  const state = saved as Partial<SavedWindowState> | undefined;
  const bounds = state?.bounds;
  const isUsable =
    bounds &&
    [bounds.x, bounds.y, bounds.width, bounds.height].every((value) => typeof value === 'number' && Number.isFinite(value)) &&
    bounds.width >= 400 &&
    bounds.height >= 300 &&
    displays.some(
      (display) =>
        bounds.x! + bounds.width - MIN_VISIBLE >= display.x &&
        bounds.x! + MIN_VISIBLE <= display.x + display.width &&
        bounds.y! >= display.y &&
        bounds.y! + MIN_VISIBLE <= display.y + display.height,
    );
  return { bounds: isUsable ? bounds : DEFAULT_BOUNDS, isMaximized: state?.isMaximized === true };
}

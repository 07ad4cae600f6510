// The tray icon and tooltip for each sync face, and the native notifications a
// change of sync state deserves. Pure: electron-main.ts turns the results into a
// nativeImage and Notifications.
import type { SyncState } from '../../shared/bridge.ts';
import { type TrayFace, trayFaceOf } from '../../shared/sync-api.ts';

const FACE_COLOURS: Record<TrayFace, [red: number, green: number, blue: number]> = {
  synced: [46, 157, 91],
  syncing: [47, 111, 208],
  offline: [130, 138, 150],
  needs_attention: [214, 137, 16],
};

const FACE_LABELS: Record<TrayFace, string> = {
  synced: 'Synced',
  syncing: 'Syncing…',
  offline: 'Offline',
  needs_attention: 'Needs attention',
};

/**
 * A size×size BGRA bitmap (what nativeImage.createFromBitmap takes): a filled
 * circle in the face's colour with a soft edge. Drawn here rather than shipped as
 * files, so the four faces can never drift from the names above.
 */
export function trayBitmap(face: TrayFace, size = 32): Buffer {
  const [red, green, blue] = FACE_COLOURS[face];
  const bitmap = Buffer.alloc(size * size * 4);
  const centre = (size - 1) / 2;
  const radius = size * 0.4;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const distance = Math.hypot(x - centre, y - centre);
      const alpha = Math.max(0, Math.min(1, radius - distance + 0.5));
      const offset = (y * size + x) * 4;
      bitmap[offset] = blue;
      bitmap[offset + 1] = green;
      bitmap[offset + 2] = red;
      bitmap[offset + 3] = Math.round(alpha * 255);
    }
  }
  return bitmap;
}

export function trayTooltip(state: SyncState): string {
  const face = trayFaceOf(state.state);
  const waiting = state.pending > 0 ? `, ${state.pending} waiting` : '';
  return state.state === 'local_only' ? 'SolarDesk — local only' : `SolarDesk — ${FACE_LABELS[face]}${waiting}`;
}

export interface DesktopNotice {
  title: string;
  body: string;
}

/**
 * Notices for what needs the user and was not there before: a lapsed sign-in. New
 * conflicts and held deletes are the activity log's notices (shared/activity.ts
 * noticeFor, each behind its Settings switch), shown by activity-notices.ts.
 */
export function noticesFor(previous: SyncState | null, next: SyncState): DesktopNotice[] {
  const notices: DesktopNotice[] = [];
  const before = previous ?? { state: 'local_only' };
  if (next.state === 'needs_sign_in' && before.state !== 'needs_sign_in') {
    notices.push({ title: 'SolarDesk: sign in again', body: 'The remote no longer accepts this computer’s sign-in. Changes wait here until you sign in.' });
  }
  return notices;
}

// The desktop's notifications of the activity log (issue 32): the core decides what is
// worth one (shared/activity.ts noticeFor, behind each Settings switch) and hands it
// here; this only shows it with Electron's Notification. Clicking it brings the window
// forward at the entry (the renderer hears `activity.open`). Thin on purpose: Electron
// cannot run in the tests, and the decision is tested in plain Node.
import { Notification } from 'electron';
import type { ActivityNotice } from '../../shared/activity.ts';

export function showActivityNotice(notice: ActivityNotice, openAt: (entryId: number) => void): void {
  if (!Notification.isSupported()) return;
  const notification = new Notification({ title: `SolarDesk: ${notice.title}`, body: notice.body });
  notification.on('click', () => openAt(notice.entryId));
  notification.show();
}

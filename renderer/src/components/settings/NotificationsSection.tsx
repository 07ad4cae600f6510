import { useState } from 'react';
import { NOTIFICATION_KINDS, NOTIFICATION_SWITCH_WORDS, type NotificationSwitches } from '../../../../shared/activity.ts';
import { messageOf } from '../../api/api-client.ts';
import { isDesktop } from '../../bridge-client.ts';
import { useSessionStore } from '../../stores/session-store.ts';
import { useUiStore } from '../../stores/ui-store.ts';

/** Whether this browser lets the page show notifications, in words (browser mode only). */
const browserPermissionNote = (permission: NotificationPermission | 'unsupported'): string | null =>
  permission === 'unsupported'
    ? 'This browser cannot show notifications.'
    : permission === 'denied'
      ? 'This browser blocks notifications from SolarDesk: allow them in the site settings to get them.'
      : permission === 'default'
        ? 'This browser has not been asked yet.'
        : null;

/**
 * Notifications outside the window (issue 32), each behind its own switch with one
 * line of why. The desktop shows them with the system's notifications; browser mode
 * with the browser's, once the page is allowed to.
 */
export function NotificationsSection({ switches }: { switches: NotificationSwitches }) {
  const update = useSessionStore((state) => state.updateSettings);
  const toast = useUiStore((state) => state.toast);
  const [permission, setPermission] = useState<NotificationPermission | 'unsupported'>(() => (typeof Notification === 'undefined' ? 'unsupported' : Notification.permission));
  const note = isDesktop ? null : browserPermissionNote(permission);
  return (
    <section className="card" data-testid="notifications-settings">
      <h2>Notifications</h2>
      {NOTIFICATION_KINDS.map((kind) => (
        <div key={kind}>
          <label className="switch">
            <input
              type="checkbox"
              role="switch"
              className="switch"
              checked={switches[kind]}
              onChange={(event) => {
                const notifications = { ...switches, [kind]: event.target.checked };
                void update({ notifications }).catch((error) => toast(messageOf(error), 'error'));
              }}
            />
            <span>{NOTIFICATION_SWITCH_WORDS[kind].label}</span>
          </label>
          <p className="muted small">{NOTIFICATION_SWITCH_WORDS[kind].why}</p>
        </div>
      ))}
      {note && (
        <p className="small" role="note">
          {note}{' '}
          {permission === 'default' && (
            <button type="button" className="link-button" onClick={() => void Notification.requestPermission().then(setPermission)}>
              Allow notifications
            </button>
          )}
        </p>
      )}
    </section>
  );
}

import './Sidebar.css';
import type { ReactNode } from 'react';
import { useSessionStore } from '../../stores/session-store.ts';
import { useSyncStore } from '../../stores/sync-store.ts';
import { type MainView, useUiStore } from '../../stores/ui-store.ts';
import { SyncStatePill } from '../common/SyncStatePill.tsx';
import { WorkspaceSwitcher } from './WorkspaceSwitcher.tsx';

// Each view's icon: in a narrow window the sidebar shows only these (styles/layout.css,
// "Layout"; Sidebar.css), the label stays in the page for screen readers and as the tooltip.
const icon = (children: ReactNode) => (
  <svg className="nav-icon" viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false" fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" strokeLinejoin="round">
    {children}
  </svg>
);

const NAVIGATION: { view: MainView; label: string; icon: ReactNode }[] = [
  { view: 'projects', label: 'Projects', icon: icon(<path d="M3 6.5h7l2 2h9v10.5H3z" />) },
  {
    view: 'contacts',
    label: 'Contacts',
    icon: icon(
      <>
        <circle cx="9" cy="8" r="3.2" />
        <path d="M3 19.5c.6-3.3 3-5.3 6-5.3s5.4 2 6 5.3M16 5.2a3 3 0 0 1 0 5.6M18 14.5c1.7.7 2.7 2.4 3 5" />
      </>,
    ),
  },
  {
    view: 'schedule',
    label: 'Schedule',
    icon: icon(
      <>
        <rect x="3.5" y="5" width="17" height="15" rx="2" />
        <path d="M3.5 10h17M8 3v4m8-4v4M8 14h2m4 0h2M8 17h2" />
      </>,
    ),
  },
  { view: 'webhooks', label: 'Webhooks', icon: icon(<path d="M9 7a3 3 0 1 1 4.5 2.6L16 14m-8.5 0a3 3 0 1 0 3 3h6m1-3a3 3 0 1 1-1.5 5.6M7.5 14 10 9.6" />) },
  { view: 'sync', label: 'Sync', icon: icon(<path d="M4 12a8 8 0 0 1 13.7-5.6L20 8.5M20 4v4.5h-4.5M20 12a8 8 0 0 1-13.7 5.6L4 15.5M4 20v-4.5h4.5" />) },
  {
    view: 'activity',
    label: 'Activity',
    icon: icon(<path d="M3 12h4l2.5-6 5 12 2.5-6H21" />),
  },
  {
    view: 'settings',
    label: 'Settings',
    icon: icon(
      <>
        <circle cx="12" cy="12" r="3" />
        <path d="M12 2.8v2.4m0 13.6v2.4M2.8 12h2.4m13.6 0h2.4M5.5 5.5l1.7 1.7m9.6 9.6 1.7 1.7m0-13-1.7 1.7m-9.6 9.6-1.7 1.7" />
      </>,
    ),
  },
];

/** "Alex Morgan" -> "AM"; an email -> its first letter. */
function initialsOf(name: string): string {
  const words = name.split(/[\s@.]+/).filter(Boolean);
  return ((words[0]?.[0] ?? '') + (name.includes('@') ? '' : (words[1]?.[0] ?? ''))).toUpperCase() || '?';
}

export function Sidebar() {
  const session = useSessionStore((state) => state.session);
  const view = useUiStore((state) => state.view);
  const show = useUiStore((state) => state.show);
  const live = useSyncStore((state) => state.live);
  const waiting = live ? live.conflicts + live.heldDeletes : 0;
  const userName = session?.user.displayName ?? '';
  const who = session ? `${session.orgName} · ${userName}${session.user.email !== userName ? ` (${session.user.email})` : ''}` : '';
  return (
    <nav className="sidebar" aria-label="SolarDesk">
      <div className="brand" title="SolarDesk">
        <img src="./icon.svg" alt="" width={28} height={28} />
        <span className="nav-label">SolarDesk</span>
      </div>
      <div className="org-name" title={who} data-testid="sidebar-user">
        <span className="org-avatar" aria-hidden="true">
          {initialsOf(userName)}
        </span>
        <span className="nav-label org-text">
          <span className="org-title">{session?.orgName}</span>
          <small className="user-name">{userName}</small>
        </span>
      </div>
      <WorkspaceSwitcher />
      <ul className="nav-list">
        {NAVIGATION.map((item) => (
          <li key={item.view}>
            <button
              type="button"
              className={`nav-item${view === item.view ? ' is-active' : ''}`}
              aria-current={view === item.view ? 'page' : undefined}
              aria-label={item.label}
              title={item.view === 'sync' && waiting > 0 ? `${item.label}: ${waiting} waiting for you` : item.label}
              onClick={() => show(item.view)}
            >
              {item.icon}
              <span className="nav-label">{item.label}</span>
              {item.view === 'sync' && waiting > 0 && <span className="nav-count">{waiting}</span>}
            </button>
          </li>
        ))}
      </ul>
      <button type="button" className="sidebar-sync" onClick={() => show('sync')}>
        <SyncStatePill state={live} />
      </button>
    </nav>
  );
}

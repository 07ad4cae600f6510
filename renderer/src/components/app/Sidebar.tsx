import { useSessionStore } from '../../stores/session-store.ts';
import { useSyncStore } from '../../stores/sync-store.ts';
import { type MainView, useUiStore } from '../../stores/ui-store.ts';
import { SyncStatePill } from '../common/SyncStatePill.tsx';
import { WorkspaceSwitcher } from './WorkspaceSwitcher.tsx';

const NAVIGATION: { view: MainView; label: string }[] = [
  { view: 'projects', label: 'Projects' },
  { view: 'webhooks', label: 'Webhooks' },
  { view: 'sync', label: 'Sync' },
  { view: 'settings', label: 'Settings' },
];

export function Sidebar() {
  const session = useSessionStore((state) => state.session);
  const view = useUiStore((state) => state.view);
  const show = useUiStore((state) => state.show);
  const live = useSyncStore((state) => state.live);
  return (
    <nav className="sidebar" aria-label="SolarDesk">
      <div className="brand">
        <img src="./icon.svg" alt="" width={28} height={28} />
        <span>SolarDesk</span>
      </div>
      <div className="org-name" title={session?.user.email}>
        {session?.orgName}
        <small>{session?.user.displayName}</small>
      </div>
      <WorkspaceSwitcher />
      <ul className="nav-list">
        {NAVIGATION.map((item) => (
          <li key={item.view}>
            <button
              type="button"
              className={`nav-item${view === item.view ? ' is-active' : ''}`}
              aria-current={view === item.view ? 'page' : undefined}
              onClick={() => show(item.view)}
            >
              {item.label}
              {item.view === 'sync' && live && live.conflicts + live.heldDeletes > 0 && <span className="nav-count">{live.conflicts + live.heldDeletes}</span>}
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

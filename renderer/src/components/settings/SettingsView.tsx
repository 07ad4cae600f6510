import './SettingsView.css';
import { THEMES, type Theme } from '../../../../shared/bridge.ts';
import { messageOf } from '../../api/api-client.ts';
import { useSessionStore } from '../../stores/session-store.ts';
import { useUiStore } from '../../stores/ui-store.ts';
import { ConnectionsSection } from './ConnectionsSection.tsx';
import { DownloadHostsSection } from './DownloadHostsSection.tsx';
import { FolderRootSection } from './FolderRootSection.tsx';
import { LocalWebhooksSection } from './LocalWebhooksSection.tsx';
import { TransfersSection } from './TransfersSection.tsx';
import { NotificationsSection } from './NotificationsSection.tsx';

const THEME_LABELS: Record<Theme, string> = { system: 'Same as the system', light: 'Light', dark: 'Dark' };

export function SettingsView() {
  const session = useSessionStore((state) => state.session);
  const settings = useSessionStore((state) => state.settings);
  const update = useSessionStore((state) => state.updateSettings);
  const toast = useUiStore((state) => state.toast);
  const apply = (patch: Parameters<typeof update>[0]) => void update(patch).catch((error) => toast(messageOf(error), 'error'));
  if (!settings || !session) return null;

  return (
    <div className="settings-view page" data-testid="settings-view">
      <h1>Settings</h1>
      <section className="card">
        <h2>Appearance</h2>
        <div className="segmented" role="radiogroup" aria-label="Theme">
          {THEMES.map((theme) => (
            <button key={theme} type="button" role="radio" aria-checked={settings.theme === theme} className={settings.theme === theme ? 'is-active' : ''} onClick={() => apply({ theme })}>
              {THEME_LABELS[theme]}
            </button>
          ))}
        </div>
      </section>
      <section className="card">
        <h2>Organisation</h2>
        <p className="muted">
          Working on <strong>{session.orgName}</strong> as {session.user.displayName}
          {session.user.displayName === session.user.email ? '' : ` (${session.user.email})`}.
        </p>
        {session.orgs.length > 1 && (
          <label className="field">
            <span>Switch organisation</span>
            <select aria-label="Organisation" value={session.orgId} onChange={(event) => apply({ orgId: Number(event.target.value) })}>
              {session.orgs.map((org) => (
                <option key={org.id} value={org.id}>
                  {org.name}
                </option>
              ))}
            </select>
          </label>
        )}
      </section>
      <ConnectionsSection orgId={session.orgId} isAdmin={session.isAdmin} isSynced={session.mode === 'synced'} remoteUrl={session.remoteUrl} />
      <FolderRootSection key={settings.folderRoot} session={session} settings={settings} />
      <NotificationsSection switches={settings.notifications} />
      {session.isAdmin && <LocalWebhooksSection isOn={settings.localWebhooks} isSynced={session.mode === 'synced'} />}
      {session.signedIn && <DownloadHostsSection saved={settings.downloadHosts} remoteUrl={session.signedIn.remoteUrl} />}
      <TransfersSection saved={settings.transferCaps} isSignedIn={session.signedIn !== null} />
      <section className="card">
        <h2>Where your data is</h2>
        <p className="muted">
          {session.mode === 'embedded'
            ? 'On this computer only: nothing is synced, so keep a backup of the data folder.'
            : `Synced with your office${session.remoteUrl ? ` at ${session.remoteUrl}` : ''}: this computer keeps a copy to work offline.`}
        </p>
      </section>
    </div>
  );
}

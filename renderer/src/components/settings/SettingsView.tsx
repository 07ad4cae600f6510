import './SettingsView.css';
import { useState } from 'react';
import { THEMES, type Theme } from '../../../../shared/bridge.ts';
import { messageOf } from '../../api/api-client.ts';
import { useSessionStore } from '../../stores/session-store.ts';
import { useUiStore } from '../../stores/ui-store.ts';
import { ConnectionsSection } from './ConnectionsSection.tsx';
import { DownloadHostsSection } from './DownloadHostsSection.tsx';
import { LocalWebhooksSection } from './LocalWebhooksSection.tsx';

const THEME_LABELS: Record<Theme, string> = { system: 'Same as the system', light: 'Light', dark: 'Dark' };

export function SettingsView() {
  const session = useSessionStore((state) => state.session);
  const settings = useSessionStore((state) => state.settings);
  const update = useSessionStore((state) => state.updateSettings);
  const chooseFolder = useSessionStore((state) => state.chooseFolder);
  const toast = useUiStore((state) => state.toast);
  const [folderRoot, setFolderRoot] = useState(settings?.folderRoot ?? '');
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
      <section className="card">
        <h2>Project folders</h2>
        <p className="muted" data-testid="project-folders-root">
          Each project gets a folder in <span className="mono">{session.projectFoldersRoot}</span>: a file dropped into it is attached to the project,
          and downloads are saved into it. {session.mode === 'embedded' ? 'Signed in to a remote, the folders are in the folder root itself' : 'While not signed in, the folders of the store on this computer are in its "On this computer" folder'}, so the two never mix.
        </p>
        <form
          className="inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            apply({ folderRoot: folderRoot.trim() });
          }}
        >
          <input aria-label="Folder root" className="mono" title={folderRoot} value={folderRoot} onChange={(event) => setFolderRoot(event.target.value)} />
          {session.canChooseFolder && (
            <button
              type="button"
              className="button"
              onClick={() =>
                void chooseFolder(folderRoot.trim() || settings.folderRoot)
                  .then((chosen) => chosen !== null && setFolderRoot(chosen))
                  .catch((error) => toast(messageOf(error), 'error'))
              }
            >
              Browse…
            </button>
          )}
          <button type="submit" className="button" disabled={folderRoot.trim() === settings.folderRoot}>
            Save
          </button>
        </form>
        {!session.canChooseFolder && <p className="muted small">Type the folder’s full path: a browser page cannot show this computer’s folders (the desktop app has a Browse button).</p>}
      </section>
      {session.isAdmin && <LocalWebhooksSection isOn={settings.localWebhooks} isSynced={session.mode === 'synced'} />}
      {session.signedIn && <DownloadHostsSection saved={settings.downloadHosts} remoteUrl={session.signedIn.remoteUrl} />}
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

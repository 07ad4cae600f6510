import './WorkspaceSwitcher.css';
import { type KeyboardEvent, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import type { Workspace } from '../../../../shared/bridge.ts';
import { messageOf } from '../../api/api-client.ts';
import { useSessionStore } from '../../stores/session-store.ts';

// The icon sidebar's window width (styles/layout.css, "Layout": --sidebar-width is 60px below 960px).
const ICON_SIDEBAR = '(max-width: 959px)';
function subscribeToWidth(onChange: () => void): () => void {
  const query = window.matchMedia(ICON_SIDEBAR);
  query.addEventListener('change', onChange);
  return () => query.removeEventListener('change', onChange);
}
const isIconSidebar = () => window.matchMedia(ICON_SIDEBAR).matches;

const workspaceIcon = (workspace: Workspace) => (
  <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false" fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" strokeLinejoin="round">
    {workspace === 'local' ? <path d="M4 6h16v10H4zM2 19h20" /> : <path d="M4 21V5l8-3v19M12 8h8v13M4 21h17M7 8h2m-2 4h2m-2 4h2m6-4h2m-2 4h2" />}
  </svg>
);

/**
 * Signed in, two workspaces: the org's ("<org> at <remote>") and "On this computer"
 * (the embedded store, with what was done there before signing in). Switching
 * restarts the backend, as signing in does; the sign-in stays. In the wide sidebar a
 * select (its choice cut with an ellipsis, whole in its title); in the icon sidebar an
 * icon button named for the workspace that opens the two choices as a menu.
 */
export function WorkspaceSwitcher() {
  const session = useSessionStore((state) => state.session);
  const isIcon = useSyncExternalStore(subscribeToWidth, isIconSidebar);
  const [isSwitching, setSwitching] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [menuAt, setMenuAt] = useState<{ left: number; top: number } | null>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const menuRef = useRef<HTMLUListElement>(null);

  // The open menu: its checked choice takes the focus; a click elsewhere or a resize closes it.
  useEffect(() => {
    if (!menuAt) return;
    menuRef.current?.querySelector<HTMLButtonElement>('[aria-checked="true"]')?.focus();
    const closeOutside = (event: PointerEvent) => {
      if (!menuRef.current?.contains(event.target as Node) && !buttonRef.current?.contains(event.target as Node)) setMenuAt(null);
    };
    const close = () => setMenuAt(null);
    document.addEventListener('pointerdown', closeOutside);
    window.addEventListener('resize', close);
    return () => {
      document.removeEventListener('pointerdown', closeOutside);
      window.removeEventListener('resize', close);
    };
  }, [menuAt]);

  if (!session?.signedIn) return null;
  const signedIn = session.signedIn;
  const host = (() => {
    try {
      return new URL(signedIn.remoteUrl).host;
    } catch {
      return signedIn.remoteUrl;
    }
  })();
  const labels: Record<Workspace, string> = { remote: `${signedIn.orgName} at ${host}`, local: 'On this computer' };
  const current = `Workspace: ${labels[session.workspace]}${session.workspace === 'local' ? ' (your sign-in stays)' : ''}`;

  const choose = async (workspace: Workspace): Promise<boolean> => {
    if (workspace === session.workspace) return true;
    setSwitching(true);
    setError(null);
    try {
      await useSessionStore.getState().switchWorkspace(workspace);
      return true;
    } catch (failure) {
      setError(messageOf(failure));
      return false;
    } finally {
      setSwitching(false);
    }
  };

  if (isIcon) {
    const closeMenu = () => {
      setMenuAt(null);
      buttonRef.current?.focus();
    };
    const onMenuKey = (event: KeyboardEvent<HTMLUListElement>) => {
      const items = [...(menuRef.current?.querySelectorAll<HTMLButtonElement>('[role="menuitemradio"]') ?? [])];
      const at = items.indexOf(document.activeElement as HTMLButtonElement);
      if (event.key === 'Escape') {
        event.preventDefault();
        closeMenu();
      } else if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault();
        items[(at + (event.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length]?.focus();
      } else if (event.key === 'Tab') {
        setMenuAt(null);
      }
    };
    return (
      <div className="workspace-switcher is-icon">
        <button
          ref={buttonRef}
          type="button"
          className="workspace-button"
          aria-label={current}
          title={isSwitching ? 'Switching workspace…' : error ? `${current}. ${error}` : current}
          aria-haspopup="menu"
          aria-expanded={menuAt !== null}
          aria-busy={isSwitching}
          disabled={isSwitching}
          onClick={() => {
            if (menuAt) return setMenuAt(null);
            const box = buttonRef.current!.getBoundingClientRect();
            // Beside the icon, out of the 60px sidebar (fixed: not clipped by it), inside the window.
            setMenuAt({ left: box.right + 8, top: Math.max(8, Math.min(box.top, window.innerHeight - 160)) });
          }}
        >
          {workspaceIcon(session.workspace)}
        </button>
        {menuAt && (
          <ul ref={menuRef} role="menu" aria-label="Workspace" className="workspace-menu" style={menuAt} onKeyDown={onMenuKey}>
            {(['remote', 'local'] as const).map((workspace) => (
              <li key={workspace} role="none">
                <button
                  type="button"
                  role="menuitemradio"
                  aria-checked={session.workspace === workspace}
                  onClick={async () => {
                    if (await choose(workspace)) closeMenu();
                  }}
                >
                  {workspaceIcon(workspace)}
                  <span>{labels[workspace]}</span>
                </button>
              </li>
            ))}
            {error && (
              <li role="alert" className="workspace-error">
                {error}
              </li>
            )}
          </ul>
        )}
      </div>
    );
  }

  return (
    <div className="workspace-switcher">
      <label htmlFor="workspace">Workspace</label>
      <select id="workspace" value={session.workspace} disabled={isSwitching} title={current} onChange={(event) => void choose(event.target.value as Workspace)}>
        {/* The org's name alone fits the sidebar ("Sunrise Solar at 12…" did not); the title above names the server too. */}
        <option value="remote">{signedIn.orgName}</option>
        <option value="local">{labels.local}</option>
      </select>
      {isSwitching && <small>Switching…</small>}
      {error && (
        <small className="workspace-error" role="alert">
          {error}
        </small>
      )}
    </div>
  );
}

import { useState } from 'react';
import type { Workspace } from '../../../../shared/bridge.ts';
import { messageOf } from '../../api/api-client.ts';
import { useSessionStore } from '../../stores/session-store.ts';

/**
 * Signed in, two workspaces: the org's ("<org> at <remote>") and "On this computer"
 * (the embedded store, with what was done there before signing in). Switching
 * restarts the backend, as signing in does; the sign-in stays.
 */
export function WorkspaceSwitcher() {
  const session = useSessionStore((state) => state.session);
  const [isSwitching, setSwitching] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (!session?.signedIn) return null;
  const host = (() => {
    try {
      return new URL(session.signedIn.remoteUrl).host;
    } catch {
      return session.signedIn.remoteUrl;
    }
  })();
  return (
    <div className="workspace-switcher">
      <label htmlFor="workspace">Workspace</label>
      <select
        id="workspace"
        value={session.workspace}
        disabled={isSwitching}
        title={session.workspace === 'local' ? 'The store on this computer; your sign-in stays.' : session.signedIn.remoteUrl}
        onChange={async (event) => {
          setSwitching(true);
          setError(null);
          try {
            await useSessionStore.getState().switchWorkspace(event.target.value as Workspace);
          } catch (failure) {
            setError(messageOf(failure));
          } finally {
            setSwitching(false);
          }
        }}
      >
        <option value="remote">
          {session.signedIn.orgName} at {host}
        </option>
        <option value="local">On this computer</option>
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

import { useState } from 'react';
import { messageOf } from '../../api/api-client.ts';
import { useSessionStore } from '../../stores/session-store.ts';

/** Sign in to a remote (the hosted service or a `solardesk server`), or out of it. */
export function RemoteAccount() {
  const session = useSessionStore((state) => state.session);
  const settings = useSessionStore((state) => state.settings);
  const [remoteUrl, setRemoteUrl] = useState(settings?.remoteUrl ?? '');
  const [username, setUsername] = useState(settings?.username ?? '');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [isBusy, setBusy] = useState(false);

  if (session?.remoteUrl && !session.needsSignIn) {
    return (
      <section className="card" aria-label="Remote">
        <h2>Remote</h2>
        <p>
          Signed in to <strong>{session.remoteUrl}</strong> as {settings?.username}.
        </p>
        <button type="button" className="button" onClick={() => void useSessionStore.getState().signOut()}>
          Sign out
        </button>
      </section>
    );
  }
  return (
    <section className="card" aria-label="Sign in to a remote">
      <h2>{session?.needsSignIn ? 'Sign in again' : 'Sign in to a remote'}</h2>
      {session?.needsSignIn && <p className="warning-text">The remote no longer accepts this computer’s sign-in. Changes wait here until you sign in again.</p>}
      <form
        className="sign-in"
        onSubmit={async (event) => {
          event.preventDefault();
          setBusy(true);
          setError(null);
          try {
            await useSessionStore.getState().signIn({ remoteUrl: remoteUrl.trim(), username: username.trim(), password });
            setPassword('');
          } catch (failure) {
            setError(messageOf(failure));
          } finally {
            setBusy(false);
          }
        }}
      >
        <div className="field-grid">
          <div className="field">
            <label htmlFor="remote-url">Remote URL</label>
            <input id="remote-url" type="url" placeholder="https://solar.example.com" value={remoteUrl} onChange={(event) => setRemoteUrl(event.target.value)} required />
          </div>
          <div className="field">
            <label htmlFor="remote-username">Username</label>
            <input id="remote-username" autoComplete="username" value={username} onChange={(event) => setUsername(event.target.value)} required />
          </div>
          <div className="field">
            <label htmlFor="remote-password">Password</label>
            <input id="remote-password" type="password" autoComplete="current-password" value={password} onChange={(event) => setPassword(event.target.value)} required />
          </div>
        </div>
        {error && (
          <p className="field-error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" className="button button-primary" disabled={isBusy}>
          {isBusy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </section>
  );
}

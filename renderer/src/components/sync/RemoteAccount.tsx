import './RemoteAccount.css';
import { useState } from 'react';
import { messageOf } from '../../api/api-client.ts';
import { useLocalWorkStore } from '../../stores/local-work-store.ts';
import { useSessionStore } from '../../stores/session-store.ts';
import { useEscapeKey } from '../common/use-escape-key.ts';

/** Sign in to a remote (the hosted service or a `solardesk server`), or out of it. */
export function RemoteAccount() {
  const session = useSessionStore((state) => state.session);
  const settings = useSessionStore((state) => state.settings);
  const [remoteUrl, setRemoteUrl] = useState(settings?.remoteUrl ?? '');
  const [username, setUsername] = useState(settings?.username ?? '');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [isBusy, setBusy] = useState(false);
  const [question, setQuestion] = useState<string | null>(null);
  useEscapeKey(() => setQuestion(null), question !== null && !isBusy);

  if (session?.signedIn && !session.needsSignIn) {
    const signOut = async (confirm: boolean) => {
      setBusy(true);
      setError(null);
      try {
        const answer = await useSessionStore.getState().signOut(confirm);
        setQuestion(answer.outcome === 'needs_confirmation' ? answer.question : null);
      } catch (failure) {
        setError(messageOf(failure));
      } finally {
        setBusy(false);
      }
    };
    return (
      <section className="card" aria-label="Remote">
        <h2>Remote</h2>
        <p>
          Signed in to <strong>{session.signedIn.remoteUrl}</strong> as {settings?.username}.
          {session.workspace === 'local' && ' You are working in “On this computer”; switch back to your office’s workspace in the sidebar.'}
        </p>
        {question ? (
          <div className="sign-out-question" role="alertdialog" aria-labelledby="sign-out-question" data-testid="sign-out-question">
            <p id="sign-out-question" className="warning-text">
              {question}
            </p>
            <div className="dialog-actions">
              <button type="button" className="button" disabled={isBusy} onClick={() => setQuestion(null)}>
                Cancel
              </button>
              <button type="button" className="button button-danger" disabled={isBusy} onClick={() => void signOut(true)}>
                Sign out
              </button>
            </div>
          </div>
        ) : (
          <button type="button" className="button" disabled={isBusy} onClick={() => void signOut(false)}>
            Sign out
          </button>
        )}
        {error && (
          <p className="field-error" role="alert">
            {error}
          </p>
        )}
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
            // What was done here before signing in is offered to the org now, never hidden.
            void useLocalWorkStore.getState().load({ open: true });
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

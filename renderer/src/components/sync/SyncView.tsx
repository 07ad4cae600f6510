import './SyncView.css';
import { useEffect } from 'react';
import { useSessionStore } from '../../stores/session-store.ts';
import { useSyncStore } from '../../stores/sync-store.ts';
import { ErrorState } from '../common/ErrorState.tsx';
import { LoadingState } from '../common/LoadingState.tsx';
import { ConflictInbox } from './ConflictInbox.tsx';
import { LocalWorkCard } from './LocalWorkDialog.tsx';
import { PendingChanges } from './PendingChanges.tsx';
import { RemoteAccount } from './RemoteAccount.tsx';
import { SyncStatusCard } from './SyncStatusCard.tsx';
import { SyncBudget } from './SyncBudget.tsx';
import { UnsortedPhotos } from './UnsortedPhotos.tsx';
import { WaitingDownloads } from './WaitingDownloads.tsx';

export function SyncView({ orgId }: { orgId: number }) {
  const loadState = useSyncStore((state) => state.loadState);
  const error = useSyncStore((state) => state.error);
  const isLocalOnly = useSyncStore((state) => state.isLocalOnly);
  const session = useSessionStore((state) => state.session);
  const heldCount = useSyncStore((state) => state.pending.filter((item) => item.status === 'held').length);

  useEffect(() => {
    void useSyncStore.getState().load(orgId);
  }, [orgId]);

  return (
    <div className="sync-view page" data-testid="sync-view">
      <h1>Sync</h1>
      {loadState === 'loading' && <LoadingState label="Asking the sync agent…" />}
      {loadState === 'error' && <ErrorState message={error ?? ''} onRetry={() => void useSyncStore.getState().load(orgId)} />}
      {loadState === 'ready' && isLocalOnly && (
        <div className="card local-only" role="status" data-testid="local-only">
          {session?.workspace === 'local' && session.signedIn ? (
            <>
              <h2>On this computer — not synced</h2>
              <p>
                This is the workspace on this computer, with what you did here before signing in. Nothing in it goes to {session.signedIn.orgName} unless you
                send it (below). Your sign-in to {session.signedIn.remoteUrl} stays: switch back to it in the sidebar.
              </p>
            </>
          ) : (
            <>
              <h2>Local only: not signed in to an office server</h2>
              <p>
                Everything you do is saved on this computer.{' '}
                {heldCount > 0 ? 'Nothing is sent anywhere, but files deleted from a project folder wait for you below.' : 'Nothing is pending and nothing can conflict.'}{' '}
                Sign in below to keep this computer and your office in step; what you did here is offered to your office then, never hidden.
              </p>
            </>
          )}
          {session?.remoteUrl && !session.isSyncAvailable && (
            <p className="warning-text">
              You are signed in to {session.remoteUrl}, but this build of SolarDesk does not include the sync agent yet, so it keeps working
              locally.
            </p>
          )}
        </div>
      )}
      {loadState === 'ready' && isLocalOnly && <PendingChanges isLocalOnly />}
      {loadState === 'ready' && !isLocalOnly && (
        <>
          <SyncStatusCard />
          <ConflictInbox />
          <PendingChanges />
          <WaitingDownloads orgId={orgId} />
          <SyncBudget orgId={orgId} />
        </>
      )}
      {loadState === 'ready' && <UnsortedPhotos />}
      {session?.signedIn && <LocalWorkCard />}
      <RemoteAccount />
    </div>
  );
}

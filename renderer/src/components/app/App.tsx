import { useEffect } from 'react';
import { bridge } from '../../bridge-client.ts';
import { useSessionStore } from '../../stores/session-store.ts';
import { useUiStore } from '../../stores/ui-store.ts';
import { ActivityView } from '../activity/ActivityView.tsx';
import { ContactsView } from '../contacts/ContactsView.tsx';
import { ErrorState } from '../common/ErrorState.tsx';
import { LoadingState } from '../common/LoadingState.tsx';
import { ProjectsView } from '../projects/ProjectsView.tsx';
import { ScheduleView } from '../schedule/ScheduleView.tsx';
import { SettingsView } from '../settings/SettingsView.tsx';
import { LocalWorkDialog } from '../sync/LocalWorkDialog.tsx';
import { SyncView } from '../sync/SyncView.tsx';
import { WebhooksView } from '../webhooks/WebhooksView.tsx';
import { ConnectionBanner } from './ConnectionBanner.tsx';
import { FolderRootQuestion } from './FolderRootQuestion.tsx';
import { MissingSecret } from './MissingSecret.tsx';
import { Sidebar } from './Sidebar.tsx';
import { Toasts } from './Toasts.tsx';
import { useAppTheme } from './use-app-theme.ts';
import { useBridgeEvents } from './use-bridge-events.ts';

export function App() {
  if (!bridge) return <MissingSecret />;
  return <ConnectedApp />;
}

function ConnectedApp() {
  const status = useSessionStore((state) => state.status);
  const error = useSessionStore((state) => state.error);
  const session = useSessionStore((state) => state.session);
  const load = useSessionStore((state) => state.load);
  const view = useUiStore((state) => state.view);

  useEffect(() => {
    void load();
  }, [load]);
  useBridgeEvents();
  useAppTheme();

  if (status === 'error') return <ErrorState message={error ?? 'SolarDesk could not start.'} onRetry={() => void load()} />;
  if (status === 'loading' || !session) return <LoadingState label="Starting SolarDesk…" />;
  return (
    <div className="app" key={session.orgId}>
      <Sidebar />
      <main className="main" aria-label={view}>
        <ConnectionBanner />
        <FolderRootQuestion />
        {view === 'projects' && <ProjectsView orgId={session.orgId} />}
        {view === 'contacts' && <ContactsView orgId={session.orgId} />}
        {view === 'schedule' && <ScheduleView orgId={session.orgId} />}
        {view === 'webhooks' && <WebhooksView orgId={session.orgId} isAdmin={session.isAdmin} />}
        {view === 'sync' && <SyncView orgId={session.orgId} />}
        {view === 'activity' && <ActivityView orgId={session.orgId} />}
        {view === 'settings' && <SettingsView />}
        {/* Last in the main column, in the flow: a toast takes its own strip of the window and never covers a control (issue 28, item 10). */}
        <Toasts />
      </main>
      <LocalWorkDialog />
    </div>
  );
}

import './SyncStatePill.css';
import type { SyncState } from '../../../../shared/bridge.ts';
import type { BadgeTone } from './Badge.tsx';

const LABELS: Record<SyncState['state'], { text: string; tone: BadgeTone }> = {
  local_only: { text: 'Local only', tone: 'neutral' },
  synced: { text: 'Synced', tone: 'success' },
  syncing: { text: 'Syncing…', tone: 'info' },
  offline: { text: 'Offline', tone: 'warning' },
  paused: { text: 'Paused', tone: 'warning' },
  needs_attention: { text: 'Needs attention', tone: 'danger' },
  needs_sign_in: { text: 'Sign in again', tone: 'danger' },
};

/** The sync state in a few words, with the detail on hover. */
export function SyncStatePill({ state, testId = 'sync-pill' }: { state: SyncState | null; testId?: string }) {
  const label = LABELS[state?.state ?? 'local_only'];
  return (
    <span className={`pill pill-${label.tone}`} title={state?.detail ? `${label.text}: ${state.detail}` : label.text} data-testid={testId}>
      <span className="pill-dot" aria-hidden="true" />
      <span className="pill-text">{label.text}</span>
      {state && state.pending > 0 && <span className="pill-count">{state.pending}</span>}
    </span>
  );
}

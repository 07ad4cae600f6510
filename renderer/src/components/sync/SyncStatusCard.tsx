// Where sync stands: one sentence of state and what to do, the pill, Pause/Resume, and
// the facts, all from one derivation (sync-summary.ts), so none contradicts another.
import './SyncStatusCard.css';
import { messageOf } from '../../api/api-client.ts';
import { formatDateTime } from '../../format.ts';
import { useLocalWorkStore } from '../../stores/local-work-store.ts';
import { useSyncStore } from '../../stores/sync-store.ts';
import { useUiStore } from '../../stores/ui-store.ts';
import { SyncStatePill } from '../common/SyncStatePill.tsx';
import { lastSyncedWords, remoteWords, syncFactsOf, syncSentence } from './sync-summary.ts';

export function SyncStatusCard() {
  const status = useSyncStore((state) => state.status);
  const live = useSyncStore((state) => state.live);
  const heldDeletes = useSyncStore((state) => state.pending.filter((item) => item.status === 'held').length);
  // Kept on this computer by choice: not repeated in the sentence (the card below still lists them).
  const onlyHere = useLocalWorkStore((state) => (state.offer && !state.offer.isKept ? state.offer.items.length : 0));
  const toast = useUiStore((state) => state.toast);
  const facts = syncFactsOf(live, status, heldDeletes);
  if (!facts) return null;
  const isPaused = facts.state === 'paused';
  return (
    <div className="card sync-status" data-testid="sync-status">
      <p className="sync-sentence" data-testid="sync-sentence">
        {syncSentence(facts, onlyHere)}
      </p>
      <div className="card-row">
        <SyncStatePill state={{ ...facts }} testId="sync-status-pill" />
        <button
          type="button"
          className="button"
          onClick={() => void useSyncStore.getState().setPaused(!isPaused).catch((error) => toast(messageOf(error), 'error'))}
        >
          {isPaused ? 'Resume sync' : 'Pause sync'}
        </button>
      </div>
      <dl className="facts">
        <div>
          <dt>Pending</dt>
          <dd>{facts.pending}</dd>
        </div>
        <div>
          <dt>Conflicts</dt>
          <dd>{facts.conflicts}</dd>
        </div>
        <div>
          <dt>Last synced</dt>
          <dd data-testid="sync-last-synced">{lastSyncedWords(facts)}</dd>
        </div>
        <div>
          <dt>Next attempt</dt>
          <dd>{facts.nextAttemptAt ? formatDateTime(facts.nextAttemptAt) : '—'}</dd>
        </div>
        <div>
          <dt>Remote</dt>
          <dd data-testid="sync-remote">{remoteWords(facts)}</dd>
        </div>
      </dl>
      {facts.detail && <p className="muted">{facts.detail}</p>}
    </div>
  );
}

import { messageOf } from '../../api/api-client.ts';
import { formatDateTime } from '../../format.ts';
import { useSyncStore } from '../../stores/sync-store.ts';
import { useUiStore } from '../../stores/ui-store.ts';
import { SyncStatePill } from '../common/SyncStatePill.tsx';

export function SyncStatusCard() {
  const status = useSyncStore((state) => state.status);
  const live = useSyncStore((state) => state.live);
  const toast = useUiStore((state) => state.toast);
  if (!status) return null;
  const isPaused = status.state === 'paused';
  return (
    <div className="card sync-status" data-testid="sync-status">
      <div className="card-row">
        <SyncStatePill state={live} testId="sync-status-pill" />
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
          <dd>{status.pending}</dd>
        </div>
        <div>
          <dt>Conflicts</dt>
          <dd>{status.conflicts}</dd>
        </div>
        <div>
          <dt>Last synced</dt>
          <dd>{formatDateTime(status.last_synced_at)}</dd>
        </div>
        <div>
          <dt>Next attempt</dt>
          <dd>{status.next_attempt_at ? formatDateTime(status.next_attempt_at) : '—'}</dd>
        </div>
        <div>
          <dt>Remote</dt>
          <dd>{status.remote_reachable ? 'Reachable' : 'Not reachable'}</dd>
        </div>
      </dl>
      {live?.detail && <p className="muted">{live.detail}</p>}
    </div>
  );
}

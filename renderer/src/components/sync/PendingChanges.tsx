import { messageOf } from '../../api/api-client.ts';
import { changeWord, formatDateTime, labelsOf } from '../../format.ts';
import { useSyncStore } from '../../stores/sync-store.ts';
import { useUiStore } from '../../stores/ui-store.ts';
import { Badge } from '../common/Badge.tsx';
import { EmptyState } from '../common/EmptyState.tsx';
import { HeldDeletes } from './HeldDeletes.tsx';
import { useRecordLabel } from './use-record-label.ts';

/**
 * What waits to go to the remote, why, and until when; held deletes wait for the
 * user to confirm or restore them (HeldDeletes.tsx). Local only, there is nothing to
 * send: only the held deletes are shown.
 */
export function PendingChanges({ isLocalOnly = false }: { isLocalOnly?: boolean }) {
  const pending = useSyncStore((state) => state.pending);
  const toast = useUiStore((state) => state.toast);
  const held = pending.filter((item) => item.status === 'held');
  const queued = pending.filter((item) => item.status !== 'held');
  const recordLabel = useRecordLabel();
  const describe = (item: (typeof pending)[number]) => recordLabel(item.model, item.record_id);

  return (
    <>
      <HeldDeletes held={held} isLocalOnly={isLocalOnly} />
      {!isLocalOnly && (
        <section className="card" aria-label="Pending changes" data-testid="pending-changes">
          <h2>Pending changes</h2>
          {queued.length === 0 ? (
            <EmptyState title="Nothing waiting: every change has reached the remote." />
          ) : (
            <table className="table compact">
              <thead>
                <tr>
                  <th>Change</th>
                  <th>Fields</th>
                  <th>Why it waits</th>
                  <th>Next attempt</th>
                </tr>
              </thead>
              <tbody>
                {queued.map((item) => (
                  <tr key={item.id}>
                    <td>
                      <Badge tone={item.status === 'parked' ? 'danger' : 'neutral'}>{changeWord(item.op)}</Badge> {describe(item)}
                    </td>
                    <td>{item.fields.length ? labelsOf(item.fields).join(', ') : '—'}</td>
                    <td>{item.reason}</td>
                    <td>
                      {item.status === 'parked' ? (
                        <button
                          type="button"
                          className="button"
                          aria-label={`Retry sending ${describe(item)}`}
                          onClick={() => void useSyncStore.getState().retryParked(item.id).catch((error) => toast(messageOf(error), 'error'))}
                        >
                          Retry
                        </button>
                      ) : item.waiting_until ? (
                        formatDateTime(item.waiting_until)
                      ) : (
                        'Next sync'
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
      )}
    </>
  );
}

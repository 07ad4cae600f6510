import './PendingChanges.css';
import { messageOf } from '../../api/api-client.ts';
import { formatDateTime, labelsOf } from '../../format.ts';
import { useSyncStore } from '../../stores/sync-store.ts';
import { useUiStore } from '../../stores/ui-store.ts';
import { Badge } from '../common/Badge.tsx';
import { EmptyState } from '../common/EmptyState.tsx';
import { useRecordLabel } from './use-record-label.ts';

/** The outbox's operations as a person says them. */
const CHANGE_WORDS: Record<string, string> = { create: 'New', update: 'Changed', delete: 'Deleted' };

/**
 * What waits to go to the remote, why, and until when; held deletes wait for the
 * user to confirm or restore them. Local only, there is nothing to send: only the
 * held deletes are shown.
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
      {held.length > 0 && (
        <section className="card" aria-label="Held deletes" data-testid="held-deletes">
          <h2>Deletes waiting for you</h2>
          <p className="muted">
            {isLocalOnly
              ? 'These files were deleted from a project folder. SolarDesk keeps each one until you choose: Restore puts it back in its folder, Delete it removes it for good.'
              : 'These files were deleted on this computer. SolarDesk never deletes them on the remote until you choose: Restore puts the file back in its folder, Delete on the remote too removes it everywhere.'}
          </p>
          <ul className="card-list">
            {held.map((item) => (
              <li key={item.id} className="card-row held-delete" data-testid="held-delete">
                <span className="held-delete-text">
                  <strong>{describe(item)}</strong>
                  <span className="muted">{item.reason}</span>
                </span>
                <span className="card-actions">
                  <button type="button" className="button" onClick={() => void useSyncStore.getState().restoreDelete(item.id).catch((error) => toast(messageOf(error), 'error'))}>
                    Restore
                  </button>
                  <button
                    type="button"
                    className="button button-danger"
                    onClick={() => void useSyncStore.getState().confirmDelete(item.id).catch((error) => toast(messageOf(error), 'error'))}
                  >
                    {isLocalOnly ? 'Delete it' : 'Delete on the remote too'}
                  </button>
                </span>
              </li>
            ))}
          </ul>
        </section>
      )}
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
                      <Badge tone={item.status === 'parked' ? 'danger' : 'neutral'}>{CHANGE_WORDS[item.op] ?? item.op}</Badge> {describe(item)}
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

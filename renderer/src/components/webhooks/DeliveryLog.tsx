import { useEffect, useState } from 'react';
import { messageOf } from '../../api/api-client.ts';
import { formatDateTime } from '../../format.ts';
import { useWebhooksStore } from '../../stores/webhooks-store.ts';
import { Badge } from '../common/Badge.tsx';
import { EmptyState } from '../common/EmptyState.tsx';
import { ErrorState } from '../common/ErrorState.tsx';

const REFRESH_MS = 4000;

/** Every delivery attempt of one webhook, newest first; refreshes while shown. */
export function DeliveryLog({ webhookId }: { webhookId: number }) {
  const rows = useWebhooksStore((state) => state.logs[webhookId]);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const load = () =>
      useWebhooksStore
        .getState()
        .loadLog(webhookId)
        .then(() => setError(null))
        .catch((failure) => setError(messageOf(failure)));
    void load();
    const timer = setInterval(load, REFRESH_MS);
    return () => clearInterval(timer);
  }, [webhookId]);

  return (
    <section className="delivery-log" aria-label="Delivery log" data-testid="delivery-log">
      <h2>Delivery log</h2>
      {error && <ErrorState message={error} />}
      {!error && rows && rows.length === 0 && <EmptyState title="No deliveries yet">Change a field this webhook watches and the attempt shows here.</EmptyState>}
      {rows && rows.length > 0 && (
        <table className="table compact">
          <thead>
            <tr>
              <th>When</th>
              <th>Record</th>
              <th>Event</th>
              <th>Attempt</th>
              <th>Result</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.id} data-testid="delivery-row">
                <td>{formatDateTime(row.created_date)}</td>
                <td>
                  {row.model_name} {row.model_pk}
                </td>
                <td>{row.event_name}</td>
                <td className="numeric">{row.attempt}</td>
                <td>
                  <Badge tone={row.successful ? 'success' : 'danger'} title={row.notes}>
                    {row.successful ? 'Delivered' : 'Failed'}
                  </Badge>
                  {!row.successful && row.notes && <div className="muted small">{row.notes}</div>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

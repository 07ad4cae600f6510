import './DeliveryLog.css';
import { Fragment, useEffect, useRef, useState } from 'react';
import type { WebhookLogJson, WebhookLogPayloadJson } from '../../../../shared/schemas/webhook.ts';
import { messageOf } from '../../api/api-client.ts';
import { formatDateTime } from '../../format.ts';
import { useUiStore } from '../../stores/ui-store.ts';
import { LOG_CSV_ROWS, useWebhooksStore } from '../../stores/webhooks-store.ts';
import { Badge } from '../common/Badge.tsx';
import { EmptyState } from '../common/EmptyState.tsx';
import { ErrorState } from '../common/ErrorState.tsx';
import { saveText } from '../../save-text.ts';

const REFRESH_MS = 4000;
/** How long typing pauses before the search runs. */
const SEARCH_DELAY_MS = 300;

/** The record a row is about, by its title; the model and id say which when it has none (deleted). */
function recordName(row: WebhookLogJson): string {
  return row.record_title ?? `${row.model_name} ${row.model_pk} (deleted)`;
}

/** A test delivery's row (event 0, webhook-tools.ts): no change behind it, no payload kept, nothing to send again. */
const isTestRow = (row: WebhookLogJson) => row.event_id === 0;

/** Every delivery attempt of one webhook, newest first; refreshes while shown. Each attempt's payload can be opened and sent again. */
export function DeliveryLog({ webhookId }: { webhookId: number }) {
  const rows = useWebhooksStore((state) => state.logs[webhookId]);
  const toast = useUiStore((state) => state.toast);
  const [error, setError] = useState<string | null>(null);
  const [open, setOpen] = useState<{ id: number; payload?: WebhookLogPayloadJson; error?: string } | null>(null);
  const [redelivering, setRedelivering] = useState<number | null>(null);
  const [search, setSearch] = useState('');
  const [downloading, setDownloading] = useState(false);
  // The search the refresh timer uses: the latest typed, without restarting the timer on each key.
  const searchRef = useRef('');

  const load = () =>
    useWebhooksStore
      .getState()
      .loadLog(webhookId, searchRef.current)
      .then(() => setError(null))
      .catch((failure) => setError(messageOf(failure)));

  useEffect(() => {
    void load();
    const timer = setInterval(load, REFRESH_MS);
    return () => clearInterval(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- load reads only webhookId and the search ref
  }, [webhookId]);

  useEffect(() => {
    if (searchRef.current === search) return;
    const timer = setTimeout(() => {
      searchRef.current = search;
      void load();
    }, SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- load reads only webhookId and the search ref
  }, [search]);

  const downloadCsv = async () => {
    setDownloading(true);
    try {
      const csv = await useWebhooksStore.getState().logCsv(webhookId, search);
      const stamp = new Date().toISOString().slice(0, 10);
      saveText(`webhook-${webhookId}-deliveries-${stamp}.csv`, csv, 'text/csv');
    } catch (failure) {
      toast(`Could not download the log: ${messageOf(failure)} Try again, or narrow the search.`, 'error');
    } finally {
      setDownloading(false);
    }
  };

  const togglePayload = async (id: number) => {
    if (open?.id === id) return setOpen(null);
    setOpen({ id });
    try {
      const payload = await useWebhooksStore.getState().loadPayload(id);
      setOpen((current) => (current?.id === id ? { id, payload } : current));
    } catch (failure) {
      setOpen((current) => (current?.id === id ? { id, error: messageOf(failure) } : current));
    }
  };

  const redeliver = async (row: WebhookLogJson) => {
    setRedelivering(row.id);
    try {
      const answer = await useWebhooksStore.getState().redeliver(row.id);
      toast(answer.detail, answer.webhook_enabled ? 'info' : 'error');
      void load();
    } catch (failure) {
      toast(messageOf(failure), 'error');
    } finally {
      setRedelivering(null);
    }
  };

  // In a narrow pane the table scrolls sideways on its own (data-scrolls-sideways); the pane does not.
  return (
    <section className="delivery-log" aria-label="Delivery log" data-testid="delivery-log">
      <div className="delivery-log-header">
        <h2>Delivery log</h2>
        <div className="delivery-log-tools" role="search" aria-label="Search the delivery log">
          <input
            type="search"
            className="delivery-log-search"
            placeholder="Search: record id, event, notes…"
            aria-label="Search the delivery log"
            title="Words found in a row’s model, event, notes, record id, event id or endpoint; every word must match"
            value={search}
            onChange={(event) => setSearch(event.target.value)}
          />
          <button
            type="button"
            className="button"
            disabled={downloading || !rows || rows.length === 0}
            title={`The newest ${LOG_CSV_ROWS.toLocaleString()} attempts this search shows, as a CSV file`}
            onClick={() => void downloadCsv()}
          >
            {downloading ? 'Downloading…' : 'Download CSV'}
          </button>
        </div>
      </div>
      {error && <ErrorState message={error} />}
      {!error && rows && rows.length === 0 && !search.trim() && (
        <EmptyState title="No deliveries yet">Change a field this webhook watches, or send a test delivery above, and the attempt shows here.</EmptyState>
      )}
      {!error && rows && rows.length === 0 && search.trim() !== '' && (
        <EmptyState title="No attempts match">Nothing in this webhook’s log matches “{search.trim()}”. Try fewer words, or a record id.</EmptyState>
      )}
      {rows && rows.length > 0 && (
        <div className="table-scroll" data-scrolls-sideways>
          <table className="table compact">
            <thead>
              <tr>
                <th>When</th>
                <th>Change made</th>
                <th>Record</th>
                <th>Event</th>
                <th>Attempt</th>
                <th>Result</th>
                <th>
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <Fragment key={row.id}>
                  <tr data-testid="delivery-row">
                    <td title={row.created_date}>{formatDateTime(row.created_date)}</td>
                    <td title={`${row.event_timestamp} (event ${row.event_id})`}>{formatDateTime(row.event_timestamp)}</td>
                    <td className="record-cell" title={`${row.model_name} ${row.model_pk}`}>
                      <span className="muted small">{row.model_name}</span> {recordName(row)}
                    </td>
                    <td>{isTestRow(row) ? 'Test delivery' : row.event_name}</td>
                    <td className="numeric">{row.attempt}</td>
                    <td>
                      <Badge tone={row.successful ? 'success' : 'danger'} title={row.notes}>
                        {row.successful ? 'Delivered' : 'Failed'}
                      </Badge>{' '}
                      {row.response_status != null && <span className="muted small">HTTP {row.response_status}</span>}
                      {!row.successful && row.notes && <div className="muted small">{row.notes}</div>}
                    </td>
                    <td className="row-actions">
                      {!isTestRow(row) && (
                        <>
                          <button type="button" className="link-button" aria-expanded={open?.id === row.id} onClick={() => void togglePayload(row.id)}>
                            {open?.id === row.id ? 'Hide payload' : 'Payload'}
                          </button>
                          <button type="button" className="link-button" disabled={redelivering === row.id} onClick={() => void redeliver(row)}>
                            Redeliver
                          </button>
                        </>
                      )}
                    </td>
                  </tr>
                  {open?.id === row.id && (
                    <tr className="payload-row" data-testid="payload-row">
                      <td colSpan={7}>
                        {open.error && <span className="field-error">{open.error}</span>}
                        {!open.payload && !open.error && <span className="muted">Loading the payload…</span>}
                        {open.payload && (
                          <>
                            <div className="muted small">
                              {open.payload.response_status !== null ? `The endpoint answered HTTP ${open.payload.response_status}.` : 'The endpoint did not answer.'}{' '}
                              {open.payload.notes !== `HTTP ${open.payload.response_status}` && open.payload.notes}
                            </div>
                            {open.payload.payload ? (
                              <pre className="payload">{JSON.stringify(open.payload.payload, null, 2)}</pre>
                            ) : (
                              <span className="muted">This attempt’s payload is no longer kept.</span>
                            )}
                          </>
                        )}
                      </td>
                    </tr>
                  )}
                </Fragment>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

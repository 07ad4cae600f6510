// Settings > Connections: the org's connections with partner organisations, for
// org admins (hosted-docs-facts.md section 4). Others see one line saying who sets
// them up. The list is read when this opens and after each write made here.
import './ConnectionsSection.css';
import { useEffect, useState } from 'react';
import type { ConnectedOrgJson } from '../../../../shared/schemas/connected-org.ts';
import { messageOf } from '../../api/api-client.ts';
import { connectionState, type ConnectionState, useConnectionsStore } from '../../stores/connections-store.ts';
import { useUiStore } from '../../stores/ui-store.ts';
import { Badge, type BadgeTone } from '../common/Badge.tsx';
import { useEscapeKey } from '../common/use-escape-key.ts';

const STATE_LABELS: Record<ConnectionState, { text: (partner: string) => string; tone: BadgeTone; title: string }> = {
  waiting: { text: () => 'Waiting for the partner', tone: 'warning', title: 'Asked: their admin has not accepted yet' },
  active: { text: () => 'Active', tone: 'success', title: 'Projects can be shared both ways' },
  disabled_by_you: { text: () => 'Disabled by you', tone: 'neutral', title: 'Sharing is paused both ways until you enable it again' },
  disabled_by_partner: { text: (partner) => `Disabled by ${partner}`, tone: 'neutral', title: 'Sharing is paused both ways until the partner enables it again' },
};

/**
 * Signed in, the local API is the sync agent's replica of one org: it cannot find a
 * partner by name, and sync does not carry connections to the remote (docs/sync.md).
 * Until it does, the panel says where connections are set up instead of failing.
 */
const SYNC_CARRIES_CONNECTIONS = false;

export function ConnectionsSection({ orgId, isAdmin, isSynced, remoteUrl }: { orgId: number; isAdmin: boolean; isSynced: boolean; remoteUrl: string | null }) {
  if (isSynced && !SYNC_CARRIES_CONNECTIONS) {
    return (
      <section className="card connections" data-testid="connections-section">
        <h2>Connections</h2>
        <p className="muted">
          Connections with partner organisations are set up on {remoteUrl ?? 'the remote'} for now: signed in, SolarDesk does not carry
          them yet.
        </p>
      </section>
    );
  }
  if (!isAdmin) {
    return (
      <section className="card connections" data-testid="connections-section">
        <h2>Connections</h2>
        <p className="muted">Connections with partner organisations are set up by your organisation’s admins.</p>
      </section>
    );
  }
  return <ConnectionsAdmin orgId={orgId} />;
}

function ConnectionsAdmin({ orgId }: { orgId: number }) {
  const connections = useConnectionsStore((state) => state.connections);
  const pending = useConnectionsStore((state) => state.pending);
  const status = useConnectionsStore((state) => state.status);
  const error = useConnectionsStore((state) => state.error);
  const busy = useConnectionsStore((state) => state.busy);
  const toast = useUiStore((state) => state.toast);

  useEffect(() => {
    void useConnectionsStore.getState().load(orgId);
  }, [orgId]);

  const run = (write: Promise<void>, done?: string) =>
    void write.then(
      () => done && toast(done),
      (failure) => toast(messageOf(failure), 'error'),
    );

  return (
    <section className="card connections" data-testid="connections-section" aria-labelledby="connections-title">
      <h2 id="connections-title">Connections</h2>
      <p className="muted">
        Connected organisations can share projects with each other. A project a partner shares with you shows in your list, read-only.
      </p>
      <AskToConnect />
      {pending.length > 0 && (
        <div className="connections-group">
          <h3>Asking to connect</h3>
          <ul className="card-list" data-testid="connection-requests">
            {pending.map((request) => (
              <li key={request.item_id} className="card-row" data-testid="connection-request">
                <span className="connection-name" title={request.org_from_name}>
                  <strong>{request.org_from_name}</strong> asks to connect
                </span>
                <span className="card-actions">
                  <button
                    type="button"
                    className="button button-primary"
                    disabled={busy.includes(request.org_from_id)}
                    onClick={() => run(useConnectionsStore.getState().accept(request), `Connected to ${request.org_from_name}.`)}
                  >
                    Accept
                  </button>
                  <button type="button" className="button" disabled={busy.includes(request.org_from_id)} onClick={() => run(useConnectionsStore.getState().decline(request))}>
                    Decline
                  </button>
                </span>
              </li>
            ))}
          </ul>
        </div>
      )}
      <div className="connections-group">
        <h3>Your connections</h3>
        {status === 'loading' && <p className="muted">Loading connections…</p>}
        {status === 'error' && (
          <p className="field-error" role="alert">
            {error} <button type="button" className="button" onClick={() => void useConnectionsStore.getState().load(orgId)}>Try again</button>
          </p>
        )}
        {status === 'ready' && connections.length === 0 && <p className="muted">No connections yet. Ask a partner organisation above.</p>}
        {connections.length > 0 && (
          <ul className="card-list" data-testid="connection-list">
            {connections.map((connection) => (
              <ConnectionRow key={connection.id} connection={connection} isBusy={busy.includes(connection.id)} run={run} />
            ))}
          </ul>
        )}
      </div>
    </section>
  );
}

function AskToConnect() {
  const [name, setName] = useState('');
  const askError = useConnectionsStore((state) => state.askError);
  const isAsking = useConnectionsStore((state) => state.isAsking);
  const toast = useUiStore((state) => state.toast);
  return (
    <form
      className="ask-to-connect"
      onSubmit={(event) => {
        event.preventDefault();
        const orgName = name.trim();
        void useConnectionsStore
          .getState()
          .ask(orgName)
          .then((sent) => {
            if (!sent) return;
            setName('');
            toast(`Asked ${orgName} to connect. It shows as waiting until their admin accepts.`);
          });
      }}
    >
      <label className="field" htmlFor="connect-org-name">
        <span>Ask to connect</span>
      </label>
      <div className="inline-form">
        <input
          id="connect-org-name"
          placeholder="The partner organisation’s exact name"
          value={name}
          aria-invalid={askError !== null}
          aria-describedby="connect-org-name-error"
          onChange={(event) => {
            setName(event.target.value);
            if (askError !== null) useConnectionsStore.getState().clearAskError();
          }}
        />
        <button type="submit" className="button button-primary" disabled={isAsking || name.trim() === ''}>
          {isAsking ? 'Asking…' : 'Ask to connect'}
        </button>
      </div>
      <p id="connect-org-name-error" className="field-error" role={askError ? 'alert' : undefined}>
        {askError ?? ''}
      </p>
    </form>
  );
}

function ConnectionRow({ connection, isBusy, run }: { connection: ConnectedOrgJson; isBusy: boolean; run: (write: Promise<void>, done?: string) => void }) {
  const [isConfirming, setConfirming] = useState(false);
  useEscapeKey(() => setConfirming(false), isConfirming);
  const state = connectionState(connection);
  const label = STATE_LABELS[state];
  const partner = connection.org_name;
  return (
    <li className="connection-row" data-testid="connection-row">
      <div className="card-row">
        <span className="connection-name" title={partner}>
          <strong>{partner}</strong>
        </span>
        <span className="card-actions">
          <Badge tone={label.tone} title={label.title}>
            <span data-testid="connection-state">{label.text(partner)}</span>
          </Badge>
          {state !== 'waiting' && (
            <label className="switch" title={connection.is_active ? 'Enabled on your side: uncheck to pause sharing' : 'Disabled on your side: check to share again'}>
              <input
                type="checkbox"
                checked={connection.is_active}
                disabled={isBusy}
                aria-label={`Enable the connection with ${partner}`}
                onChange={(event) => run(useConnectionsStore.getState().setActive(connection, event.target.checked))}
              />
              <span>{connection.is_active ? 'On' : 'Off'}</span>
            </label>
          )}
          <button type="button" className="button" disabled={isBusy || isConfirming} onClick={() => setConfirming(true)}>
            {state === 'waiting' ? 'Withdraw' : 'Remove'}
          </button>
        </span>
      </div>
      {isConfirming && (
        <div className="connection-confirm" role="alertdialog" aria-label={`Remove the connection with ${partner}`}>
          <p>
            Remove the connection with <strong>{partner}</strong>? All sharing with {partner} ends: projects you share with them disappear from their list, and
            theirs from yours. To share again, one of you has to ask to connect again.
          </p>
          <span className="card-actions">
            <button
              type="button"
              className="button button-danger"
              disabled={isBusy}
              onClick={() => {
                setConfirming(false);
                run(useConnectionsStore.getState().remove(connection), `The connection with ${partner} is removed.`);
              }}
            >
              Remove connection
            </button>
            <button type="button" className="button" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </span>
        </div>
      )}
    </li>
  );
}

import './WebhooksView.css';
import { useEffect, useState } from 'react';
import { useWebhooksStore } from '../../stores/webhooks-store.ts';
import { EmptyState } from '../common/EmptyState.tsx';
import { ErrorState } from '../common/ErrorState.tsx';
import { LoadingState } from '../common/LoadingState.tsx';
import { DeliveryLog } from './DeliveryLog.tsx';
import { WebhookEditor } from './WebhookEditor.tsx';
import { WebhookList } from './WebhookList.tsx';

export function WebhooksView({ orgId, isAdmin }: { orgId: number; isAdmin: boolean }) {
  const status = useWebhooksStore((state) => state.status);
  const error = useWebhooksStore((state) => state.error);
  const webhooks = useWebhooksStore((state) => state.webhooks);
  const [selected, setSelected] = useState<number | 'new' | null>(null);

  useEffect(() => {
    if (isAdmin) void useWebhooksStore.getState().load(orgId);
  }, [orgId, isAdmin]);

  if (!isAdmin) return <EmptyState title="Webhooks are for organisation admins">Their headers often carry an integration’s credentials.</EmptyState>;
  const webhook = typeof selected === 'number' ? webhooks.find((candidate) => candidate.id === selected) : undefined;

  return (
    <div className="webhooks-view">
      <section className="list-pane" aria-label="Webhooks">
        <div className="pane-head">
          <h1>Webhooks</h1>
          <button type="button" className="button button-primary" onClick={() => setSelected('new')}>
            New webhook
          </button>
        </div>
        {status === 'loading' && <LoadingState label="Loading webhooks…" />}
        {status === 'error' && <ErrorState message={error ?? ''} onRetry={() => void useWebhooksStore.getState().load(orgId)} />}
        {status === 'ready' && webhooks.length === 0 && (
          <EmptyState title="No webhooks yet">A webhook calls your endpoint when chosen fields of projects, contacts or events change.</EmptyState>
        )}
        <WebhookList selectedId={typeof selected === 'number' ? selected : null} onSelect={setSelected} />
      </section>
      <section className="detail-pane" aria-label="Webhook">
        {selected === null && <EmptyState title="Pick a webhook, or make a new one" />}
        {selected === 'new' && <WebhookEditor key="new" webhook={null} onSaved={(saved) => setSelected(saved.id)} onDeleted={() => setSelected(null)} />}
        {webhook && (
          <>
            <WebhookEditor key={webhook.id} webhook={webhook} onSaved={() => {}} onDeleted={() => setSelected(null)} />
            <DeliveryLog webhookId={webhook.id} />
          </>
        )}
      </section>
    </div>
  );
}

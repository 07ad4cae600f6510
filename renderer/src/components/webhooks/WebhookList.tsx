import './WebhookList.css';
import { messageOf } from '../../api/api-client.ts';
import { countOf } from '../../../../shared/words.ts';
import { useUiStore } from '../../stores/ui-store.ts';
import { useWebhooksStore } from '../../stores/webhooks-store.ts';

export function WebhookList({ selectedId, onSelect }: { selectedId: number | null; onSelect: (id: number) => void }) {
  const webhooks = useWebhooksStore((state) => state.webhooks);
  const toast = useUiStore((state) => state.toast);
  return (
    <ul className="webhook-list" data-testid="webhook-list">
      {webhooks.map((webhook) => (
        <li key={webhook.id} className={`webhook-item${webhook.id === selectedId ? ' is-open' : ''}`} data-testid="webhook-item">
          <button type="button" className="webhook-open" onClick={() => onSelect(webhook.id)}>
            <span className="webhook-endpoint" title={webhook.endpoint}>
              {webhook.endpoint}
            </span>
            <span className="muted">
              {/* null means every field (shared/schemas/webhook.ts), not none. */}
              {webhook.trigger_fields === null ? 'Any change' : countOf(webhook.trigger_fields.length, 'trigger field')} ·{' '}
              {webhook.payload_fields === null ? 'whole records' : countOf(webhook.payload_fields.length, 'field sent', 'fields sent')}
            </span>
          </button>
          {/* One control for on/off: the switch shows the state itself (no badge beside it saying it again). */}
          <input
            type="checkbox"
            role="switch"
            className="switch"
            checked={webhook.enabled}
            aria-label={`Enable ${webhook.endpoint}`}
            title={webhook.enabled ? 'On: deliveries go out. Turn off to hold them.' : 'Off: deliveries wait. Turn on to send them.'}
            onChange={(event) => void useWebhooksStore.getState().setEnabled(webhook.id, event.target.checked).catch((error) => toast(messageOf(error), 'error'))}
          />
        </li>
      ))}
    </ul>
  );
}

import { useState } from 'react';
import { DEFAULT_PAYLOAD_FIELDS, DEFAULT_TRIGGER_FIELDS } from '../../../../shared/webhook-fields.ts';
import { ApiFailure, messageOf } from '../../api/api-client.ts';
import type { WebhookJson } from '../../../../shared/schemas/webhook.ts';
import { describeHeadersProblems } from '../../webhooks/field-paths.ts';
import { useUiStore } from '../../stores/ui-store.ts';
import { type WebhookDraft, useWebhooksStore } from '../../stores/webhooks-store.ts';
import { FieldPathPicker } from './FieldPathPicker.tsx';
import { HeadersEditor } from './HeadersEditor.tsx';

const PATH_LISTS = [
  {
    field: 'trigger_fields',
    title: 'Trigger fields',
    help: 'The webhook fires when one of these changes. A model not listed never fires it.',
    defaults: DEFAULT_TRIGGER_FIELDS,
  },
  {
    field: 'payload_fields',
    title: 'Payload fields',
    help: 'What the JSON sent to the endpoint carries. A model not listed is sent whole.',
    defaults: DEFAULT_PAYLOAD_FIELDS,
  },
] as const;

function endpointProblem(endpoint: string): string | null {
  try {
    const url = new URL(endpoint);
    return url.protocol === 'http:' || url.protocol === 'https:' ? null : 'The endpoint must be an http or https URL.';
  } catch {
    return endpoint.trim() === '' ? 'Where should the webhook POST to?' : 'Enter a full URL, such as https://example.com/hooks/solar.';
  }
}

function draftOf(webhook: WebhookJson | null): WebhookDraft {
  return {
    endpoint: webhook?.endpoint ?? '',
    enabled: webhook?.enabled ?? true,
    debug: webhook?.debug ?? false,
    // A new webhook starts from the documented defaults (service.md 6, rule 4).
    trigger_fields: webhook ? (webhook.trigger_fields ?? []) : [...DEFAULT_TRIGGER_FIELDS],
    payload_fields: webhook ? (webhook.payload_fields ?? []) : [...DEFAULT_PAYLOAD_FIELDS],
    headers: webhook?.headers ?? '',
  };
}

export function WebhookEditor({ webhook, onSaved, onDeleted }: { webhook: WebhookJson | null; onSaved: (webhook: WebhookJson) => void; onDeleted: () => void }) {
  const [draft, setDraft] = useState(() => draftOf(webhook));
  const [serverErrors, setServerErrors] = useState<Record<string, string[]>>({});
  const [isBusy, setBusy] = useState(false);
  const toast = useUiStore((state) => state.toast);
  const endpointError = endpointProblem(draft.endpoint);
  const headerProblems = describeHeadersProblems(draft.headers);
  const canSave = !endpointError && headerProblems.length === 0 && !isBusy;
  const change = (patch: Partial<WebhookDraft>) => setDraft({ ...draft, ...patch });

  const save = async () => {
    setBusy(true);
    try {
      const saved = await useWebhooksStore.getState().save(webhook?.id ?? null, draft);
      setServerErrors({});
      toast(webhook ? 'Webhook saved' : 'Webhook created');
      onSaved(saved);
    } catch (error) {
      if (error instanceof ApiFailure) setServerErrors(error.fieldErrors);
      toast(messageOf(error), 'error');
    } finally {
      setBusy(false);
    }
  };

  const remove = async () => {
    if (!webhook || !window.confirm(`Delete the webhook to ${webhook.endpoint}? Deliveries still waiting are dropped.`)) return;
    try {
      await useWebhooksStore.getState().remove(webhook.id);
      onDeleted();
    } catch (error) {
      toast(messageOf(error), 'error');
    }
  };

  return (
    <form
      className="webhook-editor"
      data-testid="webhook-editor"
      onSubmit={(event) => {
        event.preventDefault();
        if (canSave) void save();
      }}
    >
      <h2>{webhook ? 'Edit webhook' : 'New webhook'}</h2>
      <div className={`field field-wide${endpointError && draft.endpoint ? ' has-error' : ''}`}>
        <label htmlFor="webhook-endpoint">Endpoint</label>
        <input id="webhook-endpoint" type="url" placeholder="https://example.com/hooks/solar" value={draft.endpoint} onChange={(event) => change({ endpoint: event.target.value })} />
        {draft.endpoint && endpointError && <span className="field-error">{endpointError}</span>}
        {serverErrors.endpoint && <span className="field-error">{serverErrors.endpoint[0]}</span>}
      </div>
      <div className="check-row">
        <label>
          <input type="checkbox" checked={draft.enabled} onChange={(event) => change({ enabled: event.target.checked })} /> Enabled
        </label>
        <label title="Accepted by the service but has no effect">
          <input type="checkbox" checked={draft.debug} onChange={(event) => change({ debug: event.target.checked })} /> Debug
        </label>
      </div>
      {PATH_LISTS.map((list) => (
        <FieldPathPicker key={list.field} title={list.title} help={list.help} paths={draft[list.field]} defaults={list.defaults} onChange={(paths) => change({ [list.field]: paths })} />
      ))}
      <HeadersEditor value={draft.headers} problems={[...headerProblems, ...(serverErrors.headers ?? [])]} onChange={(headers) => change({ headers })} />
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={!canSave}>
          {webhook ? 'Save webhook' : 'Create webhook'}
        </button>
        {webhook && (
          <button type="button" className="button button-danger" onClick={() => void remove()}>
            Delete
          </button>
        )}
      </div>
    </form>
  );
}

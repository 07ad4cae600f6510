import './WebhookEditor.css';
import { useState } from 'react';
import { DEFAULT_PAYLOAD_FIELDS, DEFAULT_TRIGGER_FIELDS } from '../../../../shared/webhook-fields.ts';
import type { WebhookJson, WebhookTestResultJson } from '../../../../shared/schemas/webhook.ts';
import { isLocalNetworkEndpoint, LOCAL_WEBHOOKS_SETTING } from '../../../../shared/local-webhooks.ts';
import { ApiFailure, messageOf } from '../../api/api-client.ts';
import { useSessionStore } from '../../stores/session-store.ts';
import { useUiStore } from '../../stores/ui-store.ts';
import { useWebhooksStore } from '../../stores/webhooks-store.ts';
import { DRAFT_FIELDS, type DraftField, type WebhookDraft, changedFields, draftOf, draftProblems, hasProblems, rebase, writeBody } from '../../webhooks/webhook-draft.ts';
import { testResultSentence } from '../../webhooks/test-result-words.ts';
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

const FIELD_NAMES: Record<DraftField, string> = {
  endpoint: 'endpoint',
  enabled: 'Enabled',
  debug: 'Debug',
  trigger_fields: 'trigger fields',
  payload_fields: 'payload fields',
  headers: 'headers',
};

interface EditorState {
  /** The record as the draft last saw it; null for a new webhook. */
  base: WebhookJson | null;
  draft: WebhookDraft;
  /** Fields the person changed that were also changed elsewhere meanwhile. */
  clashes: DraftField[];
}

export function WebhookEditor({ webhook, onSaved, onDeleted }: { webhook: WebhookJson | null; onSaved: (webhook: WebhookJson) => void; onDeleted: () => void }) {
  const [state, setState] = useState<EditorState>(() => ({ base: webhook, draft: draftOf(webhook), clashes: [] }));
  const [serverErrors, setServerErrors] = useState<Partial<Record<DraftField, string[]>>>({});
  const [endpointTouched, setEndpointTouched] = useState(false);
  const [isBusy, setBusy] = useState(false);
  const [test, setTest] = useState<{ running: boolean; result?: WebhookTestResultJson; error?: string }>({ running: false });
  const toast = useUiStore((store) => store.toast);
  // This app delivers webhooks only on the embedded store; signed in, the remote does and decides for itself.
  const deliversHere = useSessionStore((store) => store.session?.mode === 'embedded');
  const allowsLocal = useSessionStore((store) => store.settings?.localWebhooks === true);

  // The record changed elsewhere (the list's switch, another window, sync): fields
  // not edited here follow it; edited ones keep the person's value.
  if (webhook && webhook !== state.base) {
    const next = rebase(state.draft, state.base, webhook);
    setState({ base: webhook, draft: next.draft, clashes: [...new Set([...state.clashes, ...next.clashes])] });
  }

  const { draft, base } = state;
  const problems = draftProblems(draft);
  const changed = changedFields(draft, base);
  const isDirty = base === null || changed.length > 0;
  const canSave = !hasProblems(problems) && !isBusy && isDirty;
  const change = (patch: Partial<WebhookDraft>) => {
    setState({ ...state, draft: { ...draft, ...patch } });
    const cleared = { ...serverErrors };
    for (const field of Object.keys(patch) as DraftField[]) delete cleared[field];
    setServerErrors(cleared);
  };

  const save = async () => {
    setBusy(true);
    try {
      const saved = await useWebhooksStore.getState().save(webhook?.id ?? null, writeBody(draft, base));
      setServerErrors({});
      setState({ base: saved, draft: draftOf(saved), clashes: [] });
      toast(webhook ? 'Webhook saved' : 'Webhook created');
      onSaved(saved);
    } catch (error) {
      const fieldErrors = error instanceof ApiFailure ? error.fieldErrors : {};
      const mapped = Object.fromEntries(Object.entries(fieldErrors).filter(([field]) => (DRAFT_FIELDS as readonly string[]).includes(field)));
      setServerErrors(mapped);
      const unmapped = Object.entries(fieldErrors).filter(([field]) => !(field in mapped));
      if (Object.keys(mapped).length > 0 && unmapped.length === 0) toast('The webhook was not saved: see the marked fields.', 'error');
      else toast(unmapped[0]?.[1][0] ?? messageOf(error), 'error');
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

  const sendTest = async () => {
    if (!webhook) return;
    setTest({ running: true });
    try {
      setTest({ running: false, result: await useWebhooksStore.getState().testDelivery(webhook.id) });
    } catch (error) {
      setTest({ running: false, error: messageOf(error) });
    }
  };

  const isUndeliverableHere = deliversHere && !allowsLocal && isLocalNetworkEndpoint(draft.endpoint.trim());
  const endpointErrors = [...(endpointTouched || draft.endpoint !== '' ? [problems.endpoint].filter((problem) => problem !== null) : []), ...(serverErrors.endpoint ?? [])];

  return (
    <form
      className="webhook-editor"
      data-testid="webhook-editor"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        setEndpointTouched(true);
        if (canSave) void save();
      }}
    >
      <h2>{webhook ? 'Edit webhook' : 'New webhook'}</h2>
      {state.clashes.length > 0 && (
        <p className="notice" role="status">
          Changed elsewhere while you edited: {state.clashes.map((field) => FIELD_NAMES[field]).join(', ')}. Saving keeps your values; the other fields show the latest.
        </p>
      )}
      <div className={`field field-wide${endpointErrors.length ? ' has-error' : ''}`}>
        <label htmlFor="webhook-endpoint">Endpoint</label>
        <input
          id="webhook-endpoint"
          type="url"
          placeholder="https://example.com/hooks/solar"
          value={draft.endpoint}
          aria-invalid={endpointErrors.length > 0 || undefined}
          aria-describedby="webhook-endpoint-error"
          onBlur={() => setEndpointTouched(true)}
          onChange={(event) => change({ endpoint: event.target.value })}
        />
        <span id="webhook-endpoint-error">
          {endpointErrors.map((message) => (
            <span key={message} className="field-error" role="alert">
              {message}
            </span>
          ))}
          {isUndeliverableHere && (
            <span className="field-warning" role="status" data-testid="local-endpoint-warning">
              This endpoint is on this computer or the local network, and webhooks to those are off: it can be saved, but nothing is delivered to it until you turn on “
              {LOCAL_WEBHOOKS_SETTING}” in Settings.
            </span>
          )}
        </span>
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
        <FieldPathPicker
          key={list.field}
          field={list.field}
          title={list.title}
          help={list.help}
          paths={draft[list.field]}
          defaults={list.defaults}
          errors={serverErrors[list.field] ?? []}
          onChange={(paths) => change({ [list.field]: paths })}
        />
      ))}
      <HeadersEditor rows={draft.headers} problems={problems.headers} errors={serverErrors.headers ?? []} onChange={(headers) => change({ headers })} />
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={!canSave}>
          {webhook ? 'Save webhook' : 'Create webhook'}
        </button>
        {webhook && !isDirty && <span className="muted">No unsaved changes</span>}
        {webhook && (
          <button type="button" className="button button-danger" onClick={() => void remove()}>
            Delete
          </button>
        )}
      </div>
      {webhook && (
        <section className="test-delivery" aria-label="Test delivery" data-testid="test-delivery">
          <div className="test-delivery-head">
            <button type="button" className="button" disabled={test.running} onClick={() => void sendTest()}>
              {test.running ? 'Sending…' : 'Send test delivery'}
            </button>
            <span className="muted">
              {isDirty ? 'Uses the saved settings: save first to test your changes.' : 'Sends the latest changed project, as this webhook would, marked X-SolarDesk-Test.'}
            </span>
          </div>
          {test.error && (
            <span className="field-error" role="alert">
              {test.error}
            </span>
          )}
          {test.result && (
            <div className="test-result" data-testid="test-result">
              <strong className={test.result.successful ? 'text-success' : 'text-danger'}>{testResultSentence(test.result)}</strong>
              <details>
                <summary>Payload sent</summary>
                <pre className="payload">{JSON.stringify(test.result.payload, null, 2)}</pre>
              </details>
            </div>
          )}
        </section>
      )}
    </form>
  );
}

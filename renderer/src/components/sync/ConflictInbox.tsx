import './ConflictInbox.css';
import { useEffect, useRef, useState } from 'react';
import type { SyncConflictJson } from '../../../../shared/sync-api.ts';
import { messageOf } from '../../api/api-client.ts';
import { fieldLabelOf } from '../../../../shared/field-labels.ts';
import { useSyncStore } from '../../stores/sync-store.ts';
import { useUiStore } from '../../stores/ui-store.ts';
import { useRecordLabel } from './use-record-label.ts';

const show = (value: unknown) => (value === null || value === undefined || value === '' ? '(empty)' : typeof value === 'string' ? value : JSON.stringify(value, null, 2));

/** Fields changed here and on the remote to different values: both shown side by side, the user picks. */
export function ConflictInbox() {
  const conflicts = useSyncStore((state) => state.conflicts);
  if (conflicts.length === 0) return null;
  return (
    <section className="card" aria-label="Conflicts" data-testid="conflict-inbox">
      <h2>Conflicts ({conflicts.length})</h2>
      <p className="muted">Both sides changed these fields, or the server did not take a value sent. Nothing is lost until you choose.</p>
      <ul className="card-list">
        {conflicts.map((conflict) => (
          <ConflictCard key={conflict.id} conflict={conflict} />
        ))}
      </ul>
    </section>
  );
}

function ConflictCard({ conflict }: { conflict: SyncConflictJson }) {
  const [choice, setChoice] = useState<'local' | 'remote' | 'value'>('local');
  const [custom, setCustom] = useState(() => show(conflict.local_value));
  const toast = useUiStore((state) => state.toast);
  const recordLabel = useRecordLabel();
  // Opened from an activity entry (Resolve the conflict): brought into sight and marked.
  const isFocused = useUiStore((state) => state.focusedConflictId === conflict.id);
  const card = useRef<HTMLLIElement>(null);
  useEffect(() => {
    if (isFocused) card.current?.scrollIntoView({ block: 'center' });
  }, [isFocused]);
  const resolve = () => {
    let value: unknown = custom;
    if (choice === 'value' && typeof conflict.local_value !== 'string') {
      try {
        value = JSON.parse(custom);
      } catch {
        toast('The value must be JSON for this field.', 'error');
        return;
      }
    }
    // What the user saw: neither a local edit made since nor a newer remote value may be replaced unseen by this choice.
    const body = { ...(choice === 'value' ? { choice, value } : { choice }), local_value: conflict.local_value, remote_value: conflict.remote_value };
    void useSyncStore.getState().resolve(conflict.id, body).catch((error) => toast(messageOf(error), 'error'));
  };
  return (
    <li ref={card} className={`conflict${isFocused ? ' is-focused' : ''}`} data-testid="conflict" data-conflict-id={conflict.id} aria-current={isFocused || undefined}>
      <div className="conflict-head">
        <strong>{recordLabel(conflict.model, conflict.record_id)}</strong> · {fieldLabelOf(conflict.model, conflict.field)}
      </div>
      {conflict.reason && (
        <p className="muted" data-testid="conflict-reason">
          {conflict.reason}
        </p>
      )}
      <div className="conflict-sides">
        <label className={`conflict-side${choice === 'local' ? ' is-chosen' : ''}`}>
          <input type="radio" name={`conflict-${conflict.id}`} checked={choice === 'local'} onChange={() => setChoice('local')} />
          <span className="side-title">This computer</span>
          <pre>{show(conflict.local_value)}</pre>
        </label>
        <label className={`conflict-side${choice === 'remote' ? ' is-chosen' : ''}`}>
          <input type="radio" name={`conflict-${conflict.id}`} checked={choice === 'remote'} onChange={() => setChoice('remote')} />
          <span className="side-title">Remote</span>
          <pre>{show(conflict.remote_value)}</pre>
        </label>
        <label className={`conflict-side${choice === 'value' ? ' is-chosen' : ''}`}>
          <input type="radio" name={`conflict-${conflict.id}`} checked={choice === 'value'} onChange={() => setChoice('value')} />
          <span className="side-title">Something else</span>
          <textarea rows={2} value={custom} onChange={(event) => setCustom(event.target.value)} onFocus={() => setChoice('value')} />
        </label>
      </div>
      <button type="button" className="button button-primary" onClick={resolve}>
        {conflict.reason
          ? choice === 'local'
            ? 'Keep mine (send again)'
            : choice === 'remote'
              ? 'Take the server’s'
              : 'Keep my value (send it)'
          : `Keep ${choice === 'local' ? 'this computer’s value' : choice === 'remote' ? 'the remote’s value' : 'my value'}`}
      </button>
    </li>
  );
}

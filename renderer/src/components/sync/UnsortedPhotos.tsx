// The inbox folder (Unsorted, issue 17) on the Sync screen: what it attached by itself
// (said in a sentence, each undoable), and what waits there with the nearest sites to
// choose from. The core looks at the folder; this view follows `inbox.changed`.
import './UnsortedPhotos.css';
import { useEffect, useState } from 'react';
import { formatDistance } from '../../../../shared/geo.ts';
import { INBOX_FOLDER, type InboxState } from '../../../../shared/photos.ts';
import { messageOf } from '../../api/api-client.ts';
import { requireBridge } from '../../bridge-client.ts';
import { formatBytes, formatDateTime } from '../../format.ts';
import { useUiStore } from '../../stores/ui-store.ts';

/** How many of the latest attachments are listed for undo. */
const RECENT = 8;

export function UnsortedPhotos() {
  const [state, setState] = useState<InboxState | null>(null);
  const [busy, setBusy] = useState<string | null>(null);

  useEffect(() => {
    const bridge = requireBridge();
    let isCurrent = true;
    bridge
      .invoke('inbox.list')
      .then((listed) => isCurrent && setState(listed))
      .catch((error: unknown) => useUiStore.getState().toast(`Could not look at ${INBOX_FOLDER}: ${messageOf(error)}`, 'error'));
    const unsubscribe = bridge.subscribe('inbox.changed', (next) => setState(next));
    return () => {
      isCurrent = false;
      unsubscribe();
    };
  }, []);

  const run = async (key: string, work: () => Promise<InboxState>, failure: string) => {
    setBusy(key);
    try {
      setState(await work());
    } catch (error) {
      useUiStore.getState().toast(`${failure}: ${messageOf(error)}`, 'error');
    } finally {
      setBusy(null);
    }
  };

  if (!state || !state.folder) return null;
  const recent = state.log.filter((entry) => !entry.undoneAt).slice(0, RECENT);
  if (state.waiting.length === 0 && recent.length === 0 && !state.problem) return null;

  return (
    <section className="card" aria-label="Unsorted photos" data-testid="unsorted-photos">
      <h2>Unsorted photos</h2>
      <p className="muted">
        Photos dropped into <code>{state.folder}</code> are attached to the project whose site they were taken within 150 m of, when there is exactly one. The rest wait
        here: choose their project.
      </p>
      {state.problem && <p className="warning-text">{state.problem}</p>}
      {state.lastBatch && (
        <p role="status" data-testid="inbox-batch">
          {state.lastBatch.text} <span className="muted">({formatDateTime(state.lastBatch.at)})</span>
        </p>
      )}
      {state.waiting.length > 0 && (
        <ul className="card-list" data-testid="inbox-waiting">
          {state.waiting.map((item) => (
            <li key={item.name} className="card-row inbox-item" data-testid="inbox-item">
              <span className="held-delete-text">
                <strong>{item.name}</strong>
                <span className="muted">
                  {formatBytes(item.size)}
                  {item.takenAt ? ` · taken ${formatDateTime(item.takenAt)}` : ''} · {item.why}
                </span>
              </span>
              <span className="card-actions">
                {item.candidates.map((candidate) => (
                  <button
                    key={candidate.projectId}
                    type="button"
                    className="button"
                    disabled={busy !== null}
                    onClick={() =>
                      void run(item.name, () => requireBridge().invoke('inbox.attach', { name: item.name, projectId: candidate.projectId }), `Could not attach ${item.name}`)
                    }
                  >
                    {candidate.title} · {formatDistance(candidate.distanceM)}
                  </button>
                ))}
                {item.candidates.length === 0 && <span className="muted">Attach it from a project's Files tab, or move it into the project's folder.</span>}
              </span>
            </li>
          ))}
        </ul>
      )}
      {recent.length > 0 && (
        <>
          <h3>Attached from {INBOX_FOLDER}</h3>
          <ul className="card-list" data-testid="inbox-log">
            {recent.map((entry) => (
              <li key={entry.id} className="card-row inbox-item" data-testid="inbox-entry">
                <span className="held-delete-text">
                  <span>
                    <strong>{entry.name}</strong> → {entry.projectTitle}
                  </span>
                  <span className="muted">
                    {entry.how === 'matched' ? `taken ${entry.distanceM === null ? '' : formatDistance(entry.distanceM)} from its site` : 'your choice'} ·{' '}
                    {formatDateTime(entry.at)}
                  </span>
                </span>
                <span className="card-actions">
                  <button
                    type="button"
                    className="button"
                    disabled={busy !== null}
                    onClick={() => void run(entry.id, () => requireBridge().invoke('inbox.undo', { entryId: entry.id }), `Could not undo ${entry.name}`)}
                  >
                    Undo
                  </button>
                </span>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

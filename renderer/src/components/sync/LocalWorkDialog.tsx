import './LocalWorkDialog.css';
import { useEffect, useMemo, useState } from 'react';
import type { LocalWorkItem } from '../../../../shared/bridge.ts';
import { labelsOf } from '../../format.ts';
import { useLocalWorkStore } from '../../stores/local-work-store.ts';
import { useEscapeKey } from '../common/use-escape-key.ts';

const KIND_LABELS: Record<LocalWorkItem['kind'], string> = { project: 'Project', contact: 'Contact', private_file: 'File', webhook: 'Webhook' };

function describeChange(item: LocalWorkItem): string {
  const where = item.projectTitle ? ` · in ${item.projectTitle}` : '';
  if (item.change === 'created') return `Made on this computer${where}`;
  const fields = labelsOf(item.fields).map((label) => label.toLowerCase());
  return `Changed on this computer${fields.length > 0 ? `: ${fields.slice(0, 4).join(', ')}${fields.length > 4 ? ` and ${fields.length - 4} more` : ''}` : ''}${where}`;
}

/**
 * What sending does on the server, said beforehand (issue 28, item 11): every item sent is
 * made there as a new record. A record of this computer's demo data that was changed here
 * was never on the server, so it does not update one there: it becomes a second record of
 * the same name beside whatever the server already has.
 */
function whatSendingMakes(item: LocalWorkItem, orgName: string): string {
  const kind = KIND_LABELS[item.kind].toLowerCase();
  return item.change === 'changed' ? `Sent, it becomes a new ${kind} on ${orgName}, beside any of the same name there` : `Sent, it becomes a new ${kind} on ${orgName}`;
}

/** The changed sample records, named: the server never had them, so each one sent is a second record of its name there. */
function sampleDataSentence(changedHere: readonly LocalWorkItem[]): string {
  if (changedHere.length === 1) {
    return `“${changedHere[0]!.title}” is this computer’s sample data, changed here: the server never had it, so sending it makes a second record of that name there, beside any it already has.`;
  }
  const named = changedHere.slice(0, 3).map((item) => `“${item.title}”`).join(', ');
  const more = changedHere.length > 3 ? ` and ${changedHere.length - 3} more` : '';
  return `${named}${more} are this computer’s sample data, changed here: the server never had them, so sending makes a second record of each name there, beside any it already has.`;
}

/**
 * After a sign-in: what exists only on this computer, to send to the signed-in org
 * (all, or item by item) or keep in the local workspace. Closing it decides nothing:
 * the offer stays on the Sync screen.
 */
export function LocalWorkDialog() {
  const offer = useLocalWorkStore((state) => state.offer);
  const isOpen = useLocalWorkStore((state) => state.isDialogOpen);
  const isBusy = useLocalWorkStore((state) => state.isBusy);
  const progress = useLocalWorkStore((state) => state.progress);
  const lastResult = useLocalWorkStore((state) => state.lastResult);
  const error = useLocalWorkStore((state) => state.error);
  const items = useMemo(() => offer?.items ?? [], [offer]);
  // Everything is chosen unless unticked; what went up leaves the list, and so the choice.
  const [unchosen, setUnchosen] = useState<ReadonlySet<string>>(new Set());
  const chosen = useMemo(() => new Set(items.filter((item) => !unchosen.has(item.key)).map((item) => item.key)), [items, unchosen]);
  // Escape is "Decide later": it closes the dialog and decides nothing (not while a send is running).
  useEscapeKey(() => useLocalWorkStore.getState().closeDialog(), isOpen && !isBusy);

  if (!isOpen || !offer) return null;
  const orgName = offer.orgName ?? 'your office';
  const toggle = (key: string) =>
    setUnchosen((previous) => {
      const next = new Set(previous);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });
  const allChosen = items.length > 0 && items.every((item) => chosen.has(item.key));
  const changedHere = items.filter((item) => item.change === 'changed');

  return (
    <div className="dialog-backdrop">
      <section className="dialog local-work-dialog" role="dialog" aria-modal="true" aria-labelledby="local-work-title" data-testid="local-work-dialog">
        <h2 id="local-work-title">Work that is only on this computer</h2>
        {items.length > 0 ? (
          <p>
            Before you signed in, you worked on this computer. {items.length === 1 ? 'This record is' : `These ${items.length} records are`} not on{' '}
            <strong>{orgName}</strong> ({offer.remoteUrl}). Send them there, or keep them on this computer: “On this computer” in the sidebar opens them at any
            time. Nothing is deleted either way.
          </p>
        ) : (
          <p>Everything that was only on this computer is now on {orgName}. The copies on this computer stay in “On this computer”.</p>
        )}
        {items.length > 0 && (
          <p data-testid="local-work-new-records">
            Whatever you send is made on {orgName} as a <strong>new</strong> record: nothing there is changed or replaced.
            {changedHere.length > 0 && ` ${sampleDataSentence(changedHere)}`}
          </p>
        )}
        {items.length > 0 && (
          <>
            <label className="local-work-all">
              <input type="checkbox" checked={allChosen} disabled={isBusy} onChange={() => setUnchosen(allChosen ? new Set(items.map((item) => item.key)) : new Set())} />
              All {items.length}
            </label>
            <ul className="local-work-list" aria-label="Only on this computer">
              {items.map((item) => (
                <li key={item.key} data-testid="local-work-item">
                  <label>
                    <input type="checkbox" checked={chosen.has(item.key)} disabled={isBusy} onChange={() => toggle(item.key)} />
                    <span className="local-work-kind">{KIND_LABELS[item.kind]}</span>
                    <span className="local-work-title" title={item.title}>
                      {item.title}
                    </span>
                  </label>
                  <small className="muted">
                    {describeChange(item)}. {whatSendingMakes(item, orgName)}.
                  </small>
                </li>
              ))}
            </ul>
          </>
        )}
        {progress && progress.total > 0 && (
          <p role="status" data-testid="local-work-progress">
            <progress max={progress.total} value={progress.done} /> Sending {Math.min(progress.done + 1, progress.total)} of {progress.total}
            {progress.title ? `: ${progress.title}` : ''}…
          </p>
        )}
        {lastResult && lastResult.sent.length > 0 && (
          <p role="status" className="success-text" data-testid="local-work-sent">
            Sent {lastResult.sent.length} to {orgName}: {lastResult.sent.map((item) => item.title).join(', ')}. They go up with the next sync.
          </p>
        )}
        {lastResult?.failed.map((failure) => (
          <p key={failure.key} className="field-error" role="alert">
            {failure.error}
          </p>
        ))}
        {error && (
          <p className="field-error" role="alert">
            {error}
          </p>
        )}
        <div className="dialog-actions">
          {items.length > 0 && (
            <>
              <button type="button" className="button button-primary" disabled={isBusy || chosen.size === 0} onClick={() => void useLocalWorkStore.getState().send([...chosen])}>
                {isBusy ? 'Sending…' : `Send ${allChosen ? 'all' : chosen.size} to ${orgName}`}
              </button>
              <button type="button" className="button" disabled={isBusy} onClick={() => void useLocalWorkStore.getState().keep()}>
                Keep on this computer
              </button>
            </>
          )}
          <button type="button" className="button" disabled={isBusy} onClick={() => useLocalWorkStore.getState().closeDialog()}>
            {items.length > 0 ? 'Decide later' : 'Close'}
          </button>
        </div>
      </section>
    </div>
  );
}

/** The Sync screen's way back to the offer, while something is only on this computer. */
export function LocalWorkCard() {
  const offer = useLocalWorkStore((state) => state.offer);
  useEffect(() => {
    void useLocalWorkStore.getState().load();
  }, []);
  if (!offer || offer.items.length === 0) return null;
  return (
    <section className="card" aria-label="Only on this computer" data-testid="local-work-card">
      <h2>Only on this computer</h2>
      <p>
        {offer.items.length === 1 ? '1 record you made or changed here is' : `${offer.items.length} records you made or changed here are`} not on {offer.orgName}
        {offer.isKept ? '. You chose to keep them on this computer; you can still send them.' : '.'}
      </p>
      <button type="button" className="button" onClick={() => useLocalWorkStore.getState().openDialog()}>
        Review and send…
      </button>
    </section>
  );
}

import './TransfersSection.css';
import { useState } from 'react';
import { type TransferCaps, transferCapsProblem } from '../../../../shared/transfer-caps.ts';
import { messageOf } from '../../api/api-client.ts';
import { useSessionStore } from '../../stores/session-store.ts';
import { useUiStore } from '../../stores/ui-store.ts';

/** What the boxes hold while someone types: text, so a wrong value stays to be corrected rather than vanishing. */
interface CapsDraft {
  upload: string;
  download: string;
  isTimed: boolean;
  from: string;
  to: string;
}

const draftOf = (caps: TransferCaps): CapsDraft => ({
  upload: caps.uploadKBps === null ? '' : String(caps.uploadKBps),
  download: caps.downloadKBps === null ? '' : String(caps.downloadKBps),
  isTimed: caps.hours !== null,
  from: caps.hours?.from ?? '08:00',
  to: caps.hours?.to ?? '18:00',
});

/** An empty box is no cap; anything else is read as a number (a wrong one is refused by the shared rule, with its sentence). */
const kbpsOf = (text: string): number | null => (text.trim() === '' ? null : Number(text.trim()));

const capsOf = (draft: CapsDraft, metered: boolean): TransferCaps => ({
  uploadKBps: kbpsOf(draft.upload),
  downloadKBps: kbpsOf(draft.download),
  hours: draft.isTimed ? { from: draft.from, to: draft.to } : null,
  metered,
});

/**
 * Speed caps on file transfers and the metered switch (issue 32): field staff share a
 * phone's link with calls and maps. Each control has its one line of explanation; a
 * wrong value is refused with the shared rule's sentence and stays in its box.
 */
export function TransfersSection({ saved, isSignedIn }: { saved: TransferCaps; isSignedIn: boolean }) {
  const update = useSessionStore((state) => state.updateSettings);
  const toast = useUiStore((state) => state.toast);
  const [draft, setDraft] = useState(() => draftOf(saved));
  const edit = (patch: Partial<CapsDraft>) => setDraft((before) => ({ ...before, ...patch }));
  const wanted = capsOf(draft, saved.metered);
  const problem = transferCapsProblem(wanted);
  const isUnchanged = JSON.stringify(wanted) === JSON.stringify(saved);

  // The switch moves when clicked, not when the save comes back; a refused save puts it back.
  const [meteredWish, setMeteredWish] = useState<boolean | null>(null);
  const save = (caps: TransferCaps, said: string) =>
    update({ transferCaps: caps })
      .then(() => toast(said))
      .catch((error) => toast(messageOf(error), 'error'));

  return (
    <section className="card transfers" data-testid="transfers">
      <h2>File transfers</h2>
      <p className="muted small">
        {isSignedIn
          ? 'For a shared or slow connection, such as a phone’s hotspot: files go no faster than you allow here.'
          : 'These apply once you sign in to your office server; on this computer alone no file goes anywhere.'}
      </p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (problem !== null) return;
          void save(wanted, 'Transfer speeds saved. They apply from now on.');
        }}
      >
        <div className="field-grid">
          <CapField direction="upload" text={draft.upload} hasProblem={problem?.includes('upload') ?? false} onChange={(upload) => edit({ upload })} />
          <CapField direction="download" text={draft.download} hasProblem={problem?.includes('download') ?? false} onChange={(download) => edit({ download })} />
        </div>
        <label className="switch transfers-row">
          <input type="checkbox" role="switch" className="switch" checked={draft.isTimed} onChange={(event) => edit({ isTimed: event.target.checked })} />
          <span>Only between set hours</span>
        </label>
        {draft.isTimed && (
          <div className="transfers-hours">
            <label className="field">
              <span>From</span>
              <input type="time" value={draft.from} onChange={(event) => edit({ from: event.target.value })} aria-describedby="transfers-problem" />
            </label>
            <label className="field">
              <span>To</span>
              <input type="time" value={draft.to} onChange={(event) => edit({ to: event.target.value })} aria-describedby="transfers-problem" />
            </label>
          </div>
        )}
        <p className="field-hint">{draft.isTimed ? 'Outside these hours (this computer’s time) files go at full speed.' : 'The caps hold all day.'}</p>
        {problem !== null && (
          <p className="field-error" id="transfers-problem" role="alert">
            {problem}
          </p>
        )}
        <div className="form-actions">
          <button type="submit" className="button" disabled={problem !== null || isUnchanged}>
            Save speeds
          </button>
        </div>
      </form>
      <label className="switch transfers-row">
        <input
          type="checkbox"
          role="switch"
          className="switch"
          checked={meteredWish ?? saved.metered}
          onChange={(event) => {
            const metered = event.target.checked;
            setMeteredWish(metered);
            void save({ ...saved, metered }, metered ? 'Metered: file contents now wait until you open a file or drop one in.' : 'Not metered: files come and go as usual.').finally(() => setMeteredWish(null));
          }}
        />
        <span>Metered connection</span>
      </label>
      <p className="field-hint">Project details still sync; other files wait until you open one or drop one into a folder.</p>
    </section>
  );
}

const CAP_WORDS = {
  upload: { label: 'Upload cap (KB/s)', hint: 'Leave empty to send files at full speed.' },
  download: { label: 'Download cap (KB/s)', hint: 'Leave empty to fetch files at full speed.' },
} as const;

/** One direction's cap: a box that is empty for no cap, with its line of explanation. */
function CapField({ direction, text, hasProblem, onChange }: { direction: 'upload' | 'download'; text: string; hasProblem: boolean; onChange: (text: string) => void }) {
  const id = `transfers-${direction}`;
  return (
    <div className={`field${hasProblem ? ' has-error' : ''}`}>
      <label htmlFor={id}>{CAP_WORDS[direction].label}</label>
      <input id={id} inputMode="numeric" placeholder="No cap" value={text} onChange={(event) => onChange(event.target.value)} aria-invalid={hasProblem} aria-describedby={`${id}-hint transfers-problem`} />
      <span className="field-hint" id={`${id}-hint`}>
        {CAP_WORDS[direction].hint}
      </span>
    </div>
  );
}

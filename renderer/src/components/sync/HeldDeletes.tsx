// Files deleted from a project folder wait here for the user (issue 28, item 9): one
// explanation at the top in the words of the mode, the files grouped by their folder
// (a group that the mass-delete guard held says so once), Restore all and Delete all
// with their counts (Delete all asks first), and every Restore says what it did.
// The list scrolls inside its card, so whatever follows stays within reach.
import './HeldDeletes.css';
import { useState } from 'react';
import type { PendingChangeJson } from '../../../../shared/sync-api.ts';
import { MASS_DELETE_GUARD_REASON } from '../../../../shared/held-deletes.ts';
import { messageOf } from '../../api/api-client.ts';
import { useSyncStore } from '../../stores/sync-store.ts';
import { useUiStore } from '../../stores/ui-store.ts';
import { useEscapeKey } from '../common/use-escape-key.ts';
import { useRecordLabel } from './use-record-label.ts';

const filesWord = (count: number) => (count === 1 ? '1 file' : `${count} files`);

interface FolderGroup {
  key: string;
  heading: string;
  items: PendingChangeJson[];
  isGuarded: boolean;
}

function DeleteAllDialog({ count, isLocalOnly, onConfirm, onCancel }: { count: number; isLocalOnly: boolean; onConfirm(): void; onCancel(): void }) {
  useEscapeKey(onCancel);
  return (
    <div className="dialog-backdrop" onClick={onCancel}>
      <section className="dialog" role="alertdialog" aria-modal="true" aria-labelledby="delete-all-held-title" data-testid="delete-all-held-dialog" onClick={(event) => event.stopPropagation()}>
        <h2 id="delete-all-held-title">Delete {filesWord(count)} for good?</h2>
        <p>{isLocalOnly ? 'They leave their projects and cannot be restored afterwards.' : 'They leave their projects here and on the remote, and cannot be restored afterwards.'}</p>
        <div className="dialog-actions">
          <button type="button" className="button" onClick={onCancel} autoFocus>
            Cancel
          </button>
          <button type="button" className="button button-danger" onClick={onConfirm}>
            Delete {filesWord(count)}
          </button>
        </div>
      </section>
    </div>
  );
}

export function HeldDeletes({ held, isLocalOnly }: { held: PendingChangeJson[]; isLocalOnly: boolean }) {
  const toast = useUiStore((state) => state.toast);
  const fileProjects = useSyncStore((state) => state.fileProjects);
  const recordLabel = useRecordLabel();
  const [isAskingDeleteAll, setIsAskingDeleteAll] = useState(false);
  const [isBusy, setIsBusy] = useState(false);
  if (held.length === 0) return null;

  const groups = new Map<string, FolderGroup>();
  for (const item of held) {
    const projectId = item.model === 'private_file' ? fileProjects.get(item.record_id) : undefined;
    const key = projectId === undefined ? 'unknown' : String(projectId);
    const heading = projectId === undefined ? 'Other files' : projectId === null ? 'Files of no project' : recordLabel('project', projectId);
    const group = groups.get(key) ?? { key, heading, items: [], isGuarded: false };
    group.items.push(item);
    group.isGuarded ||= item.reason.startsWith(MASS_DELETE_GUARD_REASON);
    groups.set(key, group);
  }

  const decideAll = (decision: 'restore' | 'confirm') => {
    setIsBusy(true);
    setIsAskingDeleteAll(false);
    void useSyncStore
      .getState()
      .decideHeldDeletes(
        held.map((item) => item.id),
        decision,
      )
      .then((count) => toast(decision === 'restore' ? `Restored ${filesWord(count)} to ${count === 1 ? 'its folder' : 'their folders'}.` : `Deleted ${filesWord(count)}.`))
      .catch((error) => toast(messageOf(error), 'error'))
      .finally(() => setIsBusy(false));
  };

  const restoreOne = (item: PendingChangeJson) => {
    const title = recordLabel(item.model, item.record_id);
    void useSyncStore
      .getState()
      .restoreDelete(item.id)
      .then(() => toast(`Restored ${title} to its folder.`))
      .catch((error) => toast(messageOf(error), 'error'));
  };

  return (
    <section className="card held-deletes" aria-label="Held deletes" data-testid="held-deletes">
      <div className="card-row held-deletes-head">
        <h2>
          {filesWord(held.length)} deleted from project folders {held.length === 1 ? 'waits' : 'wait'} for you
        </h2>
        <span className="card-actions">
          <button type="button" className="button" disabled={isBusy} onClick={() => decideAll('restore')}>
            Restore all ({held.length})
          </button>
          <button type="button" className="button button-danger" disabled={isBusy} onClick={() => setIsAskingDeleteAll(true)}>
            Delete all ({held.length})
          </button>
        </span>
      </div>
      <p className="muted">
        {isLocalOnly
          ? 'Nothing is deleted until you choose. Restore puts a file back in its folder; Delete it removes it from SolarDesk for good.'
          : 'Nothing is deleted on the remote until you choose. Restore puts a file back in its folder; Delete on the remote too removes it here and there.'}
      </p>
      <div className="held-deletes-groups">
        {[...groups.values()].map((group) => (
          <section key={group.key} className="held-delete-group" aria-label={`${group.heading}: ${filesWord(group.items.length)}`} data-testid="held-delete-group">
            <h3>
              {group.heading} <span className="muted">· {filesWord(group.items.length)}</span>
            </h3>
            {group.isGuarded && <p className="warning-text">Many files left this folder at once. If its drive or network folder is not connected, connect it and choose Restore.</p>}
            <ul className="card-list">
              {group.items.map((item) => {
                const title = recordLabel(item.model, item.record_id);
                return (
                  <li key={item.id} className="card-row held-delete" data-testid="held-delete">
                    <strong className="held-delete-title">{title}</strong>
                    <span className="card-actions">
                      <button type="button" className="button" aria-label={`Restore ${title}`} disabled={isBusy} onClick={() => restoreOne(item)}>
                        Restore
                      </button>
                      <button
                        type="button"
                        className="button button-danger"
                        aria-label={`${isLocalOnly ? 'Delete it' : 'Delete on the remote too'}: ${title}`}
                        disabled={isBusy}
                        onClick={() => void useSyncStore.getState().confirmDelete(item.id).catch((error) => toast(messageOf(error), 'error'))}
                      >
                        {isLocalOnly ? 'Delete it' : 'Delete on the remote too'}
                      </button>
                    </span>
                  </li>
                );
              })}
            </ul>
          </section>
        ))}
      </div>
      {isAskingDeleteAll && <DeleteAllDialog count={held.length} isLocalOnly={isLocalOnly} onConfirm={() => decideAll('confirm')} onCancel={() => setIsAskingDeleteAll(false)} />}
    </section>
  );
}

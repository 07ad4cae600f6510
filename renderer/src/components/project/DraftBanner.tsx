import './DraftBanner.css';
import { formatDateTime, labelOf } from '../../format.ts';
import { useProjectStore } from '../../stores/project-store.ts';

/** A restored draft of the project: when it was typed, what it holds, and Save / Discard. */
export function DraftBanner() {
  const restoredAt = useProjectStore((state) => state.restoredAt);
  const drafts = useProjectStore((state) => state.drafts);
  const labels = useProjectStore((state) => state.draftLabels);
  const errors = useProjectStore((state) => state.fieldErrors);
  const held = useProjectStore((state) => state.held);
  const saveRestored = useProjectStore((state) => state.saveRestored);
  const discardDrafts = useProjectStore((state) => state.discardDrafts);
  const keys = Object.keys(drafts);
  if (!restoredAt || keys.length === 0) return null;
  const names = keys.map((key) => labels[key] || labelOf(key));
  const toFix = keys.filter((key) => errors[key]).length;
  return (
    <div className="draft-banner" role="status" data-testid="draft-banner">
      <div>
        <strong>Unsaved changes from {formatDateTime(restoredAt)}</strong>
        <span className="muted">
          {' '}
          — {names.join(', ')}
          {toFix > 0 ? ` (${toFix} to fix, marked below)` : ''}
        </span>
      </div>
      <div className="draft-banner-actions">
        <button type="button" className="button button-primary" disabled={Object.keys(held).length === 0} onClick={() => void saveRestored()}>
          Save
        </button>
        <button type="button" className="button" onClick={discardDrafts}>
          Discard
        </button>
      </div>
    </div>
  );
}

import './SaveIndicator.css';
import { useProjectStore } from '../../stores/project-store.ts';

/** Edits save on their own; this says where they are. */
export function SaveIndicator() {
  const saveState = useProjectStore((state) => state.saveState);
  const saveError = useProjectStore((state) => state.saveError);
  const hasPending = useProjectStore((state) => Object.keys(state.pending).length > 0);
  const invalidCount = useProjectStore((state) => Object.keys(state.fieldErrors).length);
  let text = 'All changes saved';
  let tone = 'muted';
  if (invalidCount > 0) [text, tone] = [`${invalidCount} field${invalidCount === 1 ? '' : 's'} to fix`, 'danger'];
  else if (saveState === 'error') [text, tone] = [saveError ?? 'Not saved', 'danger'];
  else if (hasPending || saveState === 'saving') text = 'Saving…';
  else if (saveState === 'idle') text = 'Edits save as you type';
  return (
    <span className={`save-indicator ${tone}`} role="status" data-testid="save-indicator">
      {text}
    </span>
  );
}

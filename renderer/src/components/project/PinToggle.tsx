import './PinToggle.css';
import { useEffect } from 'react';
import type { ProjectDetailJson } from '../../../../shared/schemas/project.ts';
import { useContentsStore } from '../../stores/contents-store.ts';

const REASON_TEXT = { role: 'you hold a role in it', pinned: 'you pinned it', opened: 'you opened it recently', everything: 'every project is kept' } as const;

/**
 * Files on demand (docs/sync.md): pins the open project, so its files are kept on this
 * computer and in its folder. Opening the project is recorded here too (it keeps the
 * files for a while). Shown only when signed in to a remote.
 */
export function PinToggle({ project }: { project: ProjectDetailJson }) {
  const contents = useContentsStore((state) => state.contents);
  const pinning = useContentsStore((state) => state.pinning);
  useEffect(() => {
    void useContentsStore.getState().open(project.org_id, project.id);
  }, [project.org_id, project.id]);
  if (!contents || contents.project_id !== project.id) return null;
  const why = contents.reasons.map((reason) => REASON_TEXT[reason]).join(', ');
  const title = contents.pinned
    ? 'Pinned: every file of this project is kept on this computer and in its folder. Unpin to let unchanged files go back to the remote only.'
    : `Pin to keep every file of this project on this computer and in its folder${why ? ` (now kept because ${why})` : ' (now its files are fetched when opened)'}.`;
  return (
    <button
      type="button"
      className={`button pin-toggle${contents.pinned ? ' is-pinned' : ''}`}
      aria-pressed={contents.pinned}
      disabled={pinning}
      title={title}
      data-testid="pin-toggle"
      onClick={() => void useContentsStore.getState().setPinned(project.org_id, project.id, !contents.pinned)}
    >
      {contents.pinned ? 'Pinned' : 'Pin files here'}
    </button>
  );
}

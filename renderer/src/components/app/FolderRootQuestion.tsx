// The first start (issue 28, item 2): before any project folder is made, a line at the
// top of the window asks where they should go, with the default filled in. Until it
// is answered no folder is made or watched (main/core/core-runtime.ts); "Use this
// folder" starts them there, and Settings > Project folders can change it later.
import './FolderRootQuestion.css';
import { useState } from 'react';
import { messageOf } from '../../api/api-client.ts';
import { useSessionStore } from '../../stores/session-store.ts';
import { useUiStore } from '../../stores/ui-store.ts';

export function FolderRootQuestion() {
  const settings = useSessionStore((state) => state.settings);
  const session = useSessionStore((state) => state.session);
  const toast = useUiStore((state) => state.toast);
  const [folderRoot, setFolderRoot] = useState<string | null>(null);
  const [isBusy, setIsBusy] = useState(false);
  if (!settings || !session || settings.folderRootChosen) return null;
  const chosen = (folderRoot ?? settings.folderRoot).trim();

  const answerWith = () => {
    setIsBusy(true);
    const store = useSessionStore.getState();
    // The default itself is only confirmed; another folder is a new root with nothing to move.
    const answer = chosen === settings.folderRoot ? store.updateSettings({ folderRootChosen: true }) : store.changeFolderRoot(chosen, false);
    void Promise.resolve(answer)
      .then(() => toast(`Project folders are in ${chosen}. Settings > Project folders can change this.`))
      .catch((error) => toast(messageOf(error), 'error'))
      .finally(() => setIsBusy(false));
  };

  return (
    <form
      className="folder-root-question"
      aria-label="Where project folders go"
      data-testid="folder-root-question"
      onSubmit={(event) => {
        event.preventDefault();
        answerWith();
      }}
    >
      <span>SolarDesk keeps a folder for each project, where files you drop in are attached. Where should these folders go?</span>
      <input aria-label="Folder for project folders" className="mono" value={folderRoot ?? settings.folderRoot} disabled={isBusy} onChange={(event) => setFolderRoot(event.target.value)} />
      {session.canChooseFolder && (
        <button
          type="button"
          className="button"
          disabled={isBusy}
          onClick={() =>
            void useSessionStore
              .getState()
              .chooseFolder(chosen)
              .then((picked) => picked !== null && setFolderRoot(picked))
              .catch((error) => toast(messageOf(error), 'error'))
          }
        >
          Browse…
        </button>
      )}
      <button type="submit" className="button button-primary" disabled={isBusy || chosen === ''}>
        Use this folder
      </button>
    </form>
  );
}

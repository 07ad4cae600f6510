// What can be done to the selected files at once: tag or untag, download, delete.
import './FileSelectionBar.css';
import { useEffect, useRef, useState } from 'react';
import type { FileTagJson, PrivateFileJson } from '../../../../shared/schemas/private-file.ts';
import { useFilesStore } from '../../stores/files-store.ts';

export function FileSelectionBar({ files, onDelete }: { files: PrivateFileJson[]; onDelete(fileIds: number[]): void }) {
  const { setSelected, downloadMany } = useFilesStore.getState();
  const [tagsOpen, setTagsOpen] = useState(false);
  if (files.length === 0) return null;
  const ids = files.map((file) => file.id);
  return (
    <div className="file-selection-bar" role="toolbar" aria-label="Selected files" data-testid="file-selection-bar">
      <strong>{files.length === 1 ? '1 file selected' : `${files.length} files selected`}</strong>
      <div className="file-tags-anchor">
        <button type="button" className="button" aria-expanded={tagsOpen} aria-haspopup="dialog" onClick={() => setTagsOpen(!tagsOpen)}>
          Tags…
        </button>
        {tagsOpen && <TagMenu files={files} onClose={() => setTagsOpen(false)} />}
      </div>
      <button type="button" className="button" onClick={() => void downloadMany(ids)}>
        Download
      </button>
      <button type="button" className="button button-danger" onClick={() => onDelete(ids)}>
        Delete
      </button>
      <button type="button" className="link-button" onClick={() => setSelected([])}>
        Clear selection
      </button>
    </div>
  );
}

/**
 * The tags (the shared catalogue and the org's own) with a checkbox each: checked
 * when every selected file has it, mixed when some do. Tags some selected file
 * carries come first; "Find a tag" narrows the list to titles holding every word typed.
 */
function TagMenu({ files, onClose }: { files: PrivateFileJson[]; onClose(): void }) {
  const tags = useFilesStore((state) => state.tags);
  const { toggleTag, createTag } = useFilesStore.getState();
  const [newTag, setNewTag] = useState('');
  const [find, setFind] = useState('');
  const [busy, setBusy] = useState(false);
  const panel = useRef<HTMLDivElement>(null);
  const ids = files.map((file) => file.id);

  const close = useRef(onClose);
  useEffect(() => {
    close.current = onClose;
  }, [onClose]);
  // Focus goes in once, when the menu opens; a click outside closes it.
  useEffect(() => {
    panel.current?.querySelector<HTMLInputElement>('input')?.focus();
    // In a short window the menu may open below the pane's fold: the pane scrolls to show it.
    panel.current?.scrollIntoView({ block: 'nearest' });
    const onPointer = (event: PointerEvent) => {
      if (panel.current && !panel.current.parentElement?.contains(event.target as Node)) close.current();
    };
    // Escape closes it wherever the focus went (a disabled button drops it to the page).
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') close.current();
    };
    document.addEventListener('pointerdown', onPointer);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('pointerdown', onPointer);
      document.removeEventListener('keydown', onKey);
    };
  }, []);

  const run = async (work: () => Promise<unknown>) => {
    setBusy(true);
    try {
      await work();
    } finally {
      setBusy(false);
    }
  };
  const countWith = (tag: FileTagJson) => files.filter((file) => file.file_tags_data.some((existing) => existing.id === tag.id)).length;
  const words = find.toLowerCase().split(/\s+/).filter(Boolean);
  const shown = tags
    .filter((tag) => words.every((word) => tag.title.toLowerCase().includes(word)))
    .sort((a, b) => Number(countWith(b) > 0) - Number(countWith(a) > 0));

  return (
    <div
      ref={panel}
      className="tag-menu"
      role="dialog"
      aria-label="Tag the selected files"
      data-testid="tag-menu"
    >
      {tags.length === 0 && <p className="muted">This org has no file tags yet: make one below.</p>}
      {tags.length > 0 && (
        <input
          type="search"
          className="tag-menu-find"
          aria-label="Find a tag"
          placeholder="Find a tag"
          value={find}
          onChange={(event) => setFind(event.target.value)}
        />
      )}
      {tags.length > 0 && shown.length === 0 && <p className="muted">No tag holds “{find.trim()}”: make it below.</p>}
      <ul>
        {shown.map((tag) => {
          const count = countWith(tag);
          return (
            <li key={tag.id}>
              <label>
                <input
                  type="checkbox"
                  disabled={busy}
                  checked={count === files.length}
                  ref={(input) => {
                    if (input) input.indeterminate = count > 0 && count < files.length;
                  }}
                  onChange={() => void run(() => toggleTag(ids, tag))}
                />{' '}
                {tag.title}
              </label>
            </li>
          );
        })}
      </ul>
      <form
        className="tag-menu-new"
        onSubmit={(event) => {
          event.preventDefault();
          void run(async () => {
            // A title the list already has (the catalogue's, whatever the case) is that tag: put on, not made again.
            const existing = tags.find((tag) => tag.title.toLowerCase() === newTag.trim().toLowerCase());
            const tag = existing ?? (await createTag(newTag));
            if (tag) {
              setNewTag('');
              if (!existing || countWith(existing) < files.length) await toggleTag(ids, tag);
            }
          });
        }}
      >
        <input aria-label="New tag" placeholder="New tag" value={newTag} maxLength={255} onChange={(event) => setNewTag(event.target.value)} />
        <button type="submit" className="button" disabled={busy || newTag.trim() === ''}>
          Add
        </button>
      </form>
    </div>
  );
}

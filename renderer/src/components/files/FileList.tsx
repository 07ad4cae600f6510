// The list of a project's files as the toolbar shows them (filtered, searched,
// sorted), with selection and the keyboard: arrows move (shift extends), Enter
// and Space open the viewer, Delete asks to delete the selection, Ctrl/Cmd+A
// selects every file shown, F2 renames, Escape clears the selection.
import './FileList.css';
import { Fragment, useRef, useState, type KeyboardEvent, type MouseEvent } from 'react';
import type { PrivateFileJson } from '../../../../shared/schemas/private-file.ts';
import { useFilesStore } from '../../stores/files-store.ts';
import { openViewer, useViewerStore } from '../../stores/viewer-store.ts';
import { FileVersions } from '../project/FileVersions.tsx';
import { FileRow } from './FileRow.tsx';

export function FileList({ files, orgId, onDelete }: { files: PrivateFileJson[]; orgId: number; onDelete(fileIds: number[]): void }) {
  const selected = useFilesStore((state) => state.selected);
  const active = useFilesStore((state) => state.active);
  const versions = useFilesStore((state) => state.versions);
  const { selectRow, setSelected, setActive } = useFilesStore.getState();
  const [renaming, setRenaming] = useState<number | null>(null);
  const table = useRef<HTMLTableElement>(null);
  const ids = files.map((file) => file.id);
  const selectedSet = new Set(selected);
  const activeId = active !== null && ids.includes(active) ? active : null;

  const open = (file: PrivateFileJson) => openViewer(file.id, ids);

  const onKeyDown = (event: KeyboardEvent<HTMLTableElement>) => {
    // While the viewer is open, its keys (arrows: next and previous, Escape) are its own.
    if (useViewerStore.getState().open) return;
    if (event.target instanceof HTMLInputElement && (event.target.type !== 'checkbox' || event.key === ' ')) return;
    if (event.target instanceof Element && event.target.closest('button, select, textarea, .file-versions-row')) return;
    const index = activeId === null ? -1 : ids.indexOf(activeId);
    const move = (to: number) => {
      const target = ids[Math.max(0, Math.min(ids.length - 1, to))];
      if (target === undefined) return;
      event.preventDefault();
      selectRow(target, event.shiftKey ? 'range' : 'only', ids);
      if (event.shiftKey) setActive(target);
    };
    const current = files[index];
    switch (event.key) {
      case 'ArrowDown':
        return move(index + 1);
      case 'ArrowUp':
        return move(index === -1 ? 0 : index - 1);
      case 'Home':
        return move(0);
      case 'End':
        return move(ids.length - 1);
      case 'Enter':
      case ' ':
        if (current) {
          event.preventDefault();
          open(current);
        }
        return;
      case 'Delete':
      case 'Backspace': {
        const targets = selected.length > 0 ? selected.filter((id) => ids.includes(id)) : current ? [current.id] : [];
        if (targets.length > 0) {
          event.preventDefault();
          onDelete(targets);
        }
        return;
      }
      case 'F2':
        if (current) {
          event.preventDefault();
          setRenaming(current.id);
        }
        return;
      case 'Escape':
        setSelected([]);
        return;
      default:
        if ((event.key === 'a' || event.key === 'A') && (event.ctrlKey || event.metaKey)) {
          event.preventDefault();
          setSelected(ids);
        }
    }
  };

  const onToggleChecked = (file: PrivateFileJson, event: MouseEvent<HTMLInputElement>) => {
    selectRow(file.id, event.shiftKey ? 'range' : 'toggle', ids);
  };

  return (
    <table
      ref={table}
      className="table files-table"
      data-testid="files-table"
      role="grid"
      aria-label="Files"
      aria-multiselectable="true"
      aria-activedescendant={activeId !== null ? `file-row-${activeId}` : undefined}
      tabIndex={0}
      onKeyDown={onKeyDown}
      onFocus={(event) => {
        if (event.target === event.currentTarget && activeId === null && ids[0] !== undefined) setActive(ids[0]);
      }}
    >
      <thead>
        <tr>
          <th>
            <input
              type="checkbox"
              className="file-check"
              aria-label="Select all files shown"
              checked={files.length > 0 && files.every((file) => selectedSet.has(file.id))}
              onChange={(event) => setSelected(event.target.checked ? ids : [])}
            />{' '}
            Title
          </th>
          <th>Tags</th>
          <th className="numeric">Size</th>
          <th>Changed</th>
          <th>Sync</th>
          <th aria-label="Actions" />
        </tr>
      </thead>
      <tbody>
        {files.map((file) => {
          const versionsOpen = versions?.fileId === file.id;
          return (
            <Fragment key={file.id}>
              <FileRow
                file={file}
                orgId={orgId}
                isSelected={selectedSet.has(file.id)}
                isActive={activeId === file.id}
                versionsOpen={versionsOpen}
                isRenaming={renaming === file.id}
                onRowClick={(clicked, how) => selectRow(clicked.id, how, ids)}
                onToggleChecked={onToggleChecked}
                onOpen={open}
                onRename={(target) => {
                  setRenaming(target?.id ?? null);
                  // Back to the list, so the keyboard goes on where it was.
                  if (target === null) table.current?.focus();
                }}
                onDelete={(target) => onDelete([target.id])}
              />
              {versionsOpen && versions && (
                <tr className="file-versions-row">
                  <td colSpan={6}>
                    <FileVersions file={file} versions={versions} />
                  </td>
                </tr>
              )}
            </Fragment>
          );
        })}
      </tbody>
    </table>
  );
}

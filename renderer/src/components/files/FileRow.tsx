// One file of the list: its checkbox, thumbnail, title (renamed in place), tags,
// size, date, marks (FileBadges), "show customer" and actions. Selection and the
// keyboard are the list's (FileList.tsx); this row reports clicks.
import './FileRow.css';
import { useEffect, useRef, useState, type KeyboardEvent, type MouseEvent } from 'react';
import type { PrivateFileJson } from '../../../../shared/schemas/private-file.ts';
import { formatBytes, formatDate } from '../../format.ts';
import { useFilesStore } from '../../stores/files-store.ts';
import { Badge } from '../common/Badge.tsx';
import { FileBadges } from './FileBadges.tsx';
import { FileThumbnail } from './FileThumbnail.tsx';

export interface FileRowProps {
  file: PrivateFileJson;
  orgId: number;
  isSelected: boolean;
  isActive: boolean;
  versionsOpen: boolean;
  isRenaming: boolean;
  onRowClick(file: PrivateFileJson, how: 'only' | 'toggle' | 'range'): void;
  onToggleChecked(file: PrivateFileJson, event: MouseEvent<HTMLInputElement>): void;
  onOpen(file: PrivateFileJson): void;
  onRename(file: PrivateFileJson | null): void;
  onDelete(file: PrivateFileJson): void;
}

/** Clicks on these belong to them, not to the row's selection. */
const isControl = (target: EventTarget) => target instanceof Element && target.closest('button, input, a, label, select, textarea') !== null;

export function FileRow({ file, orgId, isSelected, isActive, versionsOpen, isRenaming, onRowClick, onToggleChecked, onOpen, onRename, onDelete }: FileRowProps) {
  const { download, toggleVersions, setShowCustomer } = useFilesStore.getState();
  const row = useRef<HTMLTableRowElement>(null);
  useEffect(() => {
    if (isActive) row.current?.scrollIntoView({ block: 'nearest' });
  }, [isActive]);

  const classes = [isSelected && 'is-selected', isActive && 'is-active', versionsOpen && 'is-expanded'].filter(Boolean).join(' ');
  return (
    <tr
      ref={row}
      id={`file-row-${file.id}`}
      data-testid="file-row"
      data-file-id={file.id}
      aria-selected={isSelected}
      className={classes || undefined}
      onClick={(event) => {
        if (isControl(event.target)) return;
        onRowClick(file, event.shiftKey ? 'range' : event.ctrlKey || event.metaKey ? 'toggle' : 'only');
      }}
      onDoubleClick={(event) => {
        if (!isControl(event.target)) onOpen(file);
      }}
    >
      <td>
        <div className="file-title-cell">
          <input type="checkbox" className="file-check" checked={isSelected} aria-label={`Select ${file.title}`} onChange={() => undefined} onClick={(event) => onToggleChecked(file, event)} />
          <button type="button" className="file-thumbnail-button" data-testid="file-open-viewer" aria-label={`Preview ${file.title}`} title="Preview" onClick={() => onOpen(file)}>
            <FileThumbnail file={file} />
          </button>
          {isRenaming ? <RenameInput file={file} onDone={() => onRename(null)} /> : <span className="file-title" title={file.title}>{file.title}</span>}
        </div>
      </td>
      <td>
        {file.file_tags_data.map((tag) => (
          <Badge key={tag.id}>{tag.title}</Badge>
        ))}
      </td>
      <td className="numeric">{formatBytes(file.filesize)}</td>
      <td className="file-changed">{formatDate(file.modified_date)}</td>
      <td>
        <FileBadges file={file} />
      </td>
      <td className="file-actions">
        <label className="file-customer" title="Whether the customer sees this file">
          <input type="checkbox" checked={file.show_customer} onChange={(event) => void setShowCustomer(file, event.target.checked)} /> Customer
        </label>
        <button type="button" className="link-button" onClick={() => onRename(file)}>
          Rename
        </button>
        <button type="button" className="link-button" onClick={() => void download(file)}>
          Download
        </button>
        <button type="button" className="link-button" aria-expanded={versionsOpen} onClick={() => void toggleVersions(orgId, file.id)}>
          Versions
        </button>
        <button type="button" className="link-button" onClick={() => onDelete(file)}>
          Delete
        </button>
      </td>
    </tr>
  );
}

function RenameInput({ file, onDone }: { file: PrivateFileJson; onDone(): void }) {
  const [title, setTitle] = useState(file.title);
  const input = useRef<HTMLInputElement>(null);
  const finished = useRef(false);
  useEffect(() => {
    input.current?.focus();
    // The name before the extension is what people change.
    const dot = file.title.lastIndexOf('.');
    input.current?.setSelectionRange(0, dot > 0 ? dot : file.title.length);
  }, [file.title]);
  const save = async () => {
    if (finished.current) return;
    finished.current = true;
    if (await useFilesStore.getState().rename(file, title)) onDone();
    else {
      finished.current = false;
      input.current?.focus();
    }
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    event.stopPropagation();
    if (event.key === 'Enter') void save();
    if (event.key === 'Escape') {
      finished.current = true;
      onDone();
    }
  };
  return (
    <input
      ref={input}
      className="file-rename"
      aria-label={`New title for ${file.title}`}
      value={title}
      maxLength={255}
      onChange={(event) => setTitle(event.target.value)}
      onKeyDown={onKeyDown}
      onBlur={() => void save()}
    />
  );
}

// Search, filters and sort of the Files tab, and how many files they leave.
import './FileToolbar.css';
import { useState } from 'react';
import type { FileTagJson } from '../../../../shared/schemas/private-file.ts';
import { useFilesStore } from '../../stores/files-store.ts';
import { NO_FILTER, type FileSort } from '../../stores/file-list-order.ts';
import { FILE_KIND_LABELS, type FileKind } from './file-kinds.ts';

const SORTS: { label: string; sort: FileSort }[] = [
  { label: 'Newest first', sort: { key: 'date', descending: true } },
  { label: 'Oldest first', sort: { key: 'date', descending: false } },
  { label: 'Title A–Z', sort: { key: 'title', descending: false } },
  { label: 'Title Z–A', sort: { key: 'title', descending: true } },
  { label: 'Largest first', sort: { key: 'size', descending: true } },
  { label: 'Smallest first', sort: { key: 'size', descending: false } },
  { label: 'Type', sort: { key: 'type', descending: false } },
];

const sortValue = (sort: FileSort) => `${sort.key}:${sort.descending ? 'desc' : 'asc'}`;

export function FileToolbar({ tags, kinds, shown, total }: { tags: FileTagJson[]; kinds: FileKind[]; shown: number; total: number }) {
  const filter = useFilesStore((state) => state.filter);
  const sort = useFilesStore((state) => state.sort);
  const { setFilter, setSort } = useFilesStore.getState();
  const isFiltered = JSON.stringify(filter) !== JSON.stringify(NO_FILTER);
  // In a narrow Files tab the dates wait behind a button (FileToolbar.css), shown while one is set.
  const [isShowingDates, setShowingDates] = useState(false);
  const areDatesShown = isShowingDates || filter.from !== '' || filter.to !== '';
  return (
    <div className="file-toolbar" role="search" aria-label="Find files">
      <input
        type="search"
        className="file-search"
        placeholder="Search titles"
        aria-label="Search titles"
        value={filter.query}
        onChange={(event) => setFilter({ query: event.target.value })}
      />
      <select
        aria-label="Filter by tag"
        title={tags.find((tag) => tag.id === filter.tagId)?.title ?? 'Any tag'}
        value={filter.tagId ?? ''}
        onChange={(event) => setFilter({ tagId: event.target.value === '' ? null : Number(event.target.value) })}
      >
        <option value="">Any tag</option>
        {tags.map((tag) => (
          <option key={tag.id} value={tag.id}>
            {tag.title}
          </option>
        ))}
      </select>
      <select aria-label="Filter by type" value={filter.kind ?? ''} onChange={(event) => setFilter({ kind: event.target.value === '' ? null : (event.target.value as FileKind) })}>
        <option value="">Any type</option>
        {kinds.map((kind) => (
          <option key={kind} value={kind}>
            {FILE_KIND_LABELS[kind]}
          </option>
        ))}
      </select>
      <button type="button" className="button file-dates-toggle" aria-expanded={areDatesShown} onClick={() => setShowingDates(!isShowingDates)}>
        Dates
      </button>
      <span className={`file-dates${areDatesShown ? ' is-shown' : ''}`}>
        <label className="file-date">
          From <input type="date" aria-label="Changed from" value={filter.from} max={filter.to || undefined} onChange={(event) => setFilter({ from: event.target.value })} />
        </label>
        <label className="file-date">
          to <input type="date" aria-label="Changed until" value={filter.to} min={filter.from || undefined} onChange={(event) => setFilter({ to: event.target.value })} />
        </label>
      </span>
      <select
        aria-label="Sort files"
        value={sortValue(sort)}
        onChange={(event) => setSort(SORTS.find((option) => sortValue(option.sort) === event.target.value)!.sort)}
      >
        {SORTS.map((option) => (
          <option key={option.label} value={sortValue(option.sort)}>
            {option.label}
          </option>
        ))}
      </select>
      <span className="muted file-count" data-testid="file-count">
        {isFiltered ? `${shown} of ${total} files` : `${total} ${total === 1 ? 'file' : 'files'}`}
      </span>
      {isFiltered && (
        <button type="button" className="link-button" onClick={() => setFilter(NO_FILTER)}>
          Clear filters
        </button>
      )}
    </div>
  );
}

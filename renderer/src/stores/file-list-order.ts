// What the Files tab's list shows and in which order: its sort, its filter and
// search, and the pure function that applies them (docs/files.md "The Files tab").
// The files store keeps the chosen sort and filter; the list computes from them.
import type { PrivateFileJson } from '../../../shared/schemas/private-file.ts';
import { fileKindOf, extensionOf, type FileKind } from '../components/files/file-kinds.ts';

export type SortKey = 'title' | 'date' | 'size' | 'type';
export interface FileSort {
  key: SortKey;
  descending: boolean;
}

export interface FileFilter {
  /** Every word must appear in the title (any case, any order). */
  query: string;
  tagId: number | null;
  kind: FileKind | null;
  /** YYYY-MM-DD, inclusive, on the date the file last changed; '' for no bound. */
  from: string;
  to: string;
}

export const NO_FILTER: FileFilter = { query: '', tagId: null, kind: null, from: '', to: '' };

/** Title order as people read it: "photo 2" before "photo 10". */
const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

/** The files the list shows, in its order: pending deletes left out, then filtered, searched and sorted. */
export function visibleFiles(files: readonly PrivateFileJson[], filter: FileFilter, sort: FileSort, hidden: ReadonlySet<number>): PrivateFileJson[] {
  const words = filter.query.toLowerCase().split(/\s+/).filter(Boolean);
  const shown = files.filter((file) => {
    if (hidden.has(file.id)) return false;
    const title = file.title.toLowerCase();
    if (!words.every((word) => title.includes(word))) return false;
    if (filter.tagId !== null && !file.file_tags_data.some((tag) => tag.id === filter.tagId)) return false;
    if (filter.kind !== null && fileKindOf(file) !== filter.kind) return false;
    const day = localDay(file.modified_date);
    if (filter.from && day < filter.from) return false;
    if (filter.to && day > filter.to) return false;
    return true;
  });
  const compare = (a: PrivateFileJson, b: PrivateFileJson): number => {
    switch (sort.key) {
      case 'date':
        return a.modified_date.localeCompare(b.modified_date);
      case 'size':
        return (a.filesize ?? 0) - (b.filesize ?? 0);
      case 'type':
        return fileKindOf(a).localeCompare(fileKindOf(b)) || extensionOf(a.title).localeCompare(extensionOf(b.title));
      default:
        return 0;
    }
  };
  return shown.sort((a, b) => {
    const order = compare(a, b) || collator.compare(a.title, b.title) || a.id - b.id;
    return sort.descending ? -order : order;
  });
}

/** YYYY-MM-DD of an ISO time in the user's time zone, as the date inputs give it. */
function localDay(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

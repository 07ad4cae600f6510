// Numbers, sizes and dates as people read them.
import { formatBytes as formatByteCount } from '../../shared/format-bytes.ts';

export function formatBytes(bytes: number | null | undefined): string {
  return bytes === null || bytes === undefined ? '—' : formatByteCount(bytes);
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
}

export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** A pending change's operation (`create`, `update`, `delete`) as a person says it. */
export function changeWord(operation: string): string {
  return ({ create: 'New', update: 'Changed', delete: 'Deleted' } as Record<string, string>)[operation] ?? operation;
}

// Money, numbers and percentages are formatted by shared/design-figures.ts, so the
// Design tab and the generated documents print a figure the same way.
export { formatMoney, formatNumber, formatPercent } from '../../shared/design-figures.ts';

// Field labels are shared with the main process's activity log (shared/field-labels.ts).
export { labelOf, labelsOf } from '../../shared/field-labels.ts';

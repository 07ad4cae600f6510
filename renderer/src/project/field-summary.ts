// Values the editor shows but does not change, in words rather than JSON.
import { labelOf } from '../format.ts';

/** A value the editor does not change, in words. */
export function summaryOf(value: unknown): string {
  if (value === null || value === undefined || value === '') return 'Not set';
  if (Array.isArray(value)) return value.length === 0 ? 'None' : value.map(summaryOf).join(', ');
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (typeof value === 'string') {
    // A reference reads as its kind and id ("systems 12"), not as a whole URL.
    const reference = /\/([a-z_]+)\/(\d+)\/?$/.exec(value);
    return reference ? `${reference[1]!.replace(/_/g, ' ')} ${reference[2]}` : value;
  }
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    for (const key of ['title', 'display', 'name']) if (typeof record[key] === 'string') return record[key];
    return Object.entries(record)
      .map(([key, item]) => `${labelOf(key)}: ${typeof item === 'object' && item !== null ? '…' : summaryOf(item)}`)
      .join('; ');
  }
  return String(value);
}

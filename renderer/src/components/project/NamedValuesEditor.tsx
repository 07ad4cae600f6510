import './NamedValuesEditor.css';
import { useId, useState } from 'react';
import type { WritablePlainField } from '../../../../shared/project-fields.ts';
import type { ProjectDetailJson } from '../../../../shared/schemas/project.ts';
import { type DraftCheck, useProjectStore } from '../../stores/project-store.ts';
import { summaryOf } from '../../project/field-summary.ts';

interface Row {
  name: string;
  /** Text for a plain value; the value itself when it is nested data, kept as is. */
  value: string;
  nested?: unknown;
  /** The type the value had, so "12" stays a number and "true" a yes/no. */
  was?: 'number' | 'boolean';
}

function rowsOf(value: unknown): Row[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  return Object.entries(value as Record<string, unknown>).map(([name, item]) => {
    if (typeof item === 'object' && item !== null) return { name, value: '', nested: item };
    if (typeof item === 'number') return { name, value: String(item), was: 'number' };
    if (typeof item === 'boolean') return { name, value: String(item), was: 'boolean' };
    return { name, value: item === null ? '' : String(item) };
  });
}

function checkRows(field: string, rows: Row[]): DraftCheck {
  const object: Record<string, unknown> = {};
  for (const row of rows) {
    const name = row.name.trim();
    if (name === '' && row.value.trim() === '' && row.nested === undefined) continue; // a row just added
    if (name === '') return { ok: false, message: 'Each value needs a name.' };
    if (Object.hasOwn(object, name)) return { ok: false, message: `The name “${name}” is used twice.` };
    if (row.nested !== undefined) object[name] = row.nested;
    else if (row.was === 'number' && row.value.trim() !== '' && Number.isFinite(Number(row.value))) object[name] = Number(row.value);
    else if (row.was === 'boolean' && (row.value === 'true' || row.value === 'false')) object[name] = row.value === 'true';
    else object[name] = row.value;
  }
  return { ok: true, body: { [field]: Object.keys(object).length === 0 ? null : object } };
}

/** An object field (custom_data) as named values: one row per name, nested data kept as it is. */
export function NamedValuesEditor({ field, project, label }: { field: WritablePlainField; project: ProjectDetailJson; label: string }) {
  const id = useId();
  const key = `${field}:rows`;
  const draft = useProjectStore((state) => state.drafts[key]) as Row[] | undefined;
  const error = useProjectStore((state) => state.fieldErrors[key]);
  const editDraft = useProjectStore((state) => state.editDraft);
  const flush = useProjectStore((state) => state.flush);
  const rows = draft ?? rowsOf(project[field]);
  const change = (next: Row[]) => editDraft(key, next, checkRows(field, next), label);
  // Rows just added and still blank live here, not in the draft: they change nothing to save, and the
  // save that ends a draft would otherwise take a new row away before anything was typed in it.
  const [blankRows, setBlankRows] = useState(0);
  const shown: Row[] = [...rows, ...Array.from({ length: blankRows }, () => ({ name: '', value: '' }))];
  const changeRow = (index: number, patch: Partial<Row>) => {
    if (index < rows.length) return change(rows.map((old, at) => (at === index ? { ...old, ...patch } : old)));
    // The first thing typed in a new row makes it part of the draft (it keeps its place, and so the focus).
    setBlankRows((count) => count - 1);
    change([...rows, { ...shown[index]!, ...patch }]);
  };
  const removeRow = (index: number) => (index < rows.length ? change(rows.filter((_, at) => at !== index)) : setBlankRows((count) => count - 1));

  return (
    <fieldset className={`field field-wide named-values${error ? ' has-error' : ''}`} aria-describedby={error ? `${id}-error` : undefined}>
      <legend>{label}</legend>
      {shown.length === 0 && <span className="muted">No values yet.</span>}
      {shown.map((row, index) => (
        <div className="named-value" key={index}>
          <input
            aria-label={`Name ${index + 1}`}
            placeholder="Name"
            value={row.name}
            onChange={(event) => changeRow(index, { name: event.target.value })}
            onBlur={() => void flush()}
          />
          {row.nested !== undefined ? (
            <span className="read-only" title="Nested data from the service, kept as it is">
              {summaryOf(row.nested)}
            </span>
          ) : (
            <input
              aria-label={`Value ${index + 1}`}
              placeholder="Value"
              value={row.value}
              onChange={(event) => changeRow(index, { value: event.target.value })}
              onBlur={() => void flush()}
            />
          )}
          <button type="button" className="button" aria-label={`Remove ${row.name ? `the value “${row.name.replace(/_/g, ' ')}”` : `value ${index + 1}`}`} onClick={() => removeRow(index)}>
            Remove
          </button>
        </div>
      ))}
      <button type="button" className="button" onClick={() => setBlankRows((count) => count + 1)}>
        Add a value
      </button>
      {error && (
        <span id={`${id}-error`} className="field-error" role="alert">
          {error}
        </span>
      )}
    </fieldset>
  );
}

import { useId } from 'react';
import { WRITABLE_PLAIN_FIELDS, type WritablePlainField } from '../../../../shared/project-fields.ts';
import type { ProjectDetailJson } from '../../../../shared/schemas/project.ts';
import { labelOf } from '../../format.ts';
import { MULTILINE_FIELDS } from '../../project/field-sections.ts';
import { inputTextOf, isJsonKind } from '../../project/field-validation.ts';
import { useProjectStore } from '../../stores/project-store.ts';

/** One writable field, its input chosen by its kind, checked as the user types. */
export function FieldInput({ field, project }: { field: WritablePlainField; project: ProjectDetailJson }) {
  const id = useId();
  const kind = WRITABLE_PLAIN_FIELDS[field].kind;
  const draft = useProjectStore((state) => state.drafts[field]);
  const error = useProjectStore((state) => state.fieldErrors[field]);
  const edit = useProjectStore((state) => state.edit);
  const flush = useProjectStore((state) => state.flush);
  const value = draft ?? inputTextOf(kind, project[field]);
  const common = {
    id,
    name: field,
    'aria-invalid': error ? true : undefined,
    'aria-describedby': error ? `${id}-error` : undefined,
    onBlur: () => void flush(),
  } as const;

  let input;
  if (kind === 'boolean') {
    input = <input {...common} type="checkbox" checked={value === true} onChange={(event) => edit(field, event.target.checked)} />;
  } else if (isJsonKind(kind) || MULTILINE_FIELDS.has(field)) {
    input = (
      <textarea
        {...common}
        className={isJsonKind(kind) ? 'mono' : undefined}
        rows={isJsonKind(kind) ? 3 : 4}
        placeholder={isJsonKind(kind) ? (kind === 'array' ? '[]' : 'JSON, or empty for none') : undefined}
        value={String(value)}
        onChange={(event) => edit(field, event.target.value)}
      />
    );
  } else {
    const isDate = kind.endsWith('date');
    const isNumeric = kind.includes('number') || kind.includes('integer');
    input = (
      <input
        {...common}
        type={isDate ? 'date' : 'text'}
        inputMode={isNumeric ? (kind.includes('integer') ? 'numeric' : 'decimal') : undefined}
        value={String(value)}
        onChange={(event) => edit(field, event.target.value)}
      />
    );
  }
  const isWide = MULTILINE_FIELDS.has(field) || isJsonKind(kind);
  return (
    <div className={`field${kind === 'boolean' ? ' field-check' : ''}${isWide ? ' field-wide' : ''}${error ? ' has-error' : ''}`}>
      <label htmlFor={id}>{labelOf(field)}</label>
      {input}
      {error && (
        <span id={`${id}-error`} className="field-error" role="alert">
          {error}
        </span>
      )}
    </div>
  );
}

import './FieldInput.css';
import { useEffect, useId, useRef } from 'react';
import { FIELD_EDITING, WRITABLE_PLAIN_FIELDS, type WritablePlainField } from '../../../../shared/project-fields.ts';
import type { ProjectDetailJson } from '../../../../shared/schemas/project.ts';
import { labelOf } from '../../format.ts';
import { MULTILINE_FIELDS } from '../../project/field-sections.ts';
import { inputTextOf, type RawInput } from '../../project/field-validation.ts';
import { useProjectStore } from '../../stores/project-store.ts';
import { summaryOf } from '../../project/field-summary.ts';
import { NamedValuesEditor } from './NamedValuesEditor.tsx';
import { postalCodeWarning } from '../../../../shared/field-rules.ts';

/** What a number input holds when the browser cannot read it as a number ("1e", "--2"): the check then says why. */
const UNREADABLE_NUMBER = 'not a number';

/** One writable field in people's terms: a switch, a number, a date, text, named values, or a read-only summary with its reason. */
export function FieldInput({ field, project }: { field: WritablePlainField; project: ProjectDetailJson }) {
  const id = useId();
  const kind = WRITABLE_PLAIN_FIELDS[field].kind;
  const editing = FIELD_EDITING[field];
  const draft = useProjectStore((state) => state.drafts[field]) as RawInput | undefined;
  const error = useProjectStore((state) => state.fieldErrors[field]);
  // The country being typed counts before it is saved, so the zip's warning follows it.
  const countryDraft = useProjectStore((state) => state.drafts.country_iso2) as string | undefined;
  const edit = useProjectStore((state) => state.edit);
  const flush = useProjectStore((state) => state.flush);
  const label = labelOf(field);

  if (editing?.control === 'read_only') {
    return (
      <div className="field field-read-only">
        <span className="label" id={id}>
          {label}
        </span>
        <span className="read-only" aria-labelledby={id} data-testid={`read-only-${field}`}>
          {summaryOf(project[field])}
        </span>
        <span className="field-hint">{editing.reason}</span>
      </div>
    );
  }
  if (editing?.control === 'named_values') return <NamedValuesEditor field={field} project={project} label={label} />;

  const value = draft ?? inputTextOf(kind, project[field]);
  // A postal code that does not look like its country's is saved all the same, with a warning (shared/field-rules.ts).
  const warning = field === 'zip' && !error ? postalCodeWarning(countryDraft ?? project.country_iso2, String(value)) : null;
  const common = {
    id,
    name: field,
    'aria-invalid': error ? true : undefined,
    'aria-describedby': error ? `${id}-error` : warning ? `${id}-warning` : undefined,
    onBlur: () => void flush(),
  } as const;

  let input;
  const isSwitch = kind === 'boolean' || editing?.control === 'flag';
  if (isSwitch) {
    // A flag is an integer the service reads as 0 = no, anything else = yes.
    const isOn = kind === 'boolean' ? value === true : String(value).trim() !== '' && Number(value) !== 0;
    input = (
      <input
        {...common}
        type="checkbox"
        role="switch"
        className="switch"
        checked={isOn}
        onChange={(event) => edit(field, kind === 'boolean' ? event.target.checked : event.target.checked ? '1' : '0')}
      />
    );
  } else if (MULTILINE_FIELDS.has(field)) {
    input = <textarea {...common} rows={4} value={String(value)} onChange={(event) => edit(field, event.target.value)} />;
  } else if (kind.includes('integer')) {
    input = <IntegerInput common={common} value={String(value)} onEdit={(text) => edit(field, text)} />;
  } else {
    const isDate = kind.endsWith('date');
    input = (
      <input
        {...common}
        type={isDate ? 'date' : 'text'}
        inputMode={kind.includes('number') ? 'decimal' : undefined}
        value={String(value)}
        onChange={(event) => edit(field, event.target.value)}
      />
    );
  }
  const isWide = MULTILINE_FIELDS.has(field);
  return (
    <div className={`field${isSwitch ? ' field-check' : ''}${isWide ? ' field-wide' : ''}${field === 'title' ? ' field-title' : ''}${error ? ' has-error' : ''}${warning ? ' has-warning' : ''}`}>
      <label htmlFor={id}>{label}</label>
      {input}
      {error && (
        <span id={`${id}-error`} className="field-error" role="alert">
          {error}
        </span>
      )}
      {warning && (
        <span id={`${id}-warning`} className="field-warning" role="status" data-testid={`warning-${field}`}>
          {warning}
        </span>
      )}
    </div>
  );
}

/**
 * A whole number with the browser's number input. It is left uncontrolled while
 * focused, so text the browser cannot read as a number stays as typed (and is
 * marked), rather than being wiped by a re-render.
 */
function IntegerInput({ common, value, onEdit }: { common: Record<string, unknown>; value: string; onEdit: (text: string) => void }) {
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => {
    const input = ref.current;
    if (input && document.activeElement !== input && input.value !== value && value !== UNREADABLE_NUMBER) input.value = value;
  }, [value]);
  return (
    <input
      {...common}
      ref={ref}
      type="number"
      step={1}
      inputMode="numeric"
      defaultValue={value === UNREADABLE_NUMBER ? '' : value}
      onChange={(event) => onEdit(event.target.validity.badInput ? UNREADABLE_NUMBER : event.target.value)}
      // A wheel over a focused number input would change it by accident.
      onWheel={(event) => event.currentTarget.blur()}
    />
  );
}

import './HeadersEditor.css';
import { type HeaderRow, headerRow } from '../../webhooks/webhook-draft.ts';

/** The webhook's `headers` as name/value rows (the API stores them as a JSON string). */
export function HeadersEditor({
  rows,
  problems,
  errors,
  onChange,
}: {
  rows: HeaderRow[];
  /** By row key. */
  problems: Map<number, string>;
  /** The server's, for the whole field. */
  errors: string[];
  onChange: (rows: HeaderRow[]) => void;
}) {
  const update = (key: number, patch: Partial<HeaderRow>) => onChange(rows.map((row) => (row.key === key ? { ...row, ...patch } : row)));
  return (
    <fieldset className={`form-panel headers-editor${problems.size || errors.length ? ' has-error' : ''}`} data-testid="headers-editor">
      <legend>Headers</legend>
      <p className="muted">Sent with every delivery, for example an API key your endpoint expects.</p>
      {rows.length === 0 && <p className="muted">No headers.</p>}
      {rows.map((row, index) => {
        const problem = problems.get(row.key);
        return (
          <div key={row.key} className="header-row" data-testid="header-row">
            <input
              aria-label={`Header ${index + 1} name`}
              placeholder="X-Api-Key"
              value={row.name}
              aria-invalid={problem ? true : undefined}
              onChange={(event) => update(row.key, { name: event.target.value })}
            />
            <input aria-label={`Header ${index + 1} value`} placeholder="Value" value={row.value} onChange={(event) => update(row.key, { value: event.target.value })} />
            <button type="button" className="link-button" aria-label={`Remove header ${row.name || index + 1}`} onClick={() => onChange(rows.filter((other) => other.key !== row.key))}>
              Remove
            </button>
            {problem && (
              <span className="field-error header-problem" role="alert">
                {problem}
              </span>
            )}
          </div>
        );
      })}
      <div>
        <button type="button" className="button" onClick={() => onChange([...rows, headerRow()])}>
          Add header
        </button>
      </div>
      {errors.map((message) => (
        <span key={message} className="field-error" role="alert">
          {message}
        </span>
      ))}
    </fieldset>
  );
}

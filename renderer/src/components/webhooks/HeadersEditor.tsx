/** The webhook's `headers`: a JSON object of header names to values, checked as it is typed. */
export function HeadersEditor({ value, problems, onChange }: { value: string; problems: string[]; onChange: (value: string) => void }) {
  return (
    <div className={`field field-wide${problems.length ? ' has-error' : ''}`}>
      <label htmlFor="webhook-headers">Headers (JSON)</label>
      <textarea
        id="webhook-headers"
        className="mono"
        rows={3}
        placeholder={'{"X-Api-Key": "…"}'}
        value={value}
        aria-invalid={problems.length > 0 || undefined}
        onChange={(event) => onChange(event.target.value)}
      />
      {problems.map((problem) => (
        <span key={problem} className="field-error" role="alert">
          {problem}
        </span>
      ))}
      {problems.length === 0 && <span className="muted">Sent with every delivery. Leave empty for none.</span>}
    </div>
  );
}

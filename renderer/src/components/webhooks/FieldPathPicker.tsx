import { useId, useState } from 'react';
import { DOCUMENTED_FIELD_PATHS, describePathProblem } from '../../webhooks/field-paths.ts';

/** A list of field paths: chips to remove, a box to add any documented path (or a deeper one), and the defaults. */
export function FieldPathPicker({
  title,
  help,
  paths,
  defaults,
  onChange,
}: {
  title: string;
  help: string;
  paths: string[];
  defaults: readonly string[];
  onChange: (paths: string[]) => void;
}) {
  const listId = useId();
  const [text, setText] = useState('');
  const problem = text.trim() ? describePathProblem(text) : null;
  const add = () => {
    const path = text.trim();
    if (!path || problem) return;
    if (!paths.includes(path)) onChange([...paths, path]);
    setText('');
  };
  return (
    <fieldset className="path-picker" data-testid={`picker-${title.toLowerCase().replace(/\s+/g, '-')}`}>
      <legend>
        {title} <span className="muted">({paths.length})</span>
      </legend>
      <p className="muted">{help}</p>
      <div className="chips">
        {paths.length === 0 && <span className="muted">None: blank is stored as “not set”.</span>}
        {paths.map((path) => (
          <span key={path} className="chip">
            {path}
            <button type="button" aria-label={`Remove ${path}`} onClick={() => onChange(paths.filter((other) => other !== path))}>
              ×
            </button>
          </span>
        ))}
      </div>
      <div className="path-add">
        <input
          list={listId}
          aria-label={`Add to ${title.toLowerCase()}`}
          placeholder="project.notes, contact.*, project.systems.kw_stc…"
          value={text}
          onChange={(event) => setText(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter') {
              event.preventDefault();
              add();
            }
          }}
        />
        <datalist id={listId}>
          {DOCUMENTED_FIELD_PATHS.filter((path) => !paths.includes(path)).map((path) => (
            <option key={path} value={path} />
          ))}
        </datalist>
        <button type="button" className="button" onClick={add} disabled={!text.trim() || problem !== null}>
          Add
        </button>
        <button type="button" className="link-button" onClick={() => onChange([...defaults])}>
          Reset to defaults
        </button>
        <button type="button" className="link-button" onClick={() => onChange([])}>
          Clear
        </button>
      </div>
      {problem && <span className="field-error">{problem}</span>}
    </fieldset>
  );
}

import './FieldPathPicker.css';
import { useState } from 'react';
import { pathLabel } from '../../webhooks/path-label.ts';
import { KNOWN_WEBHOOK_PATHS, WEBHOOK_MODELS, isKnownWebhookPath, webhookPathModelNote, type WebhookModel } from '../../../../shared/webhook-fields.ts';

const OTHER = '__other__';
const MODEL_LABELS: Record<WebhookModel, string> = {
  project: 'Project',
  contact: 'Contact',
  event: 'Event (activity)',
  quote: 'Quote (hosted service only)',
  quoteactivitylog: 'Quote activity log (hosted service only)',
};

/** How a field reads in the field box: its words, then the path. */
const fieldLabel = (model: string, field: string) => `${pathLabel(`${model}.${field}`)} · ${field}`;

/**
 * A list of field paths, chosen from the paths SolarDesk knows for each model
 * (shared/webhook-fields.ts), or typed ("Other field…"). Chips show the list; a
 * path SolarDesk does not know is marked (it is kept: the hosted service has more
 * fields), and so is a path with no model webhooks watch (an integration's `id` or
 * `event_type_id`): marked, never refused, as the API takes any path.
 */
export function FieldPathPicker({
  field,
  title,
  help,
  paths,
  defaults,
  errors,
  onChange,
}: {
  field: string;
  title: string;
  help: string;
  paths: string[];
  defaults: readonly string[];
  errors: string[];
  onChange: (paths: string[]) => void;
}) {
  const [model, setModel] = useState<WebhookModel>('project');
  const [choice, setChoice] = useState('');
  const [other, setOther] = useState('');
  const known = KNOWN_WEBHOOK_PATHS[model].filter((path) => !paths.includes(path));
  const typed = other.trim().replace(new RegExp(`^${model}\\.`), '');
  const candidate = choice === OTHER ? (typed ? `${model}.${typed}` : '') : choice;
  const candidateUnknown = candidate !== '' && !isKnownWebhookPath(candidate);
  const add = () => {
    if (!candidate) return;
    if (!paths.includes(candidate)) onChange([...paths, candidate]);
    setChoice('');
    setOther('');
  };
  const slug = title.toLowerCase().replace(/\s+/g, '-');
  return (
    <fieldset className={`form-panel path-picker${errors.length ? ' has-error' : ''}`} data-testid={`picker-${slug}`}>
      <legend>
        {title} <span className="muted">({paths.length})</span>
      </legend>
      <p className="muted">{help}</p>
      <div className="chips">
        {paths.length === 0 && <span className="muted">None: blank is stored as “not set”.</span>}
        {paths.map((path) => {
          const modelNote = webhookPathModelNote(path);
          const unknown = !isKnownWebhookPath(path);
          const note = modelNote ?? (unknown ? 'SolarDesk does not know this field. It is kept and sent as is: the hosted service has more fields than SolarDesk.' : undefined);
          return (
            <span key={path} className={`chip${unknown ? ' chip-unknown' : ''}`} title={note} data-testid="path-chip">
              <span className="chip-label">{pathLabel(path)}</span>
              <code className="chip-path">{path}</code>
              {unknown && <span className="chip-note">{modelNote ? 'not a model: never fires' : 'not known to SolarDesk'}</span>}
              <button type="button" aria-label={`Remove ${pathLabel(path)}`} onClick={() => onChange(paths.filter((candidatePath) => candidatePath !== path))}>
                ×
              </button>
            </span>
          );
        })}
      </div>
      <div className="path-add">
        <select
          aria-label={`Model to add to ${title.toLowerCase()}`}
          value={model}
          onChange={(event) => {
            setModel(event.target.value as WebhookModel);
            setChoice('');
          }}
        >
          {WEBHOOK_MODELS.map((name) => (
            <option key={name} value={name}>
              {MODEL_LABELS[name]}
            </option>
          ))}
        </select>
        <select aria-label={`Field to add to ${title.toLowerCase()}`} value={choice} onChange={(event) => setChoice(event.target.value)}>
          <option value="">Choose a field…</option>
          {known.map((path) => (
            <option key={path} value={path}>
              {fieldLabel(model, path.slice(model.length + 1))}
            </option>
          ))}
          <option value={OTHER}>Other field (type it)…</option>
        </select>
        {choice === OTHER && (
          <input
            aria-label={`Other ${model} field for ${title.toLowerCase()}`}
            placeholder="systems.kw_stc"
            value={other}
            autoFocus
            onChange={(event) => setOther(event.target.value)}
            onKeyDown={(event) => {
              if (event.key === 'Enter') {
                event.preventDefault();
                add();
              }
            }}
          />
        )}
        <button type="button" className="button" onClick={add} disabled={!candidate}>
          Add
        </button>
        <button type="button" className="link-button" onClick={() => onChange([...defaults])}>
          Reset to defaults
        </button>
        <button type="button" className="link-button" onClick={() => onChange([])}>
          Clear
        </button>
      </div>
      {candidateUnknown && (
        <span className="field-note" data-testid={`${field}-unknown-note`}>
          SolarDesk does not know {candidate}. You can still add it: the hosted service has more fields than SolarDesk, and unknown fields are kept.
        </span>
      )}
      {errors.map((message) => (
        <span key={message} className="field-error" role="alert">
          {message}
        </span>
      ))}
    </fieldset>
  );
}

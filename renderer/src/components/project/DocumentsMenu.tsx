// The project's Documents menu (issue 29, docs/documents.md "In the app"): pick
// the type, the system, the payment option and the template (defaults picked; a
// picker with one choice, or one the type does not use, is not shown), look at the
// document before saving it (PDFs in the in-app viewer, CSVs as a table), then save
// it to the project or a copy to disk. Made on the local engine, with no network.
import './DocumentsMenu.css';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { ProjectDetailJson } from '../../../../shared/schemas/project.ts';
import { DOCUMENT_TYPES, DOCUMENT_TYPE_NAMES, type DocumentFormat, type DocumentType } from '../../../../shared/documents.ts';
import { chosenPaymentOption, chosenSystem } from '../../../../shared/design-figures.ts';
import { parseCsv } from '../../../../shared/csv-parse.ts';
import { isDesktop } from '../../bridge-client.ts';
import { useDecodedDesign } from '../../design/design-decoding.ts';
import { useDocumentsStore, type DocumentChoice } from '../../stores/documents-store.ts';
import { useUiStore } from '../../stores/ui-store.ts';
import { useEscapeKey } from '../common/use-escape-key.ts';
import { PdfViewer } from '../files/PdfViewer.tsx';

const FORMAT_LABELS: Record<DocumentFormat, string> = { pdf: 'PDF', csv: 'Spreadsheet (CSV)' };
/** Rows of a CSV shown in the preview; the saved file has them all. */
const CSV_PREVIEW_ROWS = 40;

export function DocumentsButton({ project }: { project: ProjectDetailJson }) {
  const [isOpen, setIsOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const close = () => {
    setIsOpen(false);
    useDocumentsStore.getState().reset();
    button.current?.focus();
  };
  return (
    <>
      <button ref={button} type="button" className="button" aria-haspopup="dialog" aria-expanded={isOpen} onClick={() => setIsOpen(true)} data-testid="documents-button">
        Documents…
      </button>
      {isOpen && <DocumentsDialog project={project} onClose={close} />}
    </>
  );
}

function DocumentsDialog({ project, onClose }: { project: ProjectDetailJson; onClose(): void }) {
  const decoded = useDecodedDesign(project.design);
  const design = decoded && 'design' in decoded ? decoded.design : null;
  const templates = useDocumentsStore((state) => (state.templates?.orgId === project.org_id ? state.templates.list : null));
  const step = useDocumentsStore((state) => state.step);
  const made = useDocumentsStore((state) => state.made);
  const error = useDocumentsStore((state) => state.error);
  const saved = useDocumentsStore((state) => state.saved);
  const { make, saveToProject, saveCopy, loadTemplates, reset } = useDocumentsStore.getState();
  const [documentType, setDocumentType] = useState<DocumentType>('proposal');
  const [fileFormat, setFileFormat] = useState<DocumentFormat>('pdf');
  const [systemUuid, setSystemUuid] = useState<string | null>(null);
  const [paymentOptionId, setPaymentOptionId] = useState<number | null>(null);
  /** undefined: the org's template of the type (the engine's default); null: the standard layout. */
  const [templateId, setTemplateId] = useState<number | null | undefined>(undefined);
  const typeSelect = useRef<HTMLSelectElement>(null);

  useEffect(() => typeSelect.current?.focus(), []);
  useEffect(() => void loadTemplates(project.org_id), [loadTemplates, project.org_id]);
  useEscapeKey(onClose);

  const facts = DOCUMENT_TYPES[documentType];
  const system = design ? chosenSystem(design, systemUuid) : undefined;
  const option = system ? chosenPaymentOption(system, paymentOptionId) : undefined;
  const typeTemplates = useMemo(() => (templates ?? []).filter((template) => template.document_type === documentType), [templates, documentType]);
  const choice: DocumentChoice = {
    documentType,
    fileFormat,
    systemUuid: system?.uuid,
    paymentOptionId: facts.usesPaymentOption ? option?.id : undefined,
    documentTemplateId: templateId === undefined ? typeTemplates[0]?.id : templateId,
  };
  const choose = (change: () => void) => {
    change();
    // A preview of other choices is not what would be saved.
    if (useDocumentsStore.getState().step !== 'choosing') reset();
  };
  const title = facts.title;
  // One buffer per document made: the viewer reads it again only when it changes.
  const pdfBytes = useMemo(() => (made?.contentType === 'application/pdf' ? made.bytes.slice().buffer : null), [made]);
  const isBusy = step === 'making' || step === 'saving';

  return (
    <div className="dialog-backdrop" onClick={onClose}>
      <section
        className={`dialog documents-dialog${made ? ' has-preview' : ''}`}
        role="dialog"
        aria-modal="true"
        aria-labelledby="documents-title"
        data-testid="documents-dialog"
        data-step={step}
        onClick={(event) => event.stopPropagation()}
      >
        <header className="documents-header">
          <h2 id="documents-title">Make a document</h2>
          <button type="button" className="button" onClick={onClose} aria-label="Close" title="Close (Esc)">
            ✕
          </button>
        </header>
        <div className="documents-choices">
          <label>
            Document
            <select ref={typeSelect} value={documentType} onChange={(event) => choose(() => {
              const next = event.target.value as DocumentType;
              setDocumentType(next);
              setFileFormat(DOCUMENT_TYPES[next].formats[0]!);
              setTemplateId(undefined);
            })}>
              {DOCUMENT_TYPE_NAMES.map((type) => (
                <option key={type} value={type}>
                  {DOCUMENT_TYPES[type].title}
                </option>
              ))}
            </select>
          </label>
          {facts.formats.length > 1 && (
            <label>
              Format
              <select value={fileFormat} onChange={(event) => choose(() => setFileFormat(event.target.value as DocumentFormat))}>
                {facts.formats.map((format) => (
                  <option key={format} value={format}>
                    {FORMAT_LABELS[format]}
                  </option>
                ))}
              </select>
            </label>
          )}
          {design && design.systems.length > 1 && (
            <label>
              System
              <select value={system?.uuid ?? ''} title={system?.name} onChange={(event) => choose(() => {
                setSystemUuid(event.target.value);
                setPaymentOptionId(null);
              })}>
                {design.systems.map((candidate) => (
                  <option key={candidate.uuid} value={candidate.uuid}>
                    {candidate.name}
                    {candidate.is_sold ? ' (sold)' : ''}
                  </option>
                ))}
              </select>
            </label>
          )}
          {facts.usesPaymentOption && system && system.payment_options.length > 1 && (
            <label>
              Payment option
              <select value={option?.id ?? ''} title={option?.title} onChange={(event) => choose(() => setPaymentOptionId(Number(event.target.value)))}>
                {system.payment_options.map((candidate) => (
                  <option key={candidate.id} value={candidate.id}>
                    {candidate.title}
                  </option>
                ))}
              </select>
            </label>
          )}
          {typeTemplates.length > 0 && (
            <label>
              Template
              <select
                value={choice.documentTemplateId ?? ''}
                onChange={(event) => choose(() => setTemplateId(event.target.value === '' ? null : Number(event.target.value)))}
              >
                <option value="">Standard layout</option>
                {typeTemplates.map((template) => (
                  <option key={template.id} value={template.id}>
                    {template.title}
                  </option>
                ))}
              </select>
            </label>
          )}
          <button type="button" className="button button-primary" disabled={isBusy} onClick={() => void make(project.id, choice)}>
            {made ? 'Make again' : 'Preview'}
          </button>
        </div>
        {decoded && 'error' in decoded && <p className="danger">{decoded.error}</p>}
        {step === 'making' && (
          <div className="documents-progress" role="status" aria-live="polite">
            <progress aria-label={`Making the ${title.toLowerCase()}`} />
            <span>Making the {title.toLowerCase()} on this computer…</span>
          </div>
        )}
        {error && (
          <p className="documents-error" role="alert" data-testid="documents-error">
            {error}
          </p>
        )}
        {made && (
          <div className="documents-preview" data-testid="documents-preview">
            {made.contentType === 'application/pdf' ? <PdfViewer bytes={pdfBytes!} title={`${title} preview`} /> : <CsvPreview bytes={made.bytes} />}
          </div>
        )}
        {!made && step === 'choosing' && (
          <p className="muted">
            {design ? `Made from the design and the project as they are now, on this computer: no network is needed.` : 'This project has no design yet: a document needs a designed system.'}
          </p>
        )}
        {saved && (
          <p className="documents-saved" role="status" data-testid="documents-saved">
            Saved “{saved.title}” to the project: it is in Files and in the project folder.
          </p>
        )}
        <div className="dialog-actions">
          {made && (
            <button type="button" className="button" onClick={() => void saveCopy()} disabled={isBusy}>
              {isDesktop ? 'Save a copy…' : 'Download a copy'}
            </button>
          )}
          {made && !saved && (
            <button type="button" className="button button-primary" onClick={() => void saveToProject(project.org_id)} disabled={isBusy}>
              {step === 'saving' ? 'Saving…' : 'Save to project'}
            </button>
          )}
          {saved && (
            <button
              type="button"
              className="button button-primary"
              onClick={() => {
                onClose();
                useUiStore.getState().showTab('files');
              }}
            >
              Show in Files
            </button>
          )}
        </div>
      </section>
    </div>
  );
}

/** A CSV's column name in people's words: "utility_bill_savings" reads "Utility bill savings", "output_kwh" "Output kWh". */
const columnTitle = (name: string) => (name.charAt(0).toUpperCase() + name.slice(1)).replaceAll('_', ' ').replace(/\bkwh\b/gi, 'kWh');

function CsvPreview({ bytes }: { bytes: Uint8Array }) {
  const rows = useMemo(() => parseCsv(new TextDecoder().decode(bytes)).filter((row) => row.some((field) => field !== '')), [bytes]);
  const [header, ...body] = rows;
  if (!header) return <p className="muted">The spreadsheet is empty.</p>;
  const shown = body.length > CSV_PREVIEW_ROWS ? [...body.slice(0, CSV_PREVIEW_ROWS - 1), body.at(-1)!] : body;
  return (
    <div className="csv-preview" data-scrolls-sideways>
      <table className="table">
        <thead>
          <tr>
            {header.map((name, index) => (
              <th key={index} scope="col">
                {columnTitle(name)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {shown.map((row, index) => (
            <tr key={index}>
              {row.map((field, column) => (
                <td key={column}>{field}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {body.length > CSV_PREVIEW_ROWS && (
        <p className="muted">
          {body.length - CSV_PREVIEW_ROWS} more rows before the last; the saved file has all {body.length}.
        </p>
      )}
    </div>
  );
}

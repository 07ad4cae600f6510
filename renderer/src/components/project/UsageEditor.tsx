import './UsageEditor.css';
import { useId, useState } from 'react';
import {
  USAGE_DATA_SOURCES,
  USAGE_ESTIMATES,
  USAGE_SOURCE_LABELS,
  USAGE_SOURCES,
  type Usage,
  type UsageDataSource,
  billCurrencyOf,
  blankBoxTexts,
  boxTextsOf,
  carryUsageBoxes,
  describeUsageProblem,
  isBillSource,
  projectAnnualUsage,
  usageFromBoxes,
} from '../../../../shared/usage.ts';
import type { ProjectDetailJson } from '../../../../shared/schemas/project.ts';
import { formatNumber } from '../../format.ts';
import { type DraftCheck, useProjectStore } from '../../stores/project-store.ts';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const PERIOD_LABELS: Record<number, string[]> = {
  12: MONTHS,
  6: ['Jan–Feb', 'Mar–Apr', 'May–Jun', 'Jul–Aug', 'Sep–Oct', 'Nov–Dec'],
  4: ['Q1 (Jan–Mar)', 'Q2 (Apr–Jun)', 'Q3 (Jul–Sep)', 'Q4 (Oct–Dec)'],
};
const DRAFT_KEY = 'usage';

/** "Bill each month" -> "bill each month"; "kWh ..." stays as it is. */
const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1);

/** The editor's draft: the boxes of the chosen source, and what was typed for the others (restorable). */
interface UsageDraft {
  source: UsageDataSource;
  texts: string[];
  bySource: Partial<Record<UsageDataSource, string[]>>;
  /** Says where the boxes came from after a change of source. */
  carriedFrom?: UsageDataSource;
}

function storedUsage(project: ProjectDetailJson): Usage | null {
  return describeUsageProblem(project.usage) === null ? (project.usage as Usage) : null;
}

function draftOf(usage: Usage | null): UsageDraft {
  if (!usage) return { source: 'kwh_annual', texts: [''], bySource: {} };
  return { source: usage.usage_data_source, texts: boxTextsOf(usage), bySource: {} };
}

function checkOf(draft: UsageDraft): DraftCheck {
  const result = usageFromBoxes(draft.source, draft.texts);
  if (result.ok) return { ok: true, body: { usage: result.usage } };
  const count = result.boxErrors.filter(Boolean).length;
  return { ok: false, message: count === 1 ? 'One box needs fixing: it is marked.' : `${count} boxes need fixing: they are marked.` };
}

/** Each usage source with the boxes its values need: kWh or money in the project's currency, with cents, each box checked. */
export function UsageEditor({ project }: { project: ProjectDetailJson }) {
  const sourceId = useId();
  const draft = useProjectStore((state) => state.drafts[DRAFT_KEY]) as UsageDraft | undefined;
  const problem = useProjectStore((state) => state.fieldErrors[DRAFT_KEY]);
  const isSaving = useProjectStore((state) => DRAFT_KEY in state.pending || state.saveState === 'saving');
  const editDraft = useProjectStore((state) => state.editDraft);
  const flush = useProjectStore((state) => state.flush);
  // What was typed for the other sources, kept past the save (which ends the draft) while the
  // project is open: switching back after the change was saved still finds its boxes as they were.
  const [kept, setKept] = useState<{ projectId: number; bySource: UsageDraft['bySource'] } | null>(null);
  const current = draft ?? { ...draftOf(storedUsage(project)), bySource: kept?.projectId === project.id ? kept.bySource : {} };
  // Which source's boxes the shown ones were worked out from: kept past the save (which ends
  // the draft), so the note does not vanish the moment the values reach the store.
  const [carried, setCarried] = useState<{ projectId: number; source: UsageDataSource; from: UsageDataSource } | null>(null);
  const carriedFrom = current.carriedFrom ?? (carried && carried.projectId === project.id && carried.source === current.source ? carried.from : undefined);
  const shape = USAGE_SOURCES[current.source];
  const isBill = isBillSource(current.source);
  const currency = billCurrencyOf(project);

  const change = (next: UsageDraft) => editDraft(DRAFT_KEY, next, checkOf(next), 'Energy usage');
  const changeSource = (source: UsageDataSource) => {
    const bySource = { ...current.bySource, [current.source]: current.texts };
    // Back to a source typed before: its boxes as they were. Else carried over where that makes sense.
    const typed = bySource[source];
    const carried = typed ? null : carryUsageBoxes(current.source, current.texts, source);
    change({ source, texts: typed ?? carried ?? blankBoxTexts(source), bySource, carriedFrom: carried ? current.source : undefined });
    setCarried(carried ? { projectId: project.id, source, from: current.source } : null);
    setKept({ projectId: project.id, bySource });
  };

  const result = usageFromBoxes(current.source, current.texts);
  const boxErrors = result.ok ? [] : result.boxErrors;
  const annual = draft ? (result.ok ? projectAnnualUsage(project, result.usage) : null) : projectAnnualUsage(project);
  const unit = isBill ? (currency ?? 'amount') : 'kWh';
  const isAllBlank = current.texts.every((text) => text.trim() === '');
  const keptSources = (Object.keys(current.bySource) as UsageDataSource[]).filter((source) => source !== current.source && current.bySource[source]!.some((text) => text.trim() !== ''));

  return (
    <div className="usage-editor" data-testid="usage-editor">
      <div className="field">
        <label htmlFor={sourceId}>Usage data source</label>
        <select id={sourceId} value={current.source} onChange={(event) => changeSource(event.target.value as UsageDataSource)}>
          {USAGE_DATA_SOURCES.map((source) => (
            <option key={source} value={source}>
              {USAGE_SOURCE_LABELS[source]}
            </option>
          ))}
        </select>
      </div>
      <div className="usage-values">
        {shape.type === 'estimate' && (
          <label className="usage-value">
            <span>Estimate</span>
            <select value={current.texts[0]} onChange={(event) => change({ ...current, texts: [event.target.value] })}>
              {USAGE_ESTIMATES.map((estimate) => (
                <option key={estimate}>{estimate}</option>
              ))}
            </select>
          </label>
        )}
        {shape.type !== 'estimate' &&
          current.texts.map((text, index) => {
            const period = shape.type === 'integer' ? (isBill ? 'Bill for the year' : 'Year') : (PERIOD_LABELS[current.texts.length]?.[index] ?? `#${index + 1}`);
            const boxError = isAllBlank ? null : (boxErrors[index] ?? null);
            const errorId = `${sourceId}-box-${index}-error`;
            return (
              <label key={`${current.source}-${index}`} className={`usage-value${boxError ? ' has-error' : ''}`}>
                <span>
                  {period} <span className="usage-unit">({current.source === 'kwh_daily_per_month' ? 'kWh a day' : unit})</span>
                </span>
                <input
                  inputMode="decimal"
                  value={text}
                  aria-invalid={boxError ? true : undefined}
                  aria-describedby={boxError ? errorId : undefined}
                  onChange={(event) => {
                    setCarried(null);
                    change({ ...current, carriedFrom: undefined, texts: current.texts.map((old, at) => (at === index ? event.target.value : old)) });
                  }}
                  onBlur={() => void flush()}
                />
                {boxError && (
                  <span id={errorId} className="field-error">
                    {boxError}
                  </span>
                )}
              </label>
            );
          })}
      </div>
      <div className="usage-notes">
        {shape.type !== 'estimate' && (
          <p className="muted">
            {isBill
              ? `Amounts in ${currency ?? 'the bill’s currency'}; cents are allowed and rounded to whole amounts when saved.`
              : 'Saved as whole kWh (rounded).'}
          </p>
        )}
        {carriedFrom && <p className="muted">Worked out from the {lowerFirst(USAGE_SOURCE_LABELS[carriedFrom])} you entered.</p>}
        {keptSources.length > 0 && (
          <p className="muted">
            Your {keptSources.map((source) => lowerFirst(USAGE_SOURCE_LABELS[source])).join(' and ')} figures are kept: choose that source again to get them back.
          </p>
        )}
        {problem && draft && !isAllBlank ? (
          <p className="field-error" role="alert">
            {problem}
          </p>
        ) : (
          <p className="muted" data-testid="usage-annual">
            {annual !== null && (storedUsage(project) || draft ? `About ${formatNumber(annual)} kWh a year.` : `No usage given yet: ${formatNumber(annual)} kWh a year is assumed.`)}{' '}
            {isSaving ? 'Saving…' : ''}
          </p>
        )}
      </div>
    </div>
  );
}

import { useEffect, useRef, useState } from 'react';
import {
  USAGE_DATA_SOURCES,
  USAGE_ESTIMATES,
  USAGE_SOURCES,
  type Usage,
  type UsageDataSource,
  annualUsageOrGuess,
  describeUsageProblem,
} from '../../../../shared/usage.ts';
import type { ProjectDetailJson } from '../../../../shared/schemas/project.ts';
import { formatNumber, labelOf } from '../../format.ts';
import { useProjectStore } from '../../stores/project-store.ts';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const PERIOD_LABELS: Record<number, string[]> = {
  12: MONTHS,
  6: ['Jan–Feb', 'Mar–Apr', 'May–Jun', 'Jul–Aug', 'Sep–Oct', 'Nov–Dec'],
  4: ['Q1', 'Q2', 'Q3', 'Q4'],
};

interface UsageDraft {
  source: UsageDataSource;
  /** One text per input: one for annual figures, N for lists, the estimate word for estimate. */
  texts: string[];
}

function draftOf(usage: Usage | null): UsageDraft {
  if (!usage) return { source: 'kwh_annual', texts: [''] };
  const values = usage.values;
  return { source: usage.usage_data_source, texts: Array.isArray(values) ? values.map(String) : [String(values)] };
}

function blankTexts(source: UsageDataSource): string[] {
  const shape = USAGE_SOURCES[source];
  if (shape.type === 'integer_list') return Array.from({ length: shape.length }, () => '');
  return [shape.type === 'estimate' ? 'Medium' : ''];
}

function usageOf(draft: UsageDraft): unknown {
  const shape = USAGE_SOURCES[draft.source];
  const toNumber = (text: string) => (text.trim() === '' ? NaN : Number(text));
  const values = shape.type === 'estimate' ? draft.texts[0] : shape.type === 'integer' ? toNumber(draft.texts[0] ?? '') : draft.texts.map(toNumber);
  return { usage_data_source: draft.source, values };
}

/** Each usage_data_source with the inputs its values need, checked with the engine's own rule. */
export function UsageEditor({ project }: { project: ProjectDetailJson }) {
  const save = useProjectStore((state) => state.save);
  const [draft, setDraft] = useState<UsageDraft>(() => draftOf(project.usage));
  const [isDirty, setDirty] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const candidate = usageOf(draft);
  const problem = describeUsageProblem(candidate);
  const shape = USAGE_SOURCES[draft.source];

  // Keyed by the JSON, so a re-render with the same values does not restart the wait.
  const candidateJson = JSON.stringify(candidate);
  useEffect(() => {
    if (!isDirty || problem) return;
    clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      void save({ usage: JSON.parse(candidateJson) }).then((saved) => saved && setDirty(false));
    }, 600);
    return () => clearTimeout(timer.current);
  }, [candidateJson, isDirty, problem, save]);

  const change = (next: UsageDraft) => {
    setDraft(next);
    setDirty(true);
  };
  const annual = problem ? null : annualUsageOrGuess(candidate as Usage, project.is_residential !== false);

  return (
    <div className="usage-editor" data-testid="usage-editor">
      <div className="field">
        <label htmlFor="usage-source">Usage data source</label>
        <select id="usage-source" value={draft.source} onChange={(event) => change({ source: event.target.value as UsageDataSource, texts: blankTexts(event.target.value as UsageDataSource) })}>
          {USAGE_DATA_SOURCES.map((source) => (
            <option key={source} value={source}>
              {labelOf(source)}
            </option>
          ))}
        </select>
      </div>
      <div className="usage-values">
        {shape.type === 'estimate' && (
          <select aria-label="Estimate" value={draft.texts[0]} onChange={(event) => change({ ...draft, texts: [event.target.value] })}>
            {USAGE_ESTIMATES.map((estimate) => (
              <option key={estimate}>{estimate}</option>
            ))}
          </select>
        )}
        {shape.type !== 'estimate' &&
          draft.texts.map((text, index) => {
            const label = shape.type === 'integer' ? (draft.source.startsWith('bill') ? 'Annual bill' : 'Annual kWh') : (PERIOD_LABELS[draft.texts.length]?.[index] ?? `#${index + 1}`);
            return (
              <label key={index} className="usage-value">
                <span>{label}</span>
                <input
                  inputMode="numeric"
                  value={text}
                  onChange={(event) => change({ ...draft, texts: draft.texts.map((old, at) => (at === index ? event.target.value : old)) })}
                />
              </label>
            );
          })}
      </div>
      {problem && isDirty ? (
        <p className="field-error" role="alert">
          {problem}
        </p>
      ) : (
        <p className="muted">
          {annual !== null ? `About ${formatNumber(annual)} kWh a year.` : ''} {isDirty ? 'Saving…' : ''}
        </p>
      )}
    </div>
  );
}

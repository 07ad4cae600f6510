import './SyncBudget.css';
import { useEffect, useState } from 'react';
import { syncPaths } from '../../../../shared/api-paths.ts';
import { syncBudgetJsonSchema, type SyncBudgetJson } from '../../../../shared/schemas/sync.ts';
import { apiOkUnchecked, messageOf } from '../../api/api-client.ts';
import { formatDateTime } from '../../format.ts';
import { useSyncStore } from '../../stores/sync-store.ts';
import { quotaSentence } from './sync-summary.ts';

/** Buckets always shown; others only once this computer used them today. */
const ALWAYS = ['private_files', 'project_detail', 'default'];
const number = new Intl.NumberFormat();

/**
 * What this computer spent today of each of the org's daily quotas (issue 15), in
 * people's words: one sentence first (issue 28: background work waiting for the
 * allowance, and until when), the detail behind a disclosure, with a bar per bucket
 * (the part spent by background sync, the part by the user's own work, and the line
 * background may reach) and the work waiting. Reloads when the sync status changes.
 */
export function SyncBudget({ orgId }: { orgId: number }) {
  const status = useSyncStore((state) => state.status);
  const [budget, setBudget] = useState<SyncBudgetJson | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let cancelled = false;
    apiOkUnchecked(syncBudgetJsonSchema, 'GET', syncPaths.budget(orgId))
      .then((answer) => !cancelled && (setBudget(answer), setError(null)))
      .catch((failure) => !cancelled && setError(messageOf(failure)));
    return () => {
      cancelled = true;
    };
  }, [orgId, status]);

  if (error) return <section className="card" aria-label="Quota budget"><h2>Today's quota use</h2><p className="warning-text">Could not read today's quota use: {error}</p></section>;
  if (!budget) return null;
  const shown = budget.buckets.filter((bucket) => bucket.org_daily_quota !== null && (ALWAYS.includes(bucket.bucket) || bucket.user + bucket.background > 0));
  const waitingSentence = quotaSentence(budget);
  return (
    <section className="card sync-budget" aria-label="Quota budget" data-testid="sync-budget">
      <h2>Today's quota use</h2>
      <p data-testid="sync-budget-sentence">{waitingSentence ?? 'Background sync is within today’s allowance of requests; what you do yourself always goes first.'}</p>
      <details className="sync-budget-detail">
        <summary>Quota detail</summary>
        <p className="muted">
          The remote allows your whole organisation a number of requests a day. Background sync on this computer may use {Math.round(budget.background_share * 1000) / 10} % of each; what
          you do yourself always goes first. The count starts again at {formatDateTime(budget.resets_at)}.
        </p>
        <ul className="card-list">
          {shown.map((bucket) => {
            const quota = bucket.org_daily_quota ?? 1;
            const spent = bucket.user + bucket.background;
            const percent = (value: number) => `${Math.min(100, (value / quota) * 100)}%`;
            return (
              <li key={bucket.bucket} className="card-row sync-budget-row" data-testid="sync-budget-bucket">
                <span>
                  <strong>{bucket.label}</strong>: {number.format(spent)} of today's {number.format(quota)} (this computer)
                  {bucket.background_allowance !== null && <>; background sync may use {number.format(bucket.background_allowance)}</>}
                </span>
                <span className="sync-budget-bar" role="img" aria-label={`${spent} of ${quota} used today, ${bucket.background} by background sync`}>
                  <span className="sync-budget-user" style={{ width: percent(spent) }} />
                  <span className="sync-budget-background" style={{ width: percent(bucket.background) }} />
                  {bucket.background_allowance !== null && <span className="sync-budget-line" style={{ left: percent(bucket.background_allowance) }} />}
                </span>
              </li>
            );
          })}
        </ul>
        {budget.waiting.length > 0 && (
          <>
            <h3>Waiting for the allowance</h3>
            <ul className="card-list">
              {budget.waiting.map((wait) => (
                <li key={wait.what} className="card-row muted">
                  {wait.what[0]!.toUpperCase() + wait.what.slice(1)}: may go at {formatDateTime(wait.may_go_at)}
                </li>
              ))}
            </ul>
          </>
        )}
      </details>
    </section>
  );
}

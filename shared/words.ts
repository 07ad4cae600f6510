// Counts and times in people's words: "1 facet", "2 facets", never "2 facet(s)" (issue 28);
// when a wait ends, as the hour of the day in UTC, when the quotas' days turn.

/** "1 system", "2 systems"; `plural` for words that do not just take an s. */
export function countOf(count: number, singular: string, plural = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : plural}`;
}

/** An instant (ms since the epoch) as the time of day in UTC, "14:30 UTC": when a wait for the day's allowance ends. */
export function utcTimeOfDay(epochMs: number): string {
  return `${new Date(epochMs).toISOString().slice(11, 16)} UTC`;
}

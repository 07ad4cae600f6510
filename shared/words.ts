// Counts in people's words: "1 facet", "2 facets", never "2 facet(s)" (issue 28).

/** "1 system", "2 systems"; `plural` for words that do not just take an s. */
export function countOf(count: number, singular: string, plural = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : plural}`;
}

// How a list's `search` text becomes terms (issue 20): as Django REST Framework's
// SearchFilter splits it (`search_smart_split`), which the hosted service runs.
// Words are separated by spaces and commas; a phrase in double or single quotes,
// standing as one word, stays one term without its quotes. A record matches when
// EVERY term is found (case-insensitively, as a substring) in at least one of the
// searched fields, each term in any field. So "Waratah Glenelg" finds "101 Waratah
// Avenue" in Glenelg, and a single word, or a phrase found as it is, still finds
// everything it found when search was one substring (each of its words is in it).

/** A quoted phrase standing as a word, else a run of anything but spaces and commas. */
const TERM = /(["'])(.*?)\1(?=[\s,]|$)|[^\s,]+/gsu;

/** The terms of a search, in order, without empty ones; [] means no filter. */
export function searchTerms(search: string): string[] {
  const terms: string[] = [];
  for (const match of search.matchAll(TERM)) {
    const term = match[1] === undefined ? match[0] : match[2]!.trim();
    if (term !== '') terms.push(term);
  }
  return terms;
}

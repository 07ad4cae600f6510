// Natural title order (issue 20): numbers in a title compare as numbers, so
// "75 Macquarie Crescent" comes before "249 Hill Avenue", and "Unit 9" before
// "Unit 10"; letters compare without case or accents. The engine stores this key
// beside each project's title (`projects.title_sort`, indexed, compared bytewise:
// SQLite's BINARY, PostgreSQL's "C" collation) and sorts `ordering=title` by it;
// anything in the renderer that sorts titles uses compareNatural, the same key.

/** Digits in a run beyond this compare as if the run were this long (no real title has them). */
const MAX_DIGITS = 99;

/**
 * A text whose plain (code unit / byte) order is the natural order of the titles:
 * lowercased, accents dropped, and each run of digits written as its length (two
 * digits) then the number without leading zeros, so a longer number sorts later.
 */
export function naturalSortKey(title: string): string {
  const folded = title.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
  return folded.replace(/\d+/g, (digits) => {
    const number = digits.replace(/^0+(?=\d)/, '');
    const length = Math.min(number.length, MAX_DIGITS);
    return `${String(length).padStart(2, '0')}${number}`;
  });
}

/** For Array.sort: natural order, then the plain text so that equal keys still sort the same way everywhere. */
export function compareNatural(a: string, b: string): number {
  const [keyA, keyB] = [naturalSortKey(a), naturalSortKey(b)];
  if (keyA !== keyB) return keyA < keyB ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

// Tampering with a secret in a test must always give a different secret: replacing
// the last character with a fixed one leaves it unchanged whenever it already was that
// character (a random token ends in 'x' about 1 run in 64), and the "wrong" token is
// then the right one. Both replacements below are URL-safe and base64url characters.

/** `text` with its last character replaced by a different one, never the same text. */
export function withLastCharacterChanged(text: string): string {
  if (text.length === 0) throw new Error('withLastCharacterChanged: empty text has no character to change');
  const last = text.at(-1);
  return `${text.slice(0, -1)}${last === 'A' ? 'B' : 'A'}`;
}

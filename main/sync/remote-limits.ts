// What the agent takes from a remote it does not control (issue 34, docs/sync.md
// "What the agent takes from a remote: transport and limits"): answers, records,
// change-feed events and downloads are bounded in size and nesting, and the links
// it fetches are bounded in where they may lead. Each limit is here once; the
// remote client, the change feed, the record reader and the downloader import it.
import type { Backoff } from '../../shared/backoff.ts';
import { isNamedDownloadHost } from '../../shared/download-hosts.ts';

const MiB = 1024 * 1024;

export const REMOTE_LIMITS = {
  /** A JSON answer, as kept after oversized strings are dropped (characters). */
  answerChars: 32 * MiB,
  /** One string in an answer; a longer one is replaced by OVERSIZED_TEXT as it streams in, never held whole. */
  stringChars: 16 * MiB,
  /** Arrays and objects inside each other; deeper is refused before parsing (error text is built by recursion). */
  depth: 256,
  /** A record's text fields together, without `design` (which has a decoding limit of its own). */
  recordTextChars: 1 * MiB,
  /** One change-feed event (or a line that never ends); the stream is reopened past it. */
  feedEventChars: 1 * MiB,
  /** A download may exceed the record's `filesize` by this much (the hash check refuses different bytes anyway). */
  downloadMarginBytes: 1 * MiB,
  /** Redirects followed for one download. */
  redirects: 5,
  /** The longest `Retry-After` honoured: a remote asking for longer is asked again after this. */
  retryAfterMaxSeconds: 3600,
} as const;

/** The wait after a 5xx or an unreadable answer without Retry-After: doubling, with jitter, up to a few minutes. */
export const BUSY_BACKOFF: Backoff = { firstDelayMs: 1000, factor: 2, maxDelayMs: 5 * 60_000, jitter: 0.2 };

/** What a string over REMOTE_LIMITS.stringChars becomes: a value no schema takes, so its record is refused. */
export const OVERSIZED_TEXT = '\u0000solardesk: text over the size limit was dropped\u0000';

/** An answer over a limit: the request fails with this reason, and nothing of the answer is kept. */
export class RemoteAnswerRefused extends Error {}

const mib = (chars: number) => `${Math.round(chars / MiB)} MB`;

/**
 * Collects a JSON answer as it streams in, without ever holding more than the
 * limits allow: a string longer than `stringChars` is dropped as it arrives (and
 * stands as OVERSIZED_TEXT), nesting deeper than `depth` and a kept text longer
 * than `answerChars` throw RemoteAnswerRefused at once, so the caller stops reading.
 */
export class BoundedJsonText {
  private readonly kept: string[] = [];
  private keptChars = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** The string being read, from its opening quote, while it is under the limit. */
  private stringPieces: string[] = [];
  private stringChars = 0;
  private stringOversized = false;

  constructor(private readonly limits: { answerChars: number; stringChars: number; depth: number } = REMOTE_LIMITS) {}

  /** Takes the next piece of the answer's text. */
  push(chunk: string): void {
    let from = 0; // the start of what is not yet kept (or dropped)
    for (let index = 0; index < chunk.length; index++) {
      const code = chunk.charCodeAt(index);
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (code === 0x5c /* \ */) this.escaped = true;
        else if (code === 0x22 /* " */) {
          this.inString = false;
          this.endString(chunk.slice(from, index + 1));
          from = index + 1;
        }
        continue;
      }
      if (code === 0x22) {
        this.keep(chunk.slice(from, index));
        from = index;
        this.inString = true;
        this.stringPieces = [];
        this.stringChars = 0;
        this.stringOversized = false;
      } else if (code === 0x7b /* { */ || code === 0x5b /* [ */) {
        if (++this.depth > this.limits.depth) throw new RemoteAnswerRefused(`the remote's answer is nested more than ${this.limits.depth} levels deep`);
      } else if (code === 0x7d /* } */ || code === 0x5d /* ] */) {
        this.depth--;
      }
    }
    if (this.inString) this.addToString(chunk.slice(from));
    else this.keep(chunk.slice(from));
  }

  /** The answer's text, with oversized strings replaced. */
  text(): string {
    return this.kept.join('');
  }

  private addToString(piece: string): void {
    if (this.stringOversized || piece.length === 0) return;
    this.stringChars += piece.length;
    if (this.stringChars > this.limits.stringChars + 2) {
      this.stringOversized = true;
      this.stringPieces = [];
      return;
    }
    this.stringPieces.push(piece);
  }

  private endString(last: string): void {
    this.addToString(last);
    if (this.stringOversized) this.keep(JSON.stringify(OVERSIZED_TEXT));
    else for (const piece of this.stringPieces) this.keep(piece);
    this.stringPieces = [];
  }

  private keep(piece: string): void {
    if (piece.length === 0) return;
    this.keptChars += piece.length;
    if (this.keptChars > this.limits.answerChars) throw new RemoteAnswerRefused(`the remote's answer is over ${mib(this.limits.answerChars)}`);
    this.kept.push(piece);
  }
}

/** Why a remote record is too large to take (its text fields, `design` aside, over the limit), or null. */
export function oversizedRecordReason(json: unknown, limit: number = REMOTE_LIMITS.recordTextChars): string | null {
  let total = 0;
  let dropped = false;
  const visit = (value: unknown, key: string | null): void => {
    if (typeof value === 'string') {
      if (value === OVERSIZED_TEXT) dropped = true;
      else if (key !== 'design') total += value.length;
    } else if (Array.isArray(value)) for (const item of value) visit(item, null);
    else if (typeof value === 'object' && value !== null) for (const [field, item] of Object.entries(value)) visit(item, field);
  };
  visit(json, null);
  if (dropped) return `a text field over ${mib(REMOTE_LIMITS.stringChars)}; the record was refused`;
  if (total > limit) return `its text fields hold over ${mib(limit)}; the record was refused`;
  return null;
}

/**
 * Why the agent will not fetch `url`, a link the remote handed out (a file's
 * `file_contents`, or where one redirected to), or null when it may: only http(s),
 * and only on the remote's own origin or a host the user named for downloads.
 */
export function refusedLinkReason(url: string, remoteBaseUrl: string, downloadHosts: readonly string[], whereHostsAreNamed = '--download-hosts'): string | null {
  let link: URL;
  try {
    link = new URL(url);
  } catch {
    return 'the remote gave a link that is not a URL';
  }
  if (link.protocol !== 'http:' && link.protocol !== 'https:') return `the remote gave a ${link.protocol.replace(/:$/, '')}: link, and only http(s) links are fetched`;
  const remote = new URL(remoteBaseUrl);
  if (link.origin === remote.origin) return null;
  if (isNamedDownloadHost(link, downloadHosts)) return null;
  return `the link points to ${link.host}, which is neither the remote (${remote.host}) nor a host named for downloads; if the remote's files are served from ${link.host}, add it under ${whereHostsAreNamed}`;
}

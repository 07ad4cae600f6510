// The `file_contents` URL: an absolute link that downloads a file with no
// Authorization header for one hour (service.md 8). It names the file, the user it
// was made for and its expiry, and carries an HMAC-SHA256 of all three under the
// data folder's secret, so changing any part of it breaks the signature. At
// download time the user must still be allowed to see the file.
//
// A file of a project a connected org is shown (docs/access.md "Teams") is seen by
// a user of that org, who is no member of the file's org: its link also names the
// org it is seen through (`org=`, signed too; issue 25, item 7), and the download
// checks that org's sharing and permissions role then. Links without `org` are the
// same text, signed the same way, as before.
import { timingSafeEqual } from 'node:crypto';
import { absoluteUrl, type EngineContext } from '../context.ts';
import { signatureOf } from '../signing.ts';

export const DOWNLOAD_LINK_LIFETIME_SECONDS = 60 * 60;

export const downloadPath = (fileId: number) => `/downloads/private_files/${fileId}/`;

export interface DownloadLink {
  fileId: number;
  userId: number;
  /** Unix seconds. */
  expires: number;
  /** The connected org the file is seen through, when it is not the file's own org. */
  viaOrgId?: number | undefined;
}

function signature(context: EngineContext, link: DownloadLink, keep = true): Buffer {
  const via = link.viaOrgId === undefined ? '' : `\nvia-org:${link.viaOrgId}`;
  return signatureOf(context, `private-file-download\n${link.fileId}\n${link.userId}\n${link.expires}${via}`, { keep });
}

/**
 * Links in API responses expire exactly one hour after they are made. `stable`
 * links expire on the first whole minute at least an hour ahead, so the two
 * snapshots of a project taken in one write (webhooks compare them) carry the same URL.
 */
export function signedDownloadUrl(context: EngineContext, fileId: number, userId: number, options: { stable?: boolean; viaOrgId?: number | undefined } = {}): string {
  const nowSeconds = Math.floor(context.clock.now().getTime() / 1000);
  const exact = nowSeconds + DOWNLOAD_LINK_LIFETIME_SECONDS;
  const expires = options.stable ? Math.ceil(exact / 60) * 60 : exact;
  const link = { fileId, userId, expires, viaOrgId: options.viaOrgId };
  // `org` first: the conditional GETs' hash (http/conditional-get.ts) leaves out what follows `user=`.
  const query = new URLSearchParams({
    ...(options.viaOrgId === undefined ? {} : { org: String(options.viaOrgId) }),
    user: String(userId),
    expires: String(expires),
    signature: signature(context, link).toString('base64url'),
  });
  return `${absoluteUrl(context, downloadPath(fileId))}?${query}`;
}

export type LinkCheck = { status: 'valid'; link: DownloadLink } | { status: 'invalid' } | { status: 'expired' };

/** A number as links spell it: no sign, no leading zeros. */
const CANONICAL_NUMBER = /^(0|[1-9]\d{0,14})$/;

/**
 * Checks the signature before anything else, so a forged link learns nothing about
 * files or users. The link must be the text that was signed: the signature is
 * compared as base64url text, because Node's base64 decoder skips characters it
 * does not know (a signature with junk added decoded to the same bytes).
 */
export function checkDownloadLink(context: EngineContext, fileId: number, query: { org?: string; user?: string; expires?: string; signature?: string }): LinkCheck {
  if (!query.user || !query.expires || !query.signature || !CANONICAL_NUMBER.test(query.user) || !CANONICAL_NUMBER.test(query.expires)) return { status: 'invalid' };
  if (query.org !== undefined && !CANONICAL_NUMBER.test(query.org)) return { status: 'invalid' };
  const link = { fileId, userId: Number(query.user), expires: Number(query.expires), viaOrgId: query.org === undefined ? undefined : Number(query.org) };
  const given = Buffer.from(query.signature);
  const expected = Buffer.from(signature(context, link, false).toString('base64url'));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { status: 'invalid' };
  if (context.clock.now().getTime() >= link.expires * 1000) return { status: 'expired' };
  return { status: 'valid', link };
}

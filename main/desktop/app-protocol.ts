// What app://solardesk/<path> answers: the built renderer's files, with the CSP
// and no-sniff headers. Pure (file in, response description out) so it is tested
// without Electron; electron-main.ts hands it to protocol.handle.
import fs from 'node:fs';
import { CONTENT_SECURITY_POLICY, contentTypeOf, resolveRendererFile } from '../renderer-files.ts';
import { isAppUrl } from './window-policy.ts';
import { MEDIA_PREFIX } from '../../shared/media-paths.ts';

export interface ProtocolAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer | string;
}

export function answerAppRequest(distDir: string, url: string): ProtocolAnswer {
  const headers = { 'content-security-policy': CONTENT_SECURITY_POLICY, 'x-content-type-options': 'nosniff' };
  if (!isAppUrl(url)) return { status: 404, headers, body: 'Not found.' };
  const file = resolveRendererFile(distDir, new URL(url).pathname);
  if (!file) return { status: 404, headers, body: 'Not found.' };
  return { status: 200, headers: { ...headers, 'content-type': contentTypeOf(file) }, body: fs.readFileSync(file) };
}

/** The path and query of an app://solardesk/media/... request (thumbnails, the viewers' contents: main/core/media.ts), else null. */
export function mediaPathOf(url: string): string | null {
  if (!isAppUrl(url)) return null;
  const parsed = new URL(url);
  return parsed.pathname.startsWith(MEDIA_PREFIX) ? parsed.pathname + parsed.search : null;
}

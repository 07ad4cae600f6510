// HMAC-SHA256 under the data folder's secret, for the links the engine signs
// (share links: projects/share-token.ts; download links: files/download-links.ts).
//
// Each project answer carries its share link and one download link per file, and a
// PATCH builds the project twice (its change capture's snapshot and the caller's
// answer): under load the same subjects were signed hundreds of times a second
// (about 3 % of a PATCH's CPU, issue 30). A signature depends only on the secret
// and the subject, so the last few thousand are kept per engine; the cache is
// emptied whole when full, as the project JSON cache is.
import { createHmac } from 'node:crypto';
import type { EngineContext } from './context.ts';

const KEPT_SIGNATURES = 4_096;
const signaturesByEngine = new WeakMap<EngineContext, Map<string, Buffer>>();

/**
 * The HMAC-SHA256 of `subject` under the engine's signing secret. Callers must not
 * change the buffer. `keep: false` for checking a link someone sent: any text may
 * come in, and it must not push out the signatures the answers reuse.
 */
export function signatureOf(context: EngineContext, subject: string, options: { keep?: boolean } = {}): Buffer {
  if (options.keep === false) return createHmac('sha256', context.signingSecret).update(subject).digest();
  let kept = signaturesByEngine.get(context);
  if (!kept) signaturesByEngine.set(context, (kept = new Map()));
  let signature = kept.get(subject);
  if (signature === undefined) {
    if (kept.size >= KEPT_SIGNATURES) kept.clear();
    signature = createHmac('sha256', context.signingSecret).update(subject).digest();
    kept.set(subject, signature);
  }
  return signature;
}

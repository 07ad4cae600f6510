// The token of a project's share link (`/share/<id>/?token=...`, share-link.ts).
//
// Whoever holds a link sees the project's systems and prices without signing in, so
// a link answers only while the viewer it was made for may still see that
// (issue 25, item 5). Each viewer therefore gets its own link:
//   - the owner's org: `<mac>`, an HMAC of the project id, as before;
//   - a connected org the project is shared with: `<org id>.<mac>`, an HMAC of the
//     project id and that org, checked against the org's sharing and permissions
//     role each time it is opened (sharing/project-shares.ts partnerSeesDesign), so
//     a link handed on stops working once sharing ends or the role drops the design.
// Both also cover the project's `share_link_generation` (migration 0022), which the
// owner raises to revoke every link at once. At 0 the owner's token is exactly the
// one made before revocation existed, so links already sent keep working.
import { timingSafeEqual } from 'node:crypto';
import type { EngineContext } from '../context.ts';
import { absoluteUrl } from '../context.ts';
import { signatureOf } from '../signing.ts';
import { sharePaths } from '../../../shared/api-paths.ts';

/** Who a share link was made for: the owning org (no partner), or a connected org. */
export interface ShareLinkViewer {
  partnerOrgId?: number | undefined;
}

function mac(context: EngineContext, projectId: number, generation: number, partnerOrgId: number | undefined, keep = true): string {
  let subject = `share-project:${projectId}`;
  if (generation > 0) subject += `:revoked-${generation}`;
  if (partnerOrgId !== undefined) subject += `:org-${partnerOrgId}`;
  return signatureOf(context, subject, { keep }).toString('base64url').slice(0, 32);
}

/** The token of the project's link for `viewer` at the project's current `generation`. */
export function shareToken(context: EngineContext, projectId: number, generation: number, viewer: ShareLinkViewer = {}): string {
  const code = mac(context, projectId, generation, viewer.partnerOrgId);
  return viewer.partnerOrgId === undefined ? code : `${viewer.partnerOrgId}.${code}`;
}

/** The absolute share link of the project for `viewer`. */
export function shareLink(context: EngineContext, projectId: number, generation: number, viewer: ShareLinkViewer = {}): string {
  return absoluteUrl(context, sharePaths.link(projectId, shareToken(context, projectId, generation, viewer)));
}

/**
 * Whom a token was made for, when it is a real token of this project at this
 * generation; null for anything else (a guess, another project's token, a revoked one).
 */
export function readShareToken(context: EngineContext, projectId: number, generation: number, token: string | undefined): ShareLinkViewer | null {
  if (token === undefined) return null;
  const match = /^(?:(\d{1,12})\.)?([A-Za-z0-9_-]+)$/.exec(token);
  if (!match) return null;
  const partnerOrgId = match[1] === undefined ? undefined : Number(match[1]);
  const expected = Buffer.from(mac(context, projectId, generation, partnerOrgId, false));
  const given = Buffer.from(match[2]!);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  return { partnerOrgId };
}

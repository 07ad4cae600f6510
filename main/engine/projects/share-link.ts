// A project's share link (`share_link`, facts section 15): `/share/<id>/?token=...`, a
// page that shows the project to someone who has the link, without signing in. The
// token (share-token.ts) is an HMAC of the project id, of the org it was made for
// when that is a connected org, and of the project's revocation count, so it cannot
// be guessed or moved to another project or org. A connected org's link answers only
// while that org still sees the project with its design (issue 25, item 5), and the
// owner's revoke (project-routes.ts) ends every link at once. SolarDesk's earlier
// path, `/shared/projects/<id>/`, keeps working for links already sent. A missing or
// wrong token, a revoked or withdrawn one, and a project that does not exist answer
// the same 404: a link tells nothing unless it is the real one.
import { z } from 'zod';
import type { TypedApp } from '../http/app.ts';
import type { EngineContext } from '../context.ts';
import { notFound } from '../http/errors.ts';
import { idParam } from '../http/list-query.ts';
import { readShareToken } from './share-token.ts';
import { parseAttributes } from './project-columns.ts';
import { partnerSeesDesign } from '../sharing/project-shares.ts';

const NOT_VALID = 'This share link is not valid. Ask the installer for a new link to the project.';

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (character) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[character]!);

interface SystemSummary {
  name?: unknown;
  kw_stc?: unknown;
  price_including_tax?: unknown;
  output_annual_kwh?: unknown;
}

function sharePage(title: string, address: string, orgName: string, systems: SystemSummary[]): string {
  const number = (value: unknown, digits = 0) => (typeof value === 'number' ? value.toLocaleString('en', { maximumFractionDigits: digits }) : '–');
  const rows = systems
    .map((system) => `<tr><td>${escapeHtml(String(system.name ?? 'System'))}</td><td>${number(system.kw_stc, 2)} kW</td><td>${number(system.output_annual_kwh)} kWh a year</td><td>${number(system.price_including_tax, 2)}</td></tr>`)
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;margin:2rem auto;max-width:48rem;padding:0 1rem;color:#1d2430;background:#fff}
@media (prefers-color-scheme:dark){body{color:#e6e9ef;background:#14181f}}table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.4rem .6rem;border-bottom:1px solid #8884}</style>
</head><body><p>${escapeHtml(orgName)}</p><h1>${escapeHtml(title)}</h1><p>${escapeHtml(address)}</p>
${systems.length ? `<table><thead><tr><th>System</th><th>Size</th><th>Output</th><th>Price incl. tax</th></tr></thead><tbody>${rows}</tbody></table>` : '<p>The proposal is not ready yet.</p>'}
</body></html>`;
}

export function registerShareRoutes(app: TypedApp, context: EngineContext): void {
  const schema = {
    tags: ['projects'],
    summary: "A project's share link: a page showing the project to whoever holds the link (no Authorization header)",
    security: [],
    params: z.object({ id: idParam }),
    querystring: z.object({ token: z.string().optional() }),
  };
  const handler = async (request: { params: { id: number }; query: { token?: string | undefined } }, reply: { type: (value: string) => unknown }) => {
    const { id } = request.params;
    const project = await context.db
      .selectFrom('projects')
      .innerJoin('orgs', 'orgs.id', 'projects.org_id')
      .select(['projects.title', 'projects.address', 'projects.locality', 'projects.state', 'projects.zip', 'projects.attributes', 'projects.share_link_generation', 'orgs.name as org_name'])
      .where('projects.id', '=', id)
      .executeTakeFirst();
    const viewer = project ? readShareToken(context, id, project.share_link_generation, request.query.token) : null;
    if (!project || !viewer) throw notFound(NOT_VALID);
    if (viewer.partnerOrgId !== undefined && !(await partnerSeesDesign(context.db, viewer.partnerOrgId, id))) throw notFound(NOT_VALID);
    const attributes = parseAttributes(project.attributes);
    const systems = Array.isArray(attributes.systems) ? (attributes.systems as SystemSummary[]) : [];
    const address = [project.address, project.locality, project.state, project.zip].filter(Boolean).join(', ');
    reply.type('text/html; charset=utf-8');
    return sharePage(project.title || project.address || 'Solar proposal', address, project.org_name, systems);
  };
  app.get('/share/:id/', { schema }, handler);
  app.get('/shared/projects/:id/', { schema: { ...schema, summary: `${schema.summary}: SolarDesk's earlier path, kept for links already sent` } }, handler);
}

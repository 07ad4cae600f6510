// The demo orgs' file tags and private files: real files of the kinds field
// staff keep (site photos as JPEG, a chart as PNG, contracts and proposals as
// PDF, bills as CSV), made here in code so the seed needs no binary assets.
// They are spread so every access rule has something to show: files by several
// users, on projects the member can and cannot see, some tagged Export, some unattached.
import { loadSharp } from '../lazy-modules.ts';
import type { EngineContext } from '../context.ts';
import { type CatalogueTagTitle, catalogueTagId } from '../../../shared/file-tags.ts';
import type { ProjectDesign } from '../../../shared/design-types.ts';
import { adoptBlob, receiveBuffer } from '../files/blob-store.ts';
import { insertFileRow } from '../files/file-service.ts';
import { contentTypeFor } from '../files/file-types.ts';
import { projectDesign } from '../systems/system-details.ts';
import { ROLE_COLUMNS } from '../projects/project-columns.ts';
import { DEMO_ORGS, DEMO_USERS } from './demo-accounts.ts';

type TagTitle = CatalogueTagTitle;

interface DemoFile {
  title: string;
  fileName: string;
  user: string;
  /** Where it hangs: a project the member can see, one they cannot, or none. */
  place: { memberSees: number } | { hidden: number } | null;
  tags: TagTitle[];
  contents: (design: ProjectDesign | null) => Promise<Buffer> | Buffer | string;
}

// Functions, not constants: demo-seed.ts imports this module, so its exports are only read once seeding runs.
const sunriseFiles = (): DemoFile[] => [
  { title: 'Roof, north face', fileName: 'roof-north-face.jpg', user: DEMO_USERS.sunriseAdmin, place: { memberSees: 0 }, tags: ['Site - Photo'], contents: () => photoJpeg(1) },
  { title: 'Switchboard', fileName: 'switchboard.jpg', user: DEMO_USERS.sunriseMember, place: { memberSees: 0 }, tags: ['Site - Photo'], contents: () => photoJpeg(2) },
  { title: 'Proposal', fileName: 'proposal.pdf', user: DEMO_USERS.sunriseAdmin, place: { memberSees: 0 }, tags: ['Projects Export'], contents: () => pdf('Solar proposal', ['System: 6.6 kW with 15 panels', 'Price including tax: $8,950', 'Valid for 30 days']) },
  { title: 'Monthly output chart', fileName: 'monthly-output.png', user: DEMO_USERS.sunriseAdmin, place: { memberSees: 1 }, tags: ['Projects Export'], contents: (design) => outputChartPng(design) },
  { title: 'Electricity bill 2026 Q2', fileName: 'electricity-bill-2026-q2.csv', user: DEMO_USERS.sunriseMember, place: { memberSees: 1 }, tags: ['Site - Utility Bill'], contents: () => billCsv(2) },
  { title: 'Signed contract', fileName: 'signed-contract.pdf', user: DEMO_USERS.sunriseAdmin, place: { hidden: 0 }, tags: ['System Contract', 'Projects Export'], contents: () => pdf('Installation contract', ['The customer agrees to the installation of a solar system.', 'Signed by both parties.']) },
  { title: 'Meter photo', fileName: 'meter.jpg', user: DEMO_USERS.sunriseViewer, place: { hidden: 0 }, tags: ['Site - Photo'], contents: () => photoJpeg(3) },
  { title: 'Electricity bill 2026 Q1', fileName: 'electricity-bill-2026-q1.csv', user: DEMO_USERS.sunriseViewer, place: { hidden: 1 }, tags: ['Site - Utility Bill'], contents: () => billCsv(1) },
  { title: 'Van stock list', fileName: 'van-stock-list.csv', user: DEMO_USERS.sunriseMember, place: null, tags: [], contents: () => 'item,quantity\nMC4 connector pairs,40\nDC isolator,3\nRoof hooks,60\n' },
  { title: 'Price list 2026', fileName: 'price-list-2026.pdf', user: DEMO_USERS.sunriseAdmin, place: null, tags: [], contents: () => pdf('Price list 2026', ['Panels from $180 each', 'Batteries from $7,400']) },
];

const basicFiles = (): DemoFile[] => [
  { title: 'Site photo', fileName: 'site.jpg', user: DEMO_USERS.basicAdmin, place: { memberSees: 0 }, tags: ['Site - Photo'], contents: () => photoJpeg(4) },
];

/** Files for Sunrise Solar and one for Basic Solar, tagged from the shared catalogue (store migration 0016 put it there). */
export async function seedDemoFiles(context: EngineContext): Promise<void> {
  await seedOrgFiles(context, DEMO_ORGS.sunrise, DEMO_USERS.sunriseMember, sunriseFiles());
  await seedOrgFiles(context, DEMO_ORGS.basic, DEMO_USERS.basicAdmin, basicFiles());
}

/** `memberEmail` decides which projects count as "the member sees it"; the rest are "hidden". */
async function seedOrgFiles(context: EngineContext, orgId: number, memberEmail: string, files: readonly DemoFile[]): Promise<void> {
  const users = await context.db.selectFrom('users').select(['id', 'email']).execute();
  const userId = (email: string) => users.find((user) => user.email === email)!.id;
  const memberRole = await context.db.selectFrom('roles').select('id').where('org_id', '=', orgId).where('user_id', '=', userId(memberEmail)).executeTakeFirstOrThrow();
  const projects = await context.db.selectFrom('projects').selectAll().where('org_id', '=', orgId).orderBy('id').execute();
  const memberSees = projects.filter((project) => Object.values(ROLE_COLUMNS).some((column) => project[column] === memberRole.id));
  const hidden = projects.filter((project) => !memberSees.includes(project));

  for (const file of files) {
    const project = file.place === null ? null : 'memberSees' in file.place ? memberSees[file.place.memberSees] : hidden[file.place.hidden];
    const produced = await file.contents(project ? projectDesign(project) : null);
    const bytes = typeof produced === 'string' ? Buffer.from(produced) : produced;
    const received = await receiveBuffer(context.store.fileRoot, bytes, 'seed');
    await adoptBlob(context, received, () =>
      context.db.transaction().execute((trx) =>
        insertFileRow(trx, context, received, {
          orgId,
          userId: userId(file.user),
          projectId: project?.id ?? null,
          title: file.title,
          fileName: file.fileName,
          mimeType: contentTypeFor(file.fileName, bytes),
          tagIds: file.tags.map(catalogueTagId),
        }),
      ),
    );
  }
}

/** A site photo: sky, a house with panels on its roof; `variant` changes the light and the layout. */
async function photoJpeg(variant: number): Promise<Buffer> {
  const [width, height] = [480, 360];
  const sky = ['#8ec5ff', '#f7c58b', '#a7c7e7', '#9fd3f2'][variant % 4];
  const panels = Array.from({ length: 3 + variant }, (_, index) => {
    const x = 150 + index * 38;
    return `<polygon points="${x},${178 - index * 6} ${x + 32},${172 - index * 6} ${x + 36},${196 - index * 6} ${x + 4},${202 - index * 6}" fill="#1c3f6e" stroke="#cfe3f5"/>`;
  }).join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${sky}"/><stop offset="1" stop-color="#ffffff"/></linearGradient></defs>
    <rect width="${width}" height="${height}" fill="url(#sky)"/>
    <circle cx="${60 + variant * 70}" cy="60" r="28" fill="#fff3b0"/>
    <rect y="270" width="${width}" height="90" fill="#6f9a4f"/>
    <rect x="120" y="200" width="260" height="110" fill="#e9dcc9"/>
    <polygon points="100,210 250,120 400,210" fill="#8a4b38"/>
    ${panels}
    <rect x="220" y="245" width="40" height="65" fill="#5a3b2a"/>
  </svg>`;
  const sharp = await loadSharp();
  return sharp(Buffer.from(svg)).jpeg({ quality: 82 }).toBuffer();
}

/** Twelve bars of the design's first system's monthly output (or a flat year without a design). */
async function outputChartPng(design: ProjectDesign | null): Promise<Buffer> {
  const monthly = design?.systems[0]?.output.monthly_kwh ?? Array.from({ length: 12 }, () => 500);
  const top = Math.max(...monthly, 1);
  const bars = monthly
    .map((kwh, month) => {
      const barHeight = Math.round((kwh / top) * 220);
      return `<rect x="${30 + month * 36}" y="${260 - barHeight}" width="26" height="${barHeight}" fill="#f2a900"/>`;
    })
    .join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="480" height="300"><rect width="480" height="300" fill="#ffffff"/><line x1="20" y1="260" x2="470" y2="260" stroke="#333"/>${bars}</svg>`;
  const sharp = await loadSharp();
  return sharp(Buffer.from(svg)).png().toBuffer();
}

/** A quarter's bill, one line a month. */
function billCsv(quarter: number): string {
  const rows = [0, 1, 2].map((offset) => {
    const month = (quarter - 1) * 3 + offset + 1;
    const kwh = 520 + ((month * 37) % 140);
    return `2026-${String(month).padStart(2, '0')},${kwh},${(kwh * 0.33 + 33).toFixed(2)}`;
  });
  return ['month,usage_kwh,amount_aud', ...rows].join('\n') + '\n';
}

/** A one-page PDF 1.4 in Helvetica (a standard font, so nothing is embedded), with a correct xref table. */
export function pdf(title: string, lines: readonly string[]): Buffer {
  const escape = (text: string) => text.replace(/[\\()]/g, (character) => `\\${character}`);
  const text = [`BT /F1 20 Tf 72 760 Td (${escape(title)}) Tj ET`, ...lines.map((line, index) => `BT /F1 12 Tf 72 ${720 - index * 18} Td (${escape(line)}) Tj ET`)].join('\n');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${Buffer.byteLength(text, 'latin1')} >>\nstream\n${text}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(Buffer.byteLength(body, 'latin1'));
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xrefOffset = Buffer.byteLength(body, 'latin1');
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('')}`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xrefOffset}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

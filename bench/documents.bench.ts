// documents.proposal (issue 29): the time to make a proposal PDF of a generated
// design with main/engine/documents/ (figures, layout, roof plan, cash-flow chart,
// fonts embedded), against pdfkit writing the same content bare: the same lines of
// text (read back from the proposal by pdf.js), in the same two fonts (each line in
// the face the proposal sets it in), the same roof polygons, with no layout logic.
// Both parse the fonts once per process and hand pdfkit the parsed fonts. Run in one process, interleaved, so a slow moment
// of the machine falls on both. ratio = SolarDesk / bare (target at most 1.5); the
// file's size is reported beside it.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import PDFDocument from 'pdfkit';
import type { Benchmark, BenchResult } from './bench-types.ts';
import { generateDesign } from '../main/engine/seed/project-design.ts';
import { encodeDesign } from '../shared/design-codec.ts';
import { chosenPaymentOption, chosenSystem } from '../shared/design-figures.ts';
import { roofPlan, type RoofPlan } from '../main/engine/designs/roof-plan.ts';
import { documentPdf } from '../main/engine/documents/document-pdfs.ts';
import type { DocumentInputs } from '../main/engine/documents/document-inputs.ts';
import type { ContactRow, OrgRow, ProjectRow } from '../main/engine/store/tables.ts';
import { loadPdfJs } from '../main/core/pdf-render.ts';
import { median } from './bench-servers.ts';

const RUNS = 15;
const require = createRequire(import.meta.url);
const FONT_BYTES = {
  body: fs.readFileSync(require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf')),
  bold: fs.readFileSync(require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf')),
};
const NOW = new Date('2026-11-28T00:00:00Z');

/** What the engine would gather for a project: rows built here, as the bench needs no store. */
function proposalInputs(): { inputs: DocumentInputs; plan: RoofPlan } {
  const design = generateDesign(20261128);
  const system = chosenSystem(design)!;
  const org = { id: 1, name: 'Sunrise Solar' } as OrgRow;
  const project = { id: 1, org_id: 1, title: '21 Victoria Parade', identifier: 'SD-2026-0001', address: '21 Victoria Parade', locality: 'Sandy Bay', state: 'TAS', zip: '7005', country_iso2: 'AU', business_name: null, design: encodeDesign(design) } as ProjectRow & { design: string };
  const contact = { first_name: 'Zoë Ngô', family_name: 'Đặng Ødegård', email: 'zoe@example.com', phone: '0491 574 594' } as ContactRow;
  const inputs = {
    type: 'proposal',
    format: 'pdf',
    org,
    project,
    attributes: {},
    contacts: [contact],
    system,
    template: null,
    option: chosenPaymentOption(system),
    annualUsageKwh: 6500,
    language: 'en',
    paper: 'A4',
    inputData: {} as DocumentInputs['inputData'],
    inputDataHash: '',
  } satisfies DocumentInputs;
  return { inputs, plan: roofPlan(design, system.uuid) };
}

interface BareLine {
  text: string;
  /** Set in the bold face in the proposal: the bare one sets it so too, so both embed the same two fonts. */
  isBold: boolean;
}

/** Each page's lines of text, as pdf.js reads them back, with the face each line starts in. */
async function pageLines(pdf: Buffer): Promise<BareLine[][]> {
  const { getDocument } = await loadPdfJs();
  // A copy: pdf.js takes (detaches) the buffer it is given.
  const task = getDocument({ data: new Uint8Array(pdf), verbosity: 0, fontExtraProperties: true });
  const document = await task.promise;
  const pages: BareLine[][] = [];
  for (let number = 1; number <= document.numPages; number++) {
    const page = await document.getPage(number);
    const content = await page.getTextContent();
    // The fonts' names (…+DejaVuSans-Bold) are known once the page's operators are read.
    await page.getOperatorList();
    const lines: BareLine[] = [];
    let line: BareLine = { text: '', isBold: false };
    for (const item of content.items) {
      if (!('str' in item)) continue;
      if (line.text === '' && item.str !== '') line.isBold = /Bold/.test((page.commonObjs.get(item.fontName) as { name?: string } | undefined)?.name ?? '');
      line.text += item.str;
      if (item.hasEOL) {
        if (line.text) lines.push(line);
        line = { text: '', isBold: false };
      }
    }
    if (line.text) lines.push(line);
    pages.push(lines);
  }
  await task.destroy();
  return pages;
}

/** fontkit's parse of the two fonts, kept from the first bare document, as the engine keeps its own (main/engine/documents/pdf-layout.ts). */
let bareParsedFonts: { body: unknown; bold: unknown } | null = null;

/** The same text and polygons with pdfkit alone: one text() per line, the plan's rings as paths. */
function barePdf(pages: BareLine[][], plan: RoofPlan): Promise<Buffer> {
  const doc = new PDFDocument({ size: 'A4', autoFirstPage: false, info: { CreationDate: NOW } });
  doc.registerFont('body', (bareParsedFonts?.body ?? FONT_BYTES.body) as Buffer);
  doc.registerFont('bold', (bareParsedFonts?.bold ?? FONT_BYTES.bold) as Buffer);
  if (!bareParsedFonts) {
    const parsedIn = (name: string) => (doc.font(name) as unknown as { _font: { font: unknown } })._font.font;
    bareParsedFonts = { body: parsedIn('body'), bold: parsedIn('bold') };
  }
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve) => doc.on('end', () => resolve(Buffer.concat(chunks))));
  for (const [index, lines] of pages.entries()) {
    doc.addPage();
    for (const line of lines) doc.font(line.isBold ? 'bold' : 'body').fontSize(9).text(line.text, 50, undefined, { lineBreak: false }).moveDown(0.2);
    if (index === 1) {
      for (const ring of [...plan.facets.map((facet) => facet.ring), ...plan.panels.map((panel) => panel.ring)]) {
        const [first, ...rest] = ring;
        if (!first) continue;
        doc.moveTo(300 + first[0] * 8, 300 - first[1] * 8);
        for (const [x, y] of rest) doc.lineTo(300 + x * 8, 300 - y * 8);
        doc.closePath().fillAndStroke('#1c3f6e', '#b9d4ea');
      }
    }
  }
  doc.end();
  return done;
}

async function millisecondsOf(work: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

export const benchmarks: Benchmark[] = [
  {
    name: 'documents.proposal',
    description: 'a proposal PDF made by the engine vs pdfkit writing the same text and roof polygons bare',
    async run(): Promise<BenchResult[]> {
      const { inputs, plan } = proposalInputs();
      const proposal = await documentPdf(inputs, plan, null, NOW);
      const pages = await pageLines(proposal);
      const bare = await barePdf(pages, plan);
      // Warm both (font parsing, JIT) before measuring.
      await documentPdf(inputs, plan, null, NOW);
      await barePdf(pages, plan);
      const ours: number[] = [];
      const baseline: number[] = [];
      for (let run = 0; run < RUNS; run++) {
        ours.push(await millisecondsOf(() => documentPdf(inputs, plan, null, NOW)));
        baseline.push(await millisecondsOf(() => barePdf(pages, plan)));
      }
      const value = median(ours);
      const bareTime = median(baseline);
      return [
        {
          name: 'documents.proposal',
          value,
          baseline: bareTime,
          ratio: value / bareTime,
          unit: 'ms',
          notes: `median of ${RUNS}; ${pages.length} A4 pages, ${(proposal.length / 1024).toFixed(0)} KB (bare: ${(bare.length / 1024).toFixed(0)} KB), fonts embedded; target ratio at most 1.5`,
        },
        {
          name: 'documents.proposal_size',
          value: proposal.length / 1024,
          baseline: bare.length / 1024,
          ratio: proposal.length / bare.length,
          unit: 'KB',
          notes: 'the proposal file against the bare one with the same text and polygons',
        },
      ];
    },
  },
];

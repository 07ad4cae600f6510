// The page furniture of every generated PDF (issue 29): pdfkit writes it, with the
// DejaVu fonts embedded (subset) so that "Zoë Ngô", "Ødegård" and "Đặng" print and
// extract back as typed, on A4 or US Letter. Nothing is fetched: fonts come from
// node_modules, drawings from the design. Sections flow down the page and start a
// new page when what comes next would not fit.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type PDFKitDocument from 'pdfkit';
import type { PaperSize } from '../../../shared/documents.ts';
import { runningTotals } from '../../../shared/design-figures.ts';
import { facetShade, planFitter, type PlanPoint, type RoofPlan } from '../designs/roof-plan.ts';

/**
 * pdfkit and its font library, loaded with the first document (loadPdfKit): at the
 * app's start they were a fifth of a second of module loading that no first screen uses.
 */
let PdfDocument: typeof PDFKitDocument | null = null;

/** Loads pdfkit once; every PdfLayout is made after it. */
export async function loadPdfKit(): Promise<void> {
  PdfDocument ??= (await import('pdfkit')).default;
}

const require = createRequire(import.meta.url);
/** Read once per process (about 1.4 MB together): each document then parses them without touching the disk. */
let fonts: { regular: Buffer; bold: Buffer } | null = null;
const fontFiles = () =>
  (fonts ??= {
    regular: fs.readFileSync(require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf')),
    bold: fs.readFileSync(require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf')),
  });

/**
 * The two fonts as fontkit parsed them for the first document, handed to pdfkit
 * for every later one (pdfkit takes a parsed font as well as its bytes). Parsing
 * them, and reading their OpenType tables at the first shaping, took about half of
 * a proposal's time (docs/benchmarks.md "documents"). A parsed font holds no
 * document's state: each document makes its own subset of the glyphs it used.
 */
let parsedFonts: { regular: unknown; bold: unknown } | null = null;

/** Opens both registered fonts in `doc` and keeps fontkit's parse of them for the next documents. */
function keepParsedFonts(doc: PDFKit.PDFDocument): void {
  if (parsedFonts) return;
  const parsedIn = (name: string) => {
    doc.font(name);
    return (doc as unknown as { _font: { font: unknown } })._font.font;
  };
  parsedFonts = { regular: parsedIn('body'), bold: parsedIn('bold') };
}

const MARGIN = 50;
const COLOURS = { text: '#1d232b', muted: '#5c6570', rule: '#c9ced4', panel: '#1c3f6e', panelEdge: '#b9d4ea', facetEdge: '#5b5149', ground: '#eef2ea', payback: '#2e9d5b' };

export interface TableColumn {
  title: string;
  /** Share of the text width. */
  width: number;
  numeric?: boolean;
}

export interface DocumentHeader {
  title: string;
  orgName: string;
  /** Shown under the title, e.g. the system, the customer and the date. */
  subtitle: string;
  /** The document's date (the engine's clock, so a test can fix it). */
  date: Date;
  /** #rrggbb: headings and the chart's bars (the org template's, or the standard). */
  primaryColour: string;
  /** #rrggbb: the chart's running total. */
  accentColour: string;
  /** A PNG or JPEG printed at the top left of the first page. */
  logo: Buffer | null;
}

export class PdfLayout {
  readonly doc: PDFKit.PDFDocument;
  private readonly chunks: Buffer[] = [];
  private readonly finished: Promise<Buffer>;
  private readonly colours: { accent: string; line: string };

  constructor(paper: PaperSize, header: DocumentHeader) {
    this.colours = { accent: header.primaryColour, line: header.accentColour };
    if (!PdfDocument) throw new Error('a PdfLayout is made only after loadPdfKit()');
    this.doc = new PdfDocument({
      size: paper,
      margins: { top: MARGIN, bottom: MARGIN, left: MARGIN, right: MARGIN },
      info: { Title: header.title, Author: header.orgName, Creator: 'SolarDesk', CreationDate: header.date, ModDate: header.date },
      bufferPages: true,
    });
    this.doc.registerFont('body', (parsedFonts?.regular ?? fontFiles().regular) as Buffer);
    this.doc.registerFont('bold', (parsedFonts?.bold ?? fontFiles().bold) as Buffer);
    keepParsedFonts(this.doc);
    this.doc.on('data', (chunk: Buffer) => this.chunks.push(chunk));
    this.finished = new Promise((resolve, reject) => {
      this.doc.on('end', () => resolve(Buffer.concat(this.chunks)));
      this.doc.on('error', reject);
    });
    if (header.logo) {
      try {
        this.doc.image(header.logo, MARGIN, MARGIN - 10, { fit: [140, 40] });
      } catch {
        // A logo pdfkit cannot read is left out, not the document.
      }
    }
    this.doc.font('bold').fontSize(9).fillColor(COLOURS.muted);
    this.boxText(header.orgName, MARGIN, MARGIN, this.width, 'right');
    this.doc.y = Math.max(this.doc.y, header.logo ? MARGIN + 36 : 0);
    this.doc.moveDown(0.5);
    this.doc.font('bold').fontSize(22).fillColor(COLOURS.text).text(header.title);
    this.doc.font('body').fontSize(11).fillColor(COLOURS.muted).text(header.subtitle);
    this.rule();
  }

  private get width(): number {
    return this.doc.page.width - MARGIN * 2;
  }

  private get bottom(): number {
    return this.doc.page.height - MARGIN;
  }

  /**
   * `text` in a box `width` wide at (x, y), in the current font, as pdfkit's
   * text(…, { width, align }) sets it, with doc.y left under it. Text that fits on one
   * line is placed, not wrapped: pdfkit's wrapper shapes it word by word, a placed line
   * once (docs/benchmarks.md "documents"); most labels, values and headings fit.
   */
  private boxText(text: string, x: number, y: number, width: number, align: 'left' | 'right' | 'center' = 'left'): void {
    const lineWidth = text.includes('\n') ? Infinity : this.doc.widthOfString(text);
    if (lineWidth > width) {
      this.doc.text(text, x, y, { width, align });
      return;
    }
    const indent = align === 'right' ? width - lineWidth : align === 'center' ? (width - lineWidth) / 2 : 0;
    this.doc.text(text, x + indent, y, { lineBreak: false });
    this.doc.x = x;
    this.doc.y = y + this.doc.currentLineHeight(true);
  }

  /** A new page unless `height` points still fit on this one. */
  ensureSpace(height: number): void {
    if (this.doc.y + height > this.bottom) this.doc.addPage();
  }

  private rule(): void {
    const y = this.doc.y + 6;
    this.doc.moveTo(MARGIN, y).lineTo(MARGIN + this.width, y).lineWidth(0.5).strokeColor(COLOURS.rule).stroke();
    this.doc.y = y + 10;
  }

  /** `keepWith`: the height of what follows, which the heading must not be parted from. */
  heading(text: string, keepWith = 40): void {
    this.ensureSpace(keepWith + 30);
    this.doc.moveDown(0.6);
    this.doc.x = MARGIN;
    this.doc.font('bold').fontSize(14).fillColor(this.colours.accent);
    this.boxText(text, MARGIN, this.doc.y, this.width);
    this.doc.moveDown(0.3);
  }

  paragraph(text: string, options: { muted?: boolean } = {}): void {
    this.doc.font('body').fontSize(10).fillColor(options.muted ? COLOURS.muted : COLOURS.text);
    this.boxText(text, MARGIN, this.doc.y, this.width);
    this.doc.moveDown(0.4);
  }

  /** Label and value pairs, two to a row. */
  facts(pairs: ReadonlyArray<[label: string, value: string]>): void {
    const columnWidth = this.width / 2;
    for (let index = 0; index < pairs.length; index += 2) {
      this.ensureSpace(34);
      const top = this.doc.y;
      let lowest = top;
      for (const [offset, pair] of pairs.slice(index, index + 2).entries()) {
        const x = MARGIN + offset * columnWidth;
        this.doc.font('body').fontSize(8.5).fillColor(COLOURS.muted);
        this.boxText(pair[0], x, top, columnWidth - 10);
        this.doc.font('bold').fontSize(11).fillColor(COLOURS.text);
        this.boxText(pair[1], x, this.doc.y, columnWidth - 10);
        lowest = Math.max(lowest, this.doc.y);
      }
      this.doc.y = lowest + 6;
    }
  }

  /** A table with a header row; `totalRow` is set in bold under a rule. */
  table(columns: readonly TableColumn[], rows: ReadonlyArray<readonly string[]>, totalRow?: readonly string[]): void {
    const widths = columns.map((column) => column.width * this.width);
    const drawRow = (cells: readonly string[], font: 'body' | 'bold', colour: string) => {
      this.doc.font(font).fontSize(9.5);
      // Most cells fit on one line: measuring their width is far cheaper than laying them out to measure their height.
      const lineHeight = this.doc.currentLineHeight(true);
      const cellWidths = cells.map((cell) => this.doc.widthOfString(cell));
      const fits = cells.map((_, index) => cellWidths[index]! <= widths[index]! - 8);
      const heights = cells.map((cell, index) => (fits[index] ? lineHeight : this.doc.heightOfString(cell, { width: widths[index]! - 8 })));
      const height = Math.max(12, ...heights) + 5;
      this.ensureSpace(height);
      const top = this.doc.y;
      let x = MARGIN;
      for (const [index, cell] of cells.entries()) {
        const isNumeric = columns[index]?.numeric === true;
        this.doc.font(font).fontSize(9.5).fillColor(colour);
        // A cell that fits is placed, not wrapped: pdfkit's wrapper measures word by word (docs/benchmarks.md "documents").
        if (fits[index]) this.doc.text(cell, isNumeric ? x + widths[index]! - 4 - cellWidths[index]! : x + 4, top + 2, { lineBreak: false });
        else this.doc.text(cell, x + 4, top + 2, { width: widths[index]! - 8, align: isNumeric ? 'right' : 'left' });
        x += widths[index]!;
      }
      this.doc.y = top + height;
    };
    // A table that fits on one page starts on a page where it fits whole.
    const rowHeight = 17;
    const wholeHeight = (rows.length + 2 + (totalRow ? 1 : 0)) * rowHeight;
    if (wholeHeight < this.bottom - MARGIN) this.ensureSpace(wholeHeight);
    drawRow(columns.map((column) => column.title), 'bold', COLOURS.muted);
    this.rule();
    this.doc.y -= 8;
    for (const row of rows) drawRow(row, 'body', COLOURS.text);
    if (totalRow) {
      this.rule();
      this.doc.y -= 8;
      drawRow(totalRow, 'bold', COLOURS.text);
    }
    this.doc.x = MARGIN;
    this.doc.moveDown(0.5);
  }

  /** A list of boxes to tick. */
  checklist(items: readonly string[]): void {
    for (const item of items) {
      this.ensureSpace(18);
      const top = this.doc.y;
      this.doc.rect(MARGIN, top + 1, 9, 9).lineWidth(0.8).strokeColor(COLOURS.text).stroke();
      this.doc.font('body').fontSize(10).fillColor(COLOURS.text);
      this.boxText(item, MARGIN + 16, top, this.width - 16);
      this.doc.y = Math.max(this.doc.y, top + 14) + 2;
    }
    this.doc.x = MARGIN;
    this.doc.moveDown(0.4);
  }

  /**
   * The roof seen from above, north up: facets shaded by the way they face, this
   * system's panels on them; `numbered` labels each facet with its number (the
   * installation pack's photo list refers to them).
   */
  roofPlan(plan: RoofPlan, options: { height: number; numbered?: boolean }): void {
    this.ensureSpace(options.height + 10);
    const top = this.doc.y;
    const width = this.width;
    const height = options.height;
    const points: PlanPoint[] = [...plan.facets.flatMap((facet) => facet.ring), ...plan.panels.flatMap((panel) => panel.ring)];
    const fit = planFitter(points, width, height, 14);
    const place = (point: PlanPoint): PlanPoint => {
      const [x, y] = fit(point);
      return [MARGIN + x, top + y];
    };
    const doc = this.doc;
    doc.save();
    doc.rect(MARGIN, top, width, height).fill(COLOURS.ground);
    const polygon = (ring: readonly PlanPoint[]) => {
      const [first, ...rest] = ring.map(place);
      if (!first) return false;
      doc.moveTo(first[0], first[1]);
      for (const [x, y] of rest) doc.lineTo(x, y);
      doc.closePath();
      return true;
    };
    for (const facet of plan.facets) {
      const [hue, saturation, lightness] = facetShade(facet.azimuth);
      if (polygon(facet.ring)) doc.lineWidth(1).fillAndStroke(hslToHex(hue, saturation, lightness), COLOURS.facetEdge);
    }
    for (const panel of plan.panels) {
      if (polygon(panel.ring)) doc.lineWidth(0.4).fillAndStroke(COLOURS.panel, COLOURS.panelEdge);
    }
    if (options.numbered) {
      for (const [index, facet] of plan.facets.entries()) {
        const middle = centroid(facet.ring.map(place));
        doc.circle(middle[0], middle[1], 8).fill('#ffffff');
        doc.font('bold').fontSize(9).fillColor(COLOURS.text);
        this.boxText(String(index + 1), middle[0] - 8, middle[1] - 5.5, 16, 'center');
      }
    }
    // North arrow, top right.
    const arrowX = MARGIN + width - 18;
    const arrowY = top + 10;
    doc.moveTo(arrowX, arrowY).lineTo(arrowX + 6, arrowY + 16).lineTo(arrowX, arrowY + 12).lineTo(arrowX - 6, arrowY + 16).closePath().fill(COLOURS.text);
    doc.font('bold').fontSize(9).fillColor(COLOURS.text);
    this.boxText('N', arrowX - 5, arrowY + 18, 10, 'center');
    doc.restore();
    this.doc.x = MARGIN;
    this.doc.y = top + height + 8;
  }

  /**
   * Yearly cash flows as bars (left axis; year 0, the upfront payment, left out) and
   * their running total as a line (right axis): each on its own scale, as the Design
   * tab draws them, so a year's savings are not a sliver beside the total.
   */
  cashFlowChart(cashFlows: readonly number[], paybackYear: number | null, formatMoney: (amount: number) => string): void {
    const height = 170;
    this.ensureSpace(height + 50);
    const doc = this.doc;
    const top = this.doc.y + 4;
    const left = MARGIN + 60;
    const width = this.width - 120;
    const totals = runningTotals(cashFlows);
    const scale = (values: readonly number[]) => {
      const [low, high] = [Math.min(0, ...values), Math.max(0, ...values)];
      const span = high - low || 1;
      return { low, high, y: (value: number) => top + height - ((value - low) / span) * height };
    };
    const bars = scale(cashFlows.slice(1));
    const line = scale(totals);
    const step = width / Math.max(cashFlows.length, 1);
    const xOf = (year: number) => left + step * (year + 0.5);
    doc.save();
    doc.rect(left, top, width, height).lineWidth(0.3).strokeColor(COLOURS.rule).stroke();
    for (const value of new Set([bars.high, 0, bars.low])) {
      doc.font('body').fontSize(7.5).fillColor(this.colours.accent);
      this.boxText(formatMoney(value), MARGIN, bars.y(value) - 4, 56, 'right');
    }
    for (const value of new Set([line.high, 0, line.low])) {
      doc.font('body').fontSize(7.5).fillColor(this.colours.line);
      this.boxText(formatMoney(value), left + width + 4, line.y(value) - 4, 56);
    }
    doc.moveTo(left, bars.y(0)).lineTo(left + width, bars.y(0)).lineWidth(0.6).strokeColor(COLOURS.rule).stroke();
    for (const [year, flow] of cashFlows.entries()) {
      if (year === 0) continue;
      const [from, to] = [bars.y(Math.max(flow, 0)), bars.y(Math.min(flow, 0))];
      doc.rect(xOf(year) - step * 0.3, from, step * 0.6, Math.max(to - from, 0.5)).fill(this.colours.accent);
    }
    const [first, ...rest] = totals.map((total, year): PlanPoint => [xOf(year), line.y(total)]);
    if (first) {
      doc.moveTo(first[0], first[1]);
      for (const [x, y] of rest) doc.lineTo(x, y);
      doc.lineWidth(1.6).strokeColor(this.colours.line).stroke();
    }
    if (paybackYear !== null) {
      doc.moveTo(xOf(paybackYear), top).lineTo(xOf(paybackYear), top + height).dash(4, { space: 3 }).lineWidth(1.2).strokeColor(COLOURS.payback).stroke().undash();
    }
    for (let year = 0; year < cashFlows.length; year += 5) {
      doc.font('body').fontSize(7.5).fillColor(COLOURS.muted);
      this.boxText(String(year), xOf(year) - 10, top + height + 3, 20, 'center');
    }
    doc.restore();
    this.doc.x = MARGIN;
    this.doc.y = top + height + 16;
    this.paragraph(
      `Bars (left scale): each year's savings less any repayments. Line (right scale): the running total, starting from the upfront payment.${paybackYear === null ? '' : ` Dashed: payback in year ${paybackYear}.`}`,
      { muted: true },
    );
  }

  /** Signature lines, one per signer, with the printed name and a date line. */
  signatures(signers: ReadonlyArray<{ role: string; name: string }>): void {
    for (const signer of signers) {
      this.ensureSpace(70);
      this.doc.moveDown(1.6);
      const y = this.doc.y;
      this.doc.moveTo(MARGIN, y).lineTo(MARGIN + this.width * 0.55, y).lineWidth(0.8).strokeColor(COLOURS.text).stroke();
      this.doc.moveTo(MARGIN + this.width * 0.65, y).lineTo(MARGIN + this.width, y).stroke();
      this.doc.font('body').fontSize(9).fillColor(COLOURS.muted);
      this.boxText(`${signer.role}: ${signer.name}`, MARGIN, y + 4, this.width * 0.55);
      this.boxText('Date', MARGIN + this.width * 0.65, y + 4, this.width * 0.35);
      this.doc.x = MARGIN;
    }
    this.doc.moveDown(1);
  }

  /** Page numbers in every footer, then the bytes. */
  async finish(): Promise<Buffer> {
    const range = this.doc.bufferedPageRange();
    for (let index = range.start; index < range.start + range.count; index++) {
      this.doc.switchToPage(index);
      // Writing in the bottom margin would otherwise add a page.
      const bottomMargin = this.doc.page.margins.bottom;
      this.doc.page.margins.bottom = 0;
      this.doc.font('body').fontSize(8).fillColor(COLOURS.muted);
      this.boxText(`Page ${index + 1} of ${range.count}`, MARGIN, this.doc.page.height - 32, this.width, 'right');
      this.doc.page.margins.bottom = bottomMargin;
    }
    this.doc.end();
    return this.finished;
  }
}

function centroid(points: readonly PlanPoint[]): PlanPoint {
  const count = Math.max(points.length, 1);
  return [points.reduce((sum, [x]) => sum + x, 0) / count, points.reduce((sum, [, y]) => sum + y, 0) / count];
}

/** pdfkit takes hex colours; facetShade gives HSL, as the SVG plan uses. */
function hslToHex(hue: number, saturation: number, lightness: number): string {
  const s = saturation / 100;
  const l = lightness / 100;
  const amplitude = s * Math.min(l, 1 - l);
  const channel = (n: number) => {
    const k = (n + hue / 30) % 12;
    const value = l - amplitude * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(Math.min(1, Math.max(0, value)) * 255).toString(16).padStart(2, '0');
  };
  return `#${channel(0)}${channel(8)}${channel(4)}`;
}

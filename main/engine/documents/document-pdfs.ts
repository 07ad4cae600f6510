// The PDF documents (issue 29), section by section. Every figure comes from
// shared/design-figures.ts, the functions the Design tab shows them with, so the
// page and the screen agree; the layout is pdf-layout.ts.
import type { DesignSystem, PaymentOption } from '../../../shared/design-types.ts';
import {
  extraFeaturedFigures,
  formatKw,
  formatMoney,
  formatNumber,
  formatPercent,
  paybackText,
  customerPriceLines,
  systemFigures,
} from '../../../shared/design-figures.ts';
import { DOCUMENT_TYPES, type DocumentType } from '../../../shared/documents.ts';
import { DEFAULT_TEMPLATE_COLOURS } from '../../../shared/schemas/document-template.ts';
import type { RoofPlan } from '../designs/roof-plan.ts';
import { loadPdfKit, PdfLayout } from './pdf-layout.ts';
import { customerName, siteAddress, type DocumentInputs } from './document-inputs.ts';

/** The PDF of a document of `inputs.type`; `plan` is the system's roof plan for the types that draw it. */
export async function documentPdf(inputs: DocumentInputs, plan: RoofPlan | null, logo: Buffer | null, now: Date): Promise<Buffer> {
  await loadPdfKit();
  const writer = new DocumentWriter(inputs, plan, logo, now);
  writer.intro();
  SECTIONS[inputs.type](writer);
  return writer.layout.finish();
}

/** The types whose PDF draws the roof plan. */
export function drawsRoofPlan(type: DocumentType): boolean {
  return ['proposal', 'proposal_only', 'contract', 'installation_instructions', 'pv_site_plan', 'system_image_only'].includes(type);
}

const SECTIONS: Record<DocumentType, (writer: DocumentWriter) => void> = {
  proposal: (writer) => writer.proposal(),
  proposal_only: (writer) => writer.proposal(),
  contract: (writer) => {
    writer.proposal();
    writer.contract();
  },
  contract_only: (writer) => {
    writer.summary();
    writer.contract();
  },
  installation_instructions: (writer) => writer.installationPack(),
  financials_report: (writer) => {
    writer.summary();
    writer.price();
    writer.payment();
    writer.yearlyTable();
  },
  global_bom: (writer) => {
    writer.summary();
    writer.billOfMaterials();
  },
  bill_calculations_csv: () => undefined,
  pv_site_plan: (writer) => {
    writer.summary();
    writer.roof(420, true);
    writer.facetTable();
  },
  system_image_only: (writer) => writer.roof(480, false),
  system_performance_8760: () => undefined,
};

class DocumentWriter {
  readonly layout: PdfLayout;
  private readonly system: DesignSystem;
  private readonly option: PaymentOption | undefined;
  private readonly money: (amount: number) => string;
  private readonly number: (value: number, digits?: number) => string;
  private readonly customer: string;

  constructor(
    private readonly inputs: DocumentInputs,
    private readonly plan: RoofPlan | null,
    logo: Buffer | null,
    now: Date,
  ) {
    this.system = inputs.system;
    this.option = inputs.option;
    this.customer = customerName(inputs);
    const currency = inputs.system.bills.currency;
    this.money = (amount) => formatMoney(amount, currency, inputs.language);
    this.number = (value, digits = 0) => formatNumber(value, digits, inputs.language);
    const date = new Intl.DateTimeFormat(inputs.language, { dateStyle: 'long', timeZone: 'UTC' }).format(now);
    this.layout = new PdfLayout(inputs.paper, {
      title: DOCUMENT_TYPES[inputs.type].title,
      orgName: this.orgName,
      primaryColour: inputs.template?.primary_colour ?? DEFAULT_TEMPLATE_COLOURS.primary,
      accentColour: inputs.template?.accent_colour ?? DEFAULT_TEMPLATE_COLOURS.accent,
      logo,
      subtitle: `${inputs.system.name} · prepared for ${this.customer} · ${date}`,
      date: now,
    });
  }

  /** The org's name as its template prints it, else its own. */
  private get orgName(): string {
    return this.inputs.template?.org_display_name || this.inputs.org.name;
  }

  /** The template's intro text, placeholders filled, under the title. */
  intro(): void {
    const text = this.inputs.template?.intro_text.trim();
    if (text) for (const paragraph of text.split(/\n\s*\n/)) this.layout.paragraph(fillPlaceholders(paragraph.trim(), this.placeholders()));
  }

  private get figures() {
    return systemFigures(this.system, this.option, this.inputs.annualUsageKwh);
  }

  /** Customer, site and the headline figures: what every document opens with. */
  summary(): void {
    const figures = this.figures;
    const project = this.inputs.project;
    this.layout.heading('Customer and site');
    this.layout.facts([
      ['Customer', this.customer],
      ['Site', siteAddress(project) || project.title],
      ...this.inputs.contacts.slice(0, 2).flatMap((contact): Array<[string, string]> => [
        ['Email', contact.email || '—'],
        ['Phone', contact.phone || '—'],
      ]),
    ]);
    this.layout.heading('Your system');
    this.layout.facts([
      ['System size', formatKw(figures.kwStc, this.inputs.language)],
      ['Modules', `${figures.moduleCount} panels`],
      ['Price including tax', this.money(figures.priceIncludingTax)],
      ['Payback', this.option ? paybackText(this.option) : 'No payment option'],
      ['Output', `${this.number(figures.annualOutputKwh)} kWh a year`],
      ['Offset of your usage', figures.offset === null ? 'Usage not known' : formatPercent(figures.offset)],
      ['Bill savings, first year', this.money(figures.billSavingsYearOne)],
      ['Bill savings over 25 years', this.money(figures.billSavingsLifetime)],
    ]);
  }

  private components(): void {
    const rows = [
      ...this.system.modules.map((module) => [String(module.quantity), `${module.manufacturer_name} ${module.code}`, `Module, ${module.watts} W, ${formatPercent(module.efficiency)}`]),
      ...this.system.inverters.map((inverter) => [String(inverter.quantity), `${inverter.manufacturer_name} ${inverter.code}`, `Inverter, ${this.number(inverter.max_power_kw, 2)} kW AC`]),
      ...this.system.batteries.map((battery) => [String(battery.quantity), `${battery.manufacturer_name} ${battery.code}`, `Battery, ${this.number(battery.capacity_kwh, 1)} kWh, ${this.number(battery.power_kw, 1)} kW`]),
    ];
    this.layout.table(
      [
        { title: 'Qty', width: 0.1, numeric: true },
        { title: 'Component', width: 0.45 },
        { title: 'Details', width: 0.45 },
      ],
      rows,
    );
  }

  roof(height: number, numbered: boolean): void {
    // The heading goes with its plan, never alone at the foot of a page.
    this.layout.ensureSpace(height + 70);
    this.layout.heading('Roof plan');
    if (!this.plan) return this.layout.paragraph('The design holds no roof geometry to draw.', { muted: true });
    this.layout.roofPlan(this.plan, { height, numbered });
    const panelsOn = new Set(this.plan.panels.map((panel) => panel.facetId));
    this.layout.paragraph(`${this.plan.panels.length} panels on ${panelsOn.size} of ${this.plan.facets.length} roof faces. North is up.`, { muted: true });
  }

  facetTable(): void {
    if (!this.plan) return;
    const counts = new Map<string, number>();
    for (const panel of this.plan.panels) counts.set(panel.facetId, (counts.get(panel.facetId) ?? 0) + 1);
    this.layout.table(
      [
        { title: 'Face', width: 0.15 },
        { title: 'Facing (azimuth)', width: 0.3, numeric: true },
        { title: 'Pitch', width: 0.25, numeric: true },
        { title: 'Panels', width: 0.3, numeric: true },
      ],
      this.plan.facets.map((facet, index) => [String(index + 1), `${this.number(facet.azimuth)}° (${compass(facet.azimuth)})`, `${this.number(facet.pitch)}°`, String(counts.get(facet.facetId) ?? 0)]),
    );
  }

  price(): void {
    const figures = this.figures;
    const lines = customerPriceLines(this.system);
    this.layout.heading('Price', (lines.length + 3) * 17);
    this.layout.table(
      [
        { title: 'Item', width: 0.7 },
        { title: 'Amount', width: 0.3, numeric: true },
      ],
      lines.map((line) => [line.title, this.money(line.amount)]),
      ['Price including tax', this.money(figures.priceIncludingTax)],
    );
    const incentives = this.system.incentives.incentive_to_customer;
    if (incentives.length > 0) {
      this.layout.table(
        [
          { title: 'Incentives paid to you', width: 0.7 },
          { title: 'Amount', width: 0.3, numeric: true },
        ],
        incentives.map((line) => [line.title, this.money(line.amount)]),
        ['After incentives', this.money(figures.priceIncludingTax - figures.customerIncentives)],
      );
    }
  }

  payment(): void {
    const option = this.option;
    this.layout.heading(option ? `Payment: ${option.title}` : 'Payment', 330);
    if (!option) return this.layout.paragraph('This system has no payment options.', { muted: true });
    const currency = this.system.bills.currency;
    this.layout.facts([
      ['Payback', paybackText(option)],
      ['Net present value', this.money(option.net_present_value)],
      ['Rate of return', formatPercent(option.internal_rate_of_return)],
      ...extraFeaturedFigures(option).map((figure): [string, string] => [
        figure.label,
        figure.unit === 'currency' ? formatMoney(figure.value, currency, this.inputs.language)
        : figure.unit === 'percent' ? formatPercent(figure.value)
        : figure.unit === 'kwh' ? `${this.number(figure.value)} kWh`
        : `${this.number(figure.value, 1)} years`,
      ]),
    ]);
    this.layout.cashFlowChart(option.cash_flows, option.payback_year, this.money);
    if (option.quotation_lines.length > 0) {
      this.layout.table(
        [
          { title: 'Quotation', width: 0.7 },
          { title: 'Amount', width: 0.3, numeric: true },
        ],
        option.quotation_lines.map((line) => [line.title, this.money(line.amount)]),
      );
    }
  }

  yearlyTable(): void {
    const option = this.option;
    if (!option) return;
    this.layout.heading('Year by year', 200);
    let total = 0;
    this.layout.table(
      [
        { title: 'Year', width: 0.16, numeric: true },
        { title: 'Bill savings', width: 0.28, numeric: true },
        { title: 'Cash flow', width: 0.28, numeric: true },
        { title: 'Running total', width: 0.28, numeric: true },
      ],
      option.cash_flows.map((flow, year) => {
        total += flow;
        return [String(year), year === 0 ? '—' : this.money(option.utility_bill_savings_yearly[year - 1] ?? 0), this.money(flow), this.money(total)];
      }),
    );
  }

  proposal(): void {
    this.summary();
    this.layout.heading('Components');
    this.components();
    this.roof(300, false);
    this.layout.heading('Output and offset');
    const figures = this.figures;
    this.layout.paragraph(
      `The system is expected to make ${this.number(figures.annualOutputKwh)} kWh a year` +
        (figures.offset === null ? '.' : `, ${formatPercent(figures.offset)} of the ${this.number(figures.annualUsageKwh)} kWh the site uses.`) +
        ` Your bills fall from ${this.money(this.system.bills.annual_bill_before)} to ${this.money(this.system.bills.annual_bill_after)} in the first year.`,
    );
    this.layout.table(
      [
        { title: 'Month', width: 0.25 },
        { title: 'Output (kWh)', width: 0.25, numeric: true },
        { title: 'Bill before', width: 0.25, numeric: true },
        { title: 'Bill after', width: 0.25, numeric: true },
      ],
      MONTHS.map((month, index) => [
        month,
        this.number(this.system.output.monthly_kwh[index] ?? 0),
        this.money(this.system.bills.monthly_before[index] ?? 0),
        this.money(this.system.bills.monthly_after[index] ?? 0),
      ]),
    );
    this.price();
    this.payment();
  }

  contract(): void {
    this.layout.heading('Terms');
    const own = this.inputs.template?.terms_text.trim();
    const terms = own ? own.split(/\n\s*\n/).map((term) => term.trim()) : STANDARD_TERMS;
    for (const term of terms) this.layout.paragraph(fillPlaceholders(term, this.placeholders()));
    this.layout.heading('Signatures');
    this.layout.paragraph(`By signing, the customer accepts the system and price above (${this.money(this.figures.priceIncludingTax)} including tax) and these terms.`);
    this.layout.signatures([
      { role: 'Customer', name: this.customer },
      { role: `For ${this.orgName}`, name: '' },
    ]);
  }

  installationPack(): void {
    const project = this.inputs.project;
    const attributes = this.inputs.attributes;
    this.layout.heading('Site');
    this.layout.facts([
      ['Customer', this.customer],
      ['Address', siteAddress(project) || project.title],
      ['System', `${formatKw(this.system.kw_stc, this.inputs.language)}, ${this.system.total_module_quantity} panels`],
      ['Project', project.identifier || project.title],
    ]);
    const siteNotes = typeof attributes.site_notes === 'string' ? attributes.site_notes.trim() : '';
    const notes = typeof attributes.notes === 'string' ? attributes.notes.trim() : '';
    this.layout.paragraph(`Site access and notes: ${siteNotes || notes || 'none recorded; ask the customer before arriving.'}`);
    this.layout.heading('Contacts');
    const contactRows = this.inputs.contacts.map((contact) => [`${contact.first_name} ${contact.family_name}`.trim() || '—', contact.phone || '—', contact.email || '—']);
    if (contactRows.length === 0) this.layout.paragraph('No contact is recorded on this project.', { muted: true });
    else this.layout.table([{ title: 'Name', width: 0.35 }, { title: 'Phone', width: 0.25 }, { title: 'Email', width: 0.4 }], contactRows);
    this.roof(320, true);
    this.facetTable();
    this.billOfMaterials();
    this.layout.heading('Inverter and battery placement');
    const placements = [
      ...this.system.inverters.map((inverter) => `${inverter.quantity} × inverter ${inverter.manufacturer_name} ${inverter.code} (${this.number(inverter.max_power_kw, 2)} kW AC): mount near the main switchboard, out of direct sun, with clearance for ventilation.`),
      ...this.system.batteries.map((battery) => `${battery.quantity} × battery ${battery.manufacturer_name} ${battery.code} (${this.number(battery.capacity_kwh, 1)} kWh): beside the inverter, on a wall rated for its weight, away from habitable rooms and exits.`),
    ];
    for (const placement of placements) this.layout.paragraph(placement);
    this.layout.heading('Photos required');
    this.layout.checklist([
      ...(this.plan?.facets ?? []).flatMap((facet, index) => {
        const panels = this.plan!.panels.filter((panel) => panel.facetId === facet.facetId).length;
        return panels === 0 ? [] : [`Roof face ${index + 1} (${compass(facet.azimuth)}): before, with rails, and finished with all ${panels} panels`];
      }),
      ...this.system.inverters.map((inverter) => `Inverter ${inverter.code}: mounted, with its label and serial number`),
      ...this.system.batteries.map((battery) => `Battery ${battery.code}: mounted, with its label and serial number`),
      'Switchboard: before and after, with the new breakers labelled',
      'Meter: its number and reading',
    ]);
  }

  billOfMaterials(): void {
    this.layout.heading('Bill of materials', (bomRows(this.system).length + 3) * 17);
    const rows = bomRows(this.system).map((row) => [row.kind, `${row.manufacturer} ${row.code}`.trim(), row.description, String(row.quantity)]);
    const total = bomRows(this.system).reduce((sum, row) => sum + row.quantity, 0);
    this.layout.table(
      [
        { title: 'Kind', width: 0.15 },
        { title: 'Part', width: 0.35 },
        { title: 'Description', width: 0.38 },
        { title: 'Qty', width: 0.12, numeric: true },
      ],
      rows,
      ['', '', 'Items in total', String(total)],
    );
  }

  private placeholders(): Record<string, string> {
    const figures = this.figures;
    return {
      customer_name: this.customer,
      org_name: this.orgName,
      site_address: siteAddress(this.inputs.project),
      system_kw: this.number(figures.kwStc, 2),
      module_count: String(figures.moduleCount),
      price: this.money(figures.priceIncludingTax),
      payment_option: this.option?.title ?? '',
      payback: this.option ? paybackText(this.option) : '',
    };
  }
}

export interface BomRow {
  kind: 'Module' | 'Inverter' | 'Battery' | 'Other';
  code: string;
  manufacturer: string;
  description: string;
  quantity: number;
}

/** The system's parts, one row per line of the design (the bill of materials of the PDF and the CSV). */
export function bomRows(system: DesignSystem): BomRow[] {
  return [
    ...system.modules.map((module): BomRow => ({ kind: 'Module', code: module.code, manufacturer: module.manufacturer_name, description: `${module.watts} W panel, ${module.length_mm}×${module.width_mm} mm`, quantity: module.quantity })),
    ...system.inverters.map((inverter): BomRow => ({ kind: 'Inverter', code: inverter.code, manufacturer: inverter.manufacturer_name, description: `${inverter.max_power_kw} kW AC inverter`, quantity: inverter.quantity })),
    ...system.batteries.map((battery): BomRow => ({ kind: 'Battery', code: battery.code, manufacturer: battery.manufacturer_name, description: `${battery.capacity_kwh} kWh battery`, quantity: battery.quantity })),
    ...system.others.map((other): BomRow => ({ kind: 'Other', code: other.code, manufacturer: other.manufacturer_name, description: other.title, quantity: other.quantity })),
  ];
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** The contract's terms until org templates bring their own: {placeholders} are filled per project. */
const STANDARD_TERMS = [
  '1. {org_name} will supply and install the {system_kw} kW system of {module_count} panels described above at {site_address} for {price} including tax, paid as set out under Payment ({payment_option}).',
  '2. Figures for output, savings and payback are estimates from the design and the usage on record; weather, usage and tariffs change them, and they are not guaranteed.',
  '3. Installation is booked once this contract is signed and any deposit is paid. {org_name} will tell {customer_name} of any change to the design before work starts; a change of price needs both parties to agree in writing.',
  '4. Components carry their manufacturers\' warranties; workmanship is warranted by {org_name} for ten years from installation.',
  '5. The customer may cancel in writing within the cooling-off period the law of the site\'s country gives, without charge.',
];

/** `{name}` -> its value; unknown names stay as written, so a typo shows rather than vanishes. */
export function fillPlaceholders(text: string, values: Record<string, string>): string {
  return text.replace(/\{([a-z_]+)\}/g, (whole, name: string) => values[name] ?? whole);
}

/** "north-east" for 45. */
function compass(azimuth: number): string {
  const names = ['north', 'north-east', 'east', 'south-east', 'south', 'south-west', 'west', 'north-west'];
  return names[Math.round((((azimuth % 360) + 360) % 360) / 45) % 8]!;
}

// The `proposal_data` payload of GET /api/user_logins/ (facts section 12): what a
// customer is shown of a project's design, the systems with their prices, output,
// bills and payment options. Built from the decoded design; shape in
// shared/schemas/proposal-data.ts.
import { gzipSync } from 'node:zlib';
import type { DesignSystem, ProjectDesign } from '../../../shared/design-types.ts';
import type { ProposalData } from '../../../shared/schemas/proposal-data.ts';

const component = (part: { manufacturer_name: string; code: string; quantity: number }) => ({
  manufacturer_name: part.manufacturer_name,
  code: part.code,
  quantity: part.quantity,
});

function proposalSystem(system: DesignSystem): ProposalData['systems'][number] {
  const consumption = system.consumption?.annual_kwh ?? 0;
  return {
    uuid: system.uuid,
    id: system.id,
    name: system.name,
    is_sold: system.is_sold,
    kw_stc: system.kw_stc,
    module_quantity: system.total_module_quantity,
    battery_total_kwh: system.batteries.reduce((sum, battery) => sum + battery.capacity_kwh * battery.quantity, 0),
    price_including_tax: system.pricing.system_price_including_tax,
    price_excluding_tax: system.pricing.system_price_excluding_tax,
    tax: system.pricing.tax,
    output: { annual_kwh: system.output.annual_kwh, monthly_kwh: [...system.output.monthly_kwh] },
    consumption_annual_kwh: consumption,
    consumption_offset_percentage: consumption > 0 ? Math.round((system.output.annual_kwh / consumption) * 1000) / 10 : null,
    bills: { annual_bill_before: system.bills.annual_bill_before, annual_bill_after: system.bills.annual_bill_after, currency: system.bills.currency },
    environmentals: { ...system.environmentals },
    modules: system.modules.map(component),
    inverters: system.inverters.map(component),
    batteries: system.batteries.map(component),
    others: system.others.map(component),
    payment_options: system.payment_options.map((option) => ({
      id: option.id,
      title: option.title,
      payment_type: option.payment_type,
      payback_year: option.payback_year,
      net_present_value: option.net_present_value,
      internal_rate_of_return: option.internal_rate_of_return,
      cash_flows: [...option.cash_flows],
      utility_bill_savings_yearly: [...option.utility_bill_savings_yearly],
      quotation_lines: option.quotation_lines.map((line) => ({ title: line.title, amount: line.amount })),
      featured_figures: option.featured_figures.map((figure) => ({ label: figure.label, value: figure.value, unit: figure.unit })),
    })),
  };
}

/**
 * The systems the customer is shown: once a system is sold, that one alone unless
 * `includeUnsold`; before a sale, every system (the customer is choosing).
 */
export function proposalData(design: Pick<ProjectDesign, 'systems'> | null, language: string, includeUnsold: boolean): ProposalData {
  const systems = design?.systems ?? [];
  const sold = systems.filter((system) => system.is_sold);
  const shown = sold.length > 0 && !includeUnsold ? sold : systems;
  return { language, currency: systems[0]?.bills.currency ?? null, systems: shown.map(proposalSystem) };
}

/** compress_data=true: base64 of gzipped JSON, as a project's `design` is sent. */
export function compressProposalData(data: ProposalData): string {
  return gzipSync(JSON.stringify(data)).toString('base64');
}

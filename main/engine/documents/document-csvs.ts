// The CSV documents (issue 29): rows from the design, a last "Total" row that adds
// up the columns above it, written by http/csv.ts (formula-safe, CRLF lines).
import { runningTotals } from '../../../shared/design-figures.ts';
import type { DocumentType } from '../../../shared/documents.ts';
import { validationError } from '../http/errors.ts';
import { toCsv, type CsvValue } from '../http/csv.ts';
import type { DocumentInputs } from './document-inputs.ts';
import { bomRows } from './document-pdfs.ts';

const HOURS_IN_A_YEAR = 8760;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Rounded to cents (money) or watt-hours (energy), so the total row adds up as printed. */
const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

function withTotal(columns: readonly string[], rows: Record<string, CsvValue>[], label: string, summed: readonly string[], digits: number): string {
  const total: Record<string, CsvValue> = { [columns[0]!]: label };
  for (const column of summed) total[column] = round(rows.reduce((sum, row) => sum + Number(row[column] ?? 0), 0), digits);
  return toCsv(columns, [...rows, total]);
}

export function documentCsv(inputs: DocumentInputs): string {
  const builder = CSVS[inputs.type];
  if (!builder) throw new Error(`${inputs.type} is not made as CSV`);
  return builder(inputs);
}

const CSVS: Partial<Record<DocumentType, (inputs: DocumentInputs) => string>> = {
  financials_report: ({ option }) => {
    if (!option) throw validationError({ payment_option_id: ['This system has no payment options, so it has no financials. Add a payment option to the design.'] });
    const totals = runningTotals(option.cash_flows);
    const columns = ['year', 'utility_bill_savings', 'cash_flow', 'running_total'];
    const rows = option.cash_flows.map((flow, year) => ({
      year,
      utility_bill_savings: year === 0 ? 0 : round(option.utility_bill_savings_yearly[year - 1] ?? 0, 2),
      cash_flow: round(flow, 2),
      running_total: round(totals[year]!, 2),
    }));
    return withTotal(columns, rows, 'Total', ['utility_bill_savings', 'cash_flow'], 2);
  },
  global_bom: ({ system }) => {
    const columns = ['kind', 'manufacturer', 'code', 'description', 'quantity'];
    const rows = bomRows(system).map((row) => ({ kind: row.kind, manufacturer: row.manufacturer, code: row.code, description: row.description, quantity: row.quantity }));
    return withTotal(columns, rows, 'Total', ['quantity'], 0);
  },
  bill_calculations_csv: ({ system }) => {
    const columns = ['month', 'output_kwh', 'consumption_kwh', 'bill_before', 'bill_after', 'savings', 'currency'];
    const rows = MONTHS.map((month, index) => {
      const before = system.bills.monthly_before[index] ?? 0;
      const after = system.bills.monthly_after[index] ?? 0;
      return {
        month,
        output_kwh: round(system.output.monthly_kwh[index] ?? 0, 3),
        consumption_kwh: round(system.consumption.monthly_kwh[index] ?? 0, 3),
        bill_before: round(before, 2),
        bill_after: round(after, 2),
        savings: round(before - after, 2),
        currency: system.bills.currency,
      };
    });
    return withTotal(columns, rows, 'Total', ['output_kwh', 'consumption_kwh', 'bill_before', 'bill_after', 'savings'], 2);
  },
  system_performance_8760: ({ system }) => {
    const hourly = system.hourly_output_kwh;
    if (!Array.isArray(hourly) || hourly.length !== HOURS_IN_A_YEAR) {
      throw validationError({
        non_field_errors: [`The design of "${system.name}" holds no hourly output (8760 values), so it has no hourly performance. Ask for bill_calculations_csv for its monthly figures.`],
      });
    }
    const columns = ['hour', 'month', 'day', 'hour_of_day', 'output_kwh'];
    const rows = hourly.map((kwh, hour) => {
      const date = new Date(Date.UTC(2025, 0, 1) + hour * 3_600_000);
      return { hour, month: date.getUTCMonth() + 1, day: date.getUTCDate(), hour_of_day: date.getUTCHours(), output_kwh: round(kwh, 4) };
    });
    return withTotal(columns, rows, 'Total', ['output_kwh'], 3);
  },
};

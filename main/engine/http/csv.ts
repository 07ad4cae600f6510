// CSV answers (`format=csv` on the webhook log and queue, hosted docs: Webhooks
// Logs, Webhooks Queue): RFC 4180, a header row, CRLF line ends. No CSV package is
// a dependency, and writing CSV is small: a value is quoted when it holds a comma,
// a quote, a CR or LF, or starts or ends with a space, and a quote inside is
// doubled. Booleans are `true`/`false`, null is empty, objects are their JSON.
//
// Formula injection (issue 25, item 8): an admin opens the export in a spreadsheet,
// and a text a member wrote (a project titled `=HYPERLINK(...)`) would run there as
// a formula. As OWASP's "CSV Injection" page recommends, a text cell starting with
// =, +, -, @, a tab or a CR gets a leading single quote (the spreadsheet shows it
// as text) and is quoted. Numbers are written as they are: -3 is a number, not a
// formula. Every CSV the server emits goes through csvField, so this is the one place.
import type { FastifyReply } from 'fastify';

/** The first characters that make a spreadsheet read a cell as a formula (OWASP: CSV Injection). */
const FORMULA_START = /^[=+\-@\t\r]/;

export type CsvValue = string | number | boolean | null | undefined | object;

export function csvField(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (typeof value === 'string' && FORMULA_START.test(text)) return `"'${text.replaceAll('"', '""')}"`;
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The rows as CSV under a header of `columns`, in that order; each line ends with CRLF. */
export function toCsv(columns: readonly string[], rows: readonly Record<string, CsvValue>[]): string {
  const lines = [columns.map(csvField).join(',')];
  for (const row of rows) lines.push(columns.map((column) => csvField(row[column])).join(','));
  return `${lines.map((line) => `${line}\r\n`).join('')}`;
}

/** Sends rows as a CSV download named `filename`. */
export function sendCsv(reply: FastifyReply, filename: string, columns: readonly string[], rows: readonly Record<string, CsvValue>[]): FastifyReply {
  return reply
    .header('content-type', 'text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${filename}"`)
    .send(toCsv(columns, rows));
}

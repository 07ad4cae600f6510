// Reading RFC 4180 CSV as the engine writes it (main/engine/http/csv.ts): the Documents menu's preview of a CSV, and the tests of the routes that answer CSV.

/** Splits RFC 4180 CSV into rows of fields (quoted fields may hold commas, quotes and newlines). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  const endField = () => {
    row.push(field);
    field = '';
  };
  for (let index = 0; index < text.length; index++) {
    const character = text[index]!;
    if (quoted) {
      if (character === '"' && text[index + 1] === '"') {
        field += '"';
        index++;
      } else if (character === '"') quoted = false;
      else field += character;
    } else if (character === '"') quoted = true;
    else if (character === ',') endField();
    else if (character === '\r' && text[index + 1] === '\n') {
      endField();
      rows.push(row);
      row = [];
      index++;
    } else field += character;
  }
  if (field !== '' || row.length > 0) {
    endField();
    rows.push(row);
  }
  return rows;
}

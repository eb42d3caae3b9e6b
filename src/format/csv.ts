// CSV (RFC 4180) that a spreadsheet opens as data, never as formulas: a cell starting with `=`, `+`,
// `-`, `@`, a tab or a carriage return gets a leading `'` (the OWASP advice for CSV injection), and a
// cell holding a comma, quote or line break is quoted with its quotes doubled.

const FORMULA_START = /^[=+\-@\t\r]/;

/** One cell, made inert and quoted as needed. Null and undefined are empty cells. */
export function csvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

type CsvRow = ReadonlyArray<string | number | boolean | null | undefined>;

/** One row's line, its CRLF included: toCsv's text is its rows' lines one after another. */
export function csvLine(row: CsvRow): string {
  return `${row.map(csvCell).join(',')}\r\n`;
}

/** Rows joined with CRLF, as RFC 4180 asks; the first row is usually the header. */
export function toCsv(rows: ReadonlyArray<CsvRow>): string {
  return rows.map(csvLine).join('');
}

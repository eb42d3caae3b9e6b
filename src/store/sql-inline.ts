// A statement with its parameters written into its text, for running a whole batch as one script on
// SQLite's thread (sqlite3_exec takes no parameters). Only values whose literal SQLite reads back as
// the same value that binding would give are inlined; anything else (an object, a named parameter,
// more or fewer parameters than the statement names) gives undefined, and the caller binds instead.

/** The SQL literal for a bound value, as node-sqlite3 would bind it; undefined when there is none. */
export function sqlLiteral(value: unknown): string | undefined {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'string') return textLiteral(value);
  if (typeof value === 'number') return numberLiteral(value);
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (Buffer.isBuffer(value)) return `X'${value.toString('hex')}'`;
  return undefined;
}

function textLiteral(value: string): string {
  // Inside '…' only a quote is special (doubled); a NUL would end the script's text, so such text
  // goes as its UTF-8 bytes, cast back to text.
  if (value.includes('\u0000')) return `CAST(X'${Buffer.from(value, 'utf8').toString('hex')}' AS TEXT)`;
  return `'${value.replaceAll("'", "''")}'`;
}

function numberLiteral(value: number): string | undefined {
  if (!Number.isFinite(value)) return undefined;
  // node-sqlite3 binds a 32-bit integer as an integer and any other number as a double. A whole
  // number SQLite reads back exactly as a double (`123.0`); a fraction's decimal text it need not
  // (its conversion is not always correctly rounded), so a fraction is bound instead.
  if (!Number.isInteger(value) || Math.abs(value) > Number.MAX_SAFE_INTEGER) return undefined;
  const text = value >= -2_147_483_648 && value <= 2_147_483_647 ? String(value) : value.toFixed(1);
  // In brackets when negative: after a '-' in the statement (`n -?`) a bare `-5` would open a comment.
  return value < 0 || Object.is(value, -0) ? `(${text})` : text;
}

/**
 * `sql` with each `?` / `?NNN` replaced by the literal of its parameter, leaving string literals,
 * quoted identifiers and comments untouched; undefined when it cannot be done exactly.
 */
export function inlineParameters(sql: string, params: unknown[]): string | undefined {
  const template = templateOf(sql);
  if (template === undefined || template.highest !== params.length) return undefined;
  let out = template.parts[0] ?? '';
  for (const [k, index] of template.indexes.entries()) {
    const literal = sqlLiteral(params[index - 1]);
    if (literal === undefined) return undefined;
    out += literal + (template.parts[k + 1] ?? '');
  }
  return out;
}

/**
 * A statement cut at its parameters: `parts` around them, the parameter each place takes (from 1),
 * the largest of those. A statement's text is read once: the store sends the same few again and again.
 */
interface Template {
  parts: string[];
  indexes: number[];
  highest: number;
}

/**
 * Statements read so far (null: they cannot be written out); past the limit, read at each use. Callers
 * pass the same string each time (not one built anew): its hash is kept and a hit is one comparison.
 */
const templates = new Map<string, Template | null>();
const KEPT_TEMPLATES = 256;

function templateOf(sql: string): Template | undefined {
  let template = templates.get(sql);
  if (template === undefined) {
    template = readTemplate(sql) ?? null;
    if (templates.size < KEPT_TEMPLATES) templates.set(sql, template);
  }
  return template ?? undefined;
}

function readTemplate(sql: string): Template | undefined {
  const template: Template = { parts: [], indexes: [], highest: 0 };
  let copied = 0; // sql[copied…] is not yet in `parts`
  const special = /['"`[?:@$]|--|\/\*/g;
  for (let match = special.exec(sql); match; match = special.exec(sql)) {
    const at = match.index;
    const c = match[0];
    let end: number; // where scanning resumes
    if (c === '?') {
      end = parameterEnd(sql, at);
      // A bare '?' takes the number after the largest one assigned so far (as SQLite numbers them).
      const index = end > at + 1 ? Number(sql.slice(at + 1, end)) : template.highest + 1;
      if (index < 1) return undefined;
      template.highest = Math.max(template.highest, index);
      template.parts.push(sql.slice(copied, at));
      template.indexes.push(index);
      copied = end;
    } else {
      end = skippedEnd(sql, c, at);
      if (end < 0) return undefined;
    }
    special.lastIndex = end;
  }
  template.parts.push(sql.slice(copied));
  return template;
}

/** Where the digits of `?NNN` that starts at `at` end (just after the `?` when it is bare). */
function parameterEnd(sql: string, at: number): number {
  let end = at + 1;
  while (end < sql.length && sql.charCodeAt(end) >= 48 && sql.charCodeAt(end) <= 57) end++;
  return end;
}

/**
 * Where the scan resumes after the quoted text, comment or other special character `c` at `at`; -1
 * when the statement cannot be written out (a quote or comment left open, a named parameter).
 */
function skippedEnd(sql: string, c: string, at: number): number {
  if (c === "'" || c === '"' || c === '`' || c === '[') {
    // A quote inside is doubled (''): the scan simply resumes after the closing one.
    const close = sql.indexOf(c === '[' ? ']' : c, at + 1);
    return close < 0 ? -1 : close + 1;
  }
  if (c === '--') {
    const close = sql.indexOf('\n', at);
    return close < 0 ? sql.length : close;
  }
  if (c === '/*') {
    const close = sql.indexOf('*/', at + 2);
    return close < 0 ? -1 : close + 2;
  }
  // A named parameter (:name, @name, $name, $1) is bound by name, not by place.
  return /[A-Za-z0-9_$\u0080-\uffff]/.test(sql[at + 1] ?? '') ? -1 : at + 1;
}

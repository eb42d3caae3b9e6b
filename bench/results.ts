// The figures every bench section reports, as one JSON line each on stdout (`BENCH_RESULT {…}`), so
// `npm run bench` can collect them from a section run in its own process and print one summary: the
// figure, its target, the reference measured beside it in the same run, and whether the target is met.
import { availableParallelism, loadavg } from 'node:os';

export const RESULT_PREFIX = 'BENCH_RESULT ';

export interface Target {
  /** How the value must compare with `value`. */
  op: '<' | '<=' | '>=' | '=';
  value: number;
}

export interface BenchFigure {
  /** Stable id, e.g. `ack.saturated.p99-ratio`; a reference row names the figure it stands beside. */
  id: string;
  /** What it is, in words, for the summary table. */
  figure: string;
  value: number;
  /** Unit as printed after the value (`ms`, `µs`, `/s`, `MB`, `×`, `` for counts). */
  unit: string;
  target?: Target;
  /** What it is compared with in the same run, in words (`bare Bolt p99 5.20 ms`). */
  reference?: string;
  /** Set on a reference figure: the id of the figure whose reference column it fills. */
  referenceFor?: string;
  /** Short label for a reference figure in that column (`memory store`). */
  referenceLabel?: string;
}

export interface Machine {
  cores: number;
  loadAverage: [number, number, number];
  node: string;
}

export function machine(): Machine {
  const [one = 0, five = 0, fifteen = 0] = loadavg();
  return { cores: availableParallelism(), loadAverage: [one, five, fifteen], node: process.version };
}

export function machineLine(m: Machine = machine()): string {
  const load = m.loadAverage.map((n) => n.toFixed(2)).join(' ');
  return `machine: ${m.cores} cores, load average ${load} (1/5/15 min), node ${m.node}`;
}

/** Prints one figure for `npm run bench` to collect (a section run alone prints it too; harmless). */
export function emitResult(figure: BenchFigure): void {
  process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(figure)}\n`);
}

export function parseResultLine(line: string): BenchFigure | undefined {
  if (!line.startsWith(RESULT_PREFIX)) return undefined;
  try {
    const parsed = JSON.parse(line.slice(RESULT_PREFIX.length)) as BenchFigure;
    return typeof parsed.id === 'string' && typeof parsed.value === 'number' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

export function meets(value: number, target: Target): boolean {
  if (!Number.isFinite(value)) return false;
  if (target.op === '<') return value < target.value;
  if (target.op === '<=') return value <= target.value;
  if (target.op === '>=') return value >= target.value;
  return value === target.value;
}

export function formatValue(value: number, unit: string): string {
  if (!Number.isFinite(value)) return 'not measured';
  const digits = Math.abs(value) >= 100 || Number.isInteger(value) ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  const text = value.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  if (unit === '') return text;
  if (unit === '/s' || unit === '×') return `${text}${unit}`;
  return `${text} ${unit}`;
}

export interface SummaryRow {
  id: string;
  figure: string;
  value: string;
  target: string;
  reference: string;
  met: 'yes' | 'NO' | '—';
}

/** One row per figure with a target or a reference of its own; reference figures fill those rows. */
export function summaryRows(figures: BenchFigure[]): SummaryRow[] {
  const references = new Map<string, string[]>();
  for (const f of figures) {
    if (!f.referenceFor) continue;
    const text = `${f.referenceLabel ?? f.figure} ${formatValue(f.value, f.unit)}`;
    references.set(f.referenceFor, [...(references.get(f.referenceFor) ?? []), text]);
  }
  return figures
    .filter((f) => !f.referenceFor)
    .map((f) => ({
      id: f.id,
      figure: f.figure,
      value: formatValue(f.value, f.unit),
      target: f.target ? `${f.target.op} ${formatValue(f.target.value, f.unit)}` : '—',
      reference: [f.reference, ...(references.get(f.id) ?? [])].filter(Boolean).join('; ') || '—',
      met: f.target ? (meets(f.value, f.target) ? 'yes' : 'NO') : '—',
    }));
}

/** The summary as fixed-width text for the terminal. */
export function summaryText(rows: SummaryRow[]): string[] {
  const header: SummaryRow = {
    id: '',
    figure: 'figure',
    value: 'value',
    target: 'target',
    reference: 'reference (same run)',
    met: '—',
  };
  const all = [header, ...rows];
  const width = (key: 'figure' | 'value' | 'target') => Math.max(...all.map((r) => r[key].length));
  const [fw, vw, tw] = [width('figure'), width('value'), width('target')];
  return all.map(
    (r, i) =>
      `${r.figure.padEnd(fw)}  ${r.value.padStart(vw)}  ${r.target.padEnd(tw)}  ${(i === 0 ? 'met?' : r.met).padEnd(4)}  ${r.reference}`,
  );
}

/** The summary as a Markdown table, for docs/benchmarks.md. */
export function summaryMarkdown(rows: SummaryRow[], m: Machine, date: string): string {
  const cell = (text: string) => text.replace(/\|/g, '\\|');
  return [
    `Last \`npm run bench -- --write-docs\`: ${date}, ${m.cores} cores, load average ${m.loadAverage[0].toFixed(1)} at the end, node ${m.node}.`,
    '',
    '| figure | value | target | reference (same run) | met? |',
    '| --- | --- | --- | --- | --- |',
    ...rows.map(
      (r) => `| ${cell(r.figure)} | ${cell(r.value)} | ${cell(r.target)} | ${cell(r.reference)} | ${r.met} |`,
    ),
  ].join('\n');
}

/** The page the summary table is written to, between its markers. */
export const BENCH_PAGE = 'docs/benchmarks.md';
export const TABLE_BEGIN = '<!-- bench:begin -->';
export const TABLE_END = '<!-- bench:end -->';

/** `page` with the text between the bench markers replaced; throws when the markers are missing. */
export function replaceBenchTable(page: string, table: string): string {
  const begin = page.indexOf(TABLE_BEGIN);
  const end = page.indexOf(TABLE_END);
  if (begin < 0 || end < begin) {
    throw new Error(`${BENCH_PAGE} has no ${TABLE_BEGIN} … ${TABLE_END} pair to write the table between`);
  }
  return `${page.slice(0, begin + TABLE_BEGIN.length)}\n${table}\n${page.slice(end)}`;
}

// The figures of sections other work also changes (webhooks, start-up), here so those files carry one
// call each.

/** One intake run: SQLite is judged against the targets, the other stores stand beside it. */
export function emitIntake(label: string, perSecond: number, p99Ms: number): void {
  const store = label.replace(/ store$/, '');
  if (store !== 'SQLite') {
    emitResult({
      id: `webhooks.intake.${store.toLowerCase()}`,
      figure: `webhook intake, ${label}`,
      value: Math.round(perSecond),
      unit: '/s',
      referenceFor: 'webhooks.intake.sqlite',
      referenceLabel: `${label} (p99 ${p99Ms.toFixed(1)} ms)`,
    });
    return;
  }
  emitResult({
    id: 'webhooks.intake.sqlite',
    figure: 'webhook intake, SQLite store (16 at a time)',
    value: Math.round(perSecond),
    unit: '/s',
    target: { op: '>=', value: 2_000 },
  });
  emitResult({
    id: 'webhooks.intake.sqlite.p99',
    figure: 'webhook intake p99, SQLite store',
    value: p99Ms,
    unit: 'ms',
    target: { op: '<', value: 20 },
  });
}

/** One 1,000-event burst: seconds until every event is visible, and the lost and twice-shown counts. */
export function emitBurst(
  kind: 'burst' | 'kill -9',
  events: number,
  seconds: number,
  seen: { lost: number; twice: number },
): void {
  const id = kind === 'burst' ? 'webhooks.burst' : 'webhooks.burst-kill9';
  const what =
    kind === 'burst' ? `${events.toLocaleString('en')}-event burst` : 'the same burst with kill -9';
  emitResult({
    id: `${id}.seconds`,
    figure: `${what}: every event visible in #alerts`,
    value: seconds,
    unit: 's',
    target: { op: '<', value: 60 },
  });
  emitResult({
    id: `${id}.lost`,
    figure: `${what}: lost`,
    value: seen.lost,
    unit: '',
    target: { op: '=', value: 0 },
  });
  emitResult({
    id: `${id}.twice`,
    figure: `${what}: shown twice`,
    value: seen.twice,
    unit: '',
    target: { op: '=', value: 0 },
  });
}

/**
 * Start-up to /healthz and the idle RSS of what `npm start` left running (medians), npm's own process
 * and the rest (the bot) apart; `before` is the same bot started the old way in the same bench, if any.
 */
export function emitStartup(
  healthzMs: number,
  processes: Array<{ command: string; rssMb: number }>,
  before?: { healthzMs: number; rssMb: number },
): void {
  const npm = processes.filter((p) => /^npm( |$)/.test(p.command)).reduce((sum, p) => sum + p.rssMb, 0);
  const total = processes.reduce((sum, p) => sum + p.rssMb, 0);
  const bot = total - npm;
  emitResult({
    id: 'startup.healthz',
    figure: '`npm start` to the first 200 from /healthz',
    value: healthzMs / 1_000,
    unit: 's',
    target: { op: '<', value: 1 },
    ...(before ? { reference: `before (tsx src/main.ts) ${(before.healthzMs / 1_000).toFixed(2)} s` } : {}),
  });
  emitResult({
    id: 'startup.rss.total',
    figure: 'idle RSS of everything `npm start` leaves running',
    value: Math.round(total),
    unit: 'MB',
    target: { op: '<', value: 130 },
    reference: `the bot ${bot.toFixed(0)} MB + npm's own process ${npm.toFixed(0)} MB${before ? `; before ${before.rssMb.toFixed(0)} MB` : ''}`,
  });
  emitResult({
    id: 'startup.rss.bot',
    figure: "idle RSS of the bot's process(es), without npm's",
    value: Math.round(bot),
    unit: 'MB',
  });
  emitResult({
    id: 'startup.rss.npm',
    figure: "idle RSS of npm's own process",
    value: Math.round(npm),
    unit: 'MB',
  });
}

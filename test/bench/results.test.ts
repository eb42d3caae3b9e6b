// The bench summary: each figure judged against its target, the references measured beside it in the
// same run gathered into its row, and the table of docs/benchmarks.md replaced between its markers only.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  BENCH_PAGE,
  type BenchFigure,
  parseResultLine,
  replaceBenchTable,
  summaryMarkdown,
  summaryRows,
  TABLE_BEGIN,
  TABLE_END,
} from '../../bench/results.js';

const figures: BenchFigure[] = [
  {
    id: 'webhooks.intake.sqlite',
    figure: 'intake, SQLite',
    value: 2_400,
    unit: '/s',
    target: { op: '>=', value: 2_000 },
  },
  {
    id: 'webhooks.intake.memory',
    figure: 'intake, memory',
    value: 9_100,
    unit: '/s',
    referenceFor: 'webhooks.intake.sqlite',
    referenceLabel: 'memory store',
  },
  {
    id: 'ack.saturated.p99-ratio',
    figure: 'ack p99 ratio',
    value: 1.62,
    unit: '×',
    target: { op: '<=', value: 1.5 },
    reference: 'bare Bolt p99 5.20 ms',
  },
  { id: 'burst.lost', figure: 'lost | dropped', value: 0, unit: '', target: { op: '=', value: 0 } },
  { id: 'rss.npm', figure: "npm's own process", value: 56, unit: 'MB' },
];

describe('the bench summary', () => {
  it('judges each figure against its target and puts the same-run references in its row', () => {
    const rows = summaryRows(figures);
    expect(rows.map((r) => [r.id, r.value, r.target, r.met])).toEqual([
      ['webhooks.intake.sqlite', '2,400/s', '>= 2,000/s', 'yes'],
      ['ack.saturated.p99-ratio', '1.62×', '<= 1.50×', 'NO'],
      ['burst.lost', '0', '= 0', 'yes'],
      ['rss.npm', '56 MB', '—', '—'],
    ]);
    expect(rows[0]?.reference).toBe('memory store 9,100/s');
    expect(rows[1]?.reference).toBe('bare Bolt p99 5.20 ms');
  });

  it('reads the figures a section prints and ignores every other line', () => {
    expect(parseResultLine(`BENCH_RESULT ${JSON.stringify(figures[0])}`)).toEqual(figures[0]);
    expect(parseResultLine('webhook intake (SQLite store): 2,400 events/s')).toBeUndefined();
    expect(parseResultLine('BENCH_RESULT {not json')).toBeUndefined();
  });

  it('rewrites only the table between the markers, and refuses a page without them', () => {
    const machine = { cores: 2, loadAverage: [1.5, 1, 1] as [number, number, number], node: 'v20.19.0' };
    const table = summaryMarkdown(summaryRows(figures), machine, '2026-11-23');
    const page = `# Benchmarks\n\nBefore.\n\n${TABLE_BEGIN}\nold table\n${TABLE_END}\n\nAfter.\n`;
    const written = replaceBenchTable(page, table);
    expect(written).toContain('| lost \\| dropped | 0 | = 0 | — | yes |');
    expect(written).toContain('Last `npm run bench -- --write-docs`: 2026-11-23, 2 cores');
    expect(written).not.toContain('old table');
    expect(written.startsWith('# Benchmarks\n\nBefore.\n\n')).toBe(true);
    expect(written.endsWith(`${TABLE_END}\n\nAfter.\n`)).toBe(true);
    expect(replaceBenchTable(written, table)).toBe(written);
    expect(() => replaceBenchTable('# Title\n', table)).toThrow(/bench:begin/);
  });

  it('writes its table into docs/benchmarks.md, which holds the markers once', () => {
    const page = readFileSync(new URL(`../../${BENCH_PAGE}`, import.meta.url), 'utf8');
    expect(page.split(TABLE_BEGIN)).toHaveLength(2);
    expect(page.split(TABLE_END)).toHaveLength(2);
    const table = page.slice(page.indexOf(TABLE_BEGIN) + TABLE_BEGIN.length, page.indexOf(TABLE_END)).trim();
    expect(replaceBenchTable(page, table)).toBe(page);
  });
});

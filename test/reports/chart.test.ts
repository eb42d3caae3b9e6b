import { Resvg } from '@resvg/resvg-js';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { CHART_FONT_FILES, renderReportChart } from '../../src/reports/chart.js';
import { CHART_HEIGHT, CHART_WIDTH, chartSvg } from '../../src/reports/chart-svg.js';
import type { ChartInput, DayFigures } from '../../src/reports/types.js';
import { daysOf, WEEK } from '../support/report-days.js';

const week: ChartInput = { title: 'cNGN treasury — last 7 days', environment: 'sandbox', days: WEEK };
const quietDay: DayFigures[] = [
  { day: '2026-11-22', closing: '44845500.75', inflow: '0.00', outflow: '0.00' },
];

// The two plot areas in CSS pixels, clear of the axis labels on their left.
const BALANCE_AREA = { x: 160, y: 124, width: 700, height: 172 };
const FLOWS_AREA = { x: 160, y: 354, width: 700, height: 112 };

type Area = typeof BALANCE_AREA;

function decode(png: Uint8Array): PNG {
  return PNG.sync.read(Buffer.from(png));
}

/** Pixels of the area (CSS px, scaled) for which `test(r, g, b)` holds. */
function count(
  image: PNG,
  area: Area,
  scale: number,
  test: (r: number, g: number, b: number) => boolean,
): number {
  let n = 0;
  for (let y = area.y * scale; y < (area.y + area.height) * scale; y++) {
    for (let x = area.x * scale; x < (area.x + area.width) * scale; x++) {
      const i = (y * image.width + x) * 4;
      if (test(image.data[i] ?? 0, image.data[i + 1] ?? 0, image.data[i + 2] ?? 0)) n++;
    }
  }
  return n;
}

const ink = (r: number, g: number, b: number) => r < 200 || g < 200 || b < 200;
const green = (r: number, g: number, b: number) => g > 120 && g - r > 60 && g - b > 30;
const red = (r: number, g: number, b: number) => r > 160 && r - g > 100 && r - b > 80;
const blue = (r: number, g: number, b: number) => b > 150 && b - r > 100 && b - g > 40;
const shaded = (r: number, g: number, b: number) => r === 242 && g === 243 && b === 245;

describe('the report chart', () => {
  it('is a 900×520 PNG at 1× and 1800×1040 at 2×', async () => {
    for (const scale of [1, 2]) {
      const chart = await renderReportChart({ ...week, scale });
      const image = decode(chart.png);
      expect([image.width, image.height]).toEqual([CHART_WIDTH * scale, CHART_HEIGHT * scale]);
      expect([chart.width, chart.height]).toEqual([image.width, image.height]);
    }
  });

  it('draws the balance line in the top panel and green and red bars beneath it', async () => {
    const scale = 2;
    const image = decode((await renderReportChart({ ...week, scale })).png);
    const area = (a: Area) => a.width * a.height * scale * scale;
    expect(count(image, BALANCE_AREA, scale, blue)).toBeGreaterThan(area(BALANCE_AREA) * 0.01);
    expect(count(image, FLOWS_AREA, scale, green)).toBeGreaterThan(area(FLOWS_AREA) * 0.03);
    expect(count(image, FLOWS_AREA, scale, red)).toBeGreaterThan(area(FLOWS_AREA) * 0.03);
    // The line belongs to the top panel and the bars to the bottom one.
    expect(count(image, BALANCE_AREA, scale, green)).toBe(0);
    expect(count(image, FLOWS_AREA, scale, blue)).toBe(0);
  });

  it('says the period’s figures in its alt text', async () => {
    const chart = await renderReportChart(week);
    expect(chart.alt).toBe(
      'cNGN treasury — last 7 days (sandbox), Mon 16 Nov to Sun 22 Nov 2026: closing balance ₦48,250,000.00 on Mon 16 Nov, ₦44,845,500.75 on Sun 22 Nov; inflows ₦42,045,500.75, outflows ₦36,700,000.00 over 7 days.',
    );
  });

  it('says the opening balance, as the summary does, when it is given', async () => {
    const chart = await renderReportChart({ ...week, opening: '39500000.00' });
    expect(chart.alt).toContain(
      'opening balance ₦39,500,000.00, closing balance ₦44,845,500.75 on Sun 22 Nov; inflows',
    );
  });

  it('sums the days’ amounts exactly', async () => {
    const cents = Array.from({ length: 10 }, (_, i) => ({
      day: `2026-11-${String(i + 10).padStart(2, '0')}`,
      closing: '0.30',
      inflow: '0.10',
      outflow: '0.20',
    }));
    const chart = await renderReportChart({ ...week, days: cents });
    expect(chart.alt).toContain('inflows ₦1.00, outflows ₦2.00 over 10 days');
  });

  it('renders a period without movements with a note and no bars', async () => {
    const input: ChartInput = { title: 'cNGN treasury — today', environment: 'test', days: quietDay };
    const scale = 1;
    const chart = await renderReportChart({ ...input, scale });
    const image = decode(chart.png);
    expect(count(image, FLOWS_AREA, scale, green) + count(image, FLOWS_AREA, scale, red)).toBe(0);
    expect(chartSvg(input)).toContain('No inflows or outflows in this period');
    // The note's words are drawn in the middle of the bottom panel.
    const note = { x: 380, y: 395, width: 220, height: 20 };
    expect(count(image, note, scale, ink)).toBeGreaterThan(100);
    expect(chart.alt).toBe(
      'cNGN treasury — today (test), Sun 22 Nov 2026: closing balance ₦44,845,500.75 on Sun 22 Nov; no movements over 1 day.',
    );
  });

  it('renders a period without figures with a note', async () => {
    const input: ChartInput = { ...week, days: [] };
    const chart = await renderReportChart(input);
    expect(decode(chart.png).width).toBe(CHART_WIDTH);
    expect(chartSvg(input)).toContain('No figures for this period');
    expect(chart.alt).toBe('cNGN treasury — last 7 days (sandbox), no figures for this period.');
  });

  it('shades the days before the figures are complete and says from when', async () => {
    const input: ChartInput = {
      title: 'cNGN treasury — last 30 days (live)',
      environment: 'live',
      days: daysOf(30),
      completeFrom: '2026-10-26T09:00:00Z',
    };
    const chart = await renderReportChart(input);
    const image = decode(chart.png);
    // 24, 25 and 26 Oct started before 10:00 WAT on the 26th: three of thirty slots.
    const left = { x: 120, y: 360, width: 50, height: 40 };
    expect(count(image, left, 1, shaded)).toBeGreaterThan(0);
    const right = { x: 300, y: 360, width: 560, height: 100 };
    expect(count(image, right, 1, shaded)).toBe(0);
    expect(chart.alt).toMatch(/Figures complete from Mon 26 Oct 2026, 10:00 WAT\.$/);
    expect(chartSvg(input)).toContain('Figures complete from Mon 26 Oct 2026, 10:00 WAT');
  });

  it('adds the environment to a title that does not name it', async () => {
    const chart = await renderReportChart({
      ...week,
      title: 'cNGN treasury — November 2026',
      environment: 'live',
    });
    expect(chart.alt.startsWith('cNGN treasury — November 2026 (live), ')).toBe(true);
  });

  it('cuts a title too long for the picture, and keeps the whole title in the alt text', async () => {
    const title = `cNGN treasury — ${'a very long period name '.repeat(6)}`;
    const input: ChartInput = { ...week, title };
    expect(chartSvg(input)).toContain('…');
    expect(chartSvg(week)).not.toContain('…');
    expect((await renderReportChart(input)).alt.startsWith(`${title} (sandbox), `)).toBe(true);
  });

  it('draws a title with markup characters as text', async () => {
    const input: ChartInput = { ...week, title: 'Treasury <b>&amp; "co" (sandbox)' };
    expect(chartSvg(input)).toContain('Treasury &#60;b&#62;&#38;amp; &#34;co&#34; (sandbox)');
    expect(decode((await renderReportChart(input)).png).width).toBe(CHART_WIDTH);
  });

  it('says in its title and alt text when its figures are unconfirmed or were cut short', async () => {
    const unconfirmed = await renderReportChart({ ...week, unconfirmed: true });
    expect(unconfirmed.alt).toMatch(
      /^cNGN treasury — last 7 days \(sandbox\) · unconfirmed\. Mon 16 Nov to Sun 22 Nov 2026: .* Unconfirmed: money moved while the report was read, so the figures may be off by the latest movements\.$/,
    );
    const svg = chartSvg({ ...week, unconfirmed: true });
    expect(svg).toContain(
      'cNGN treasury — last 7 days (sandbox)<tspan fill="#9a5b00">\u00a0· unconfirmed</tspan>',
    );
    expect(svg).toContain('Unconfirmed: money moved while this was read');

    const both = { ...week, unconfirmed: true, cutShort: true, completeFrom: '2026-11-17T09:00:00Z' };
    expect((await renderReportChart(both)).alt).toMatch(
      /^cNGN treasury — last 7 days \(sandbox\) · unconfirmed, cut short\. .* Cut short: the read of the service's transactions stopped to keep within its request budget\.$/,
    );
    expect(chartSvg(both)).toContain('· unconfirmed, cut short</tspan>');
    expect(chartSvg(both)).toContain(
      'Money moved while read, figures may be off  ·  Complete from Tue 17 Nov 2026, 10:00 WAT, read cut short (earlier days shaded)',
    );
    expect(chartSvg({ ...week, cutShort: true })).toContain('· cut short</tspan>');

    // A confirmed chart says none of it.
    expect((await renderReportChart(week)).alt).not.toMatch(/unconfirmed|cut short/i);
    expect(chartSvg(week)).not.toContain('tspan');
  });

  it('draws the caveat in the warning colour beside the title, and keeps it when the title is cut', async () => {
    const caveatArea = { x: 330, y: 18, width: 200, height: 24 };
    const amber = (r: number, g: number, b: number) => r > 120 && r - b > 90 && g > 60 && g < r;
    const plain = decode((await renderReportChart(week)).png);
    const warned = decode((await renderReportChart({ ...week, unconfirmed: true })).png);
    expect(count(plain, caveatArea, 1, amber)).toBe(0);
    expect(count(warned, caveatArea, 1, amber)).toBeGreaterThan(100);

    const long = {
      ...week,
      title: `cNGN treasury — ${'a very long period name '.repeat(6)}`,
      cutShort: true,
    };
    expect(chartSvg(long)).toContain('…<tspan fill="#9a5b00">\u00a0· cut short</tspan>');
  });

  it('refuses a scale it cannot draw', async () => {
    await expect(renderReportChart({ ...week, scale: 0.5 })).rejects.toThrow(RangeError);
  });

  it('draws the naira sign from the shipped font, not a missing-glyph box', () => {
    const draw = (character: string) =>
      new Resvg(
        `<svg xmlns="http://www.w3.org/2000/svg" width="120" height="120"><rect width="120" height="120" fill="#fff"/><text x="10" y="100" font-family="Inter" font-size="90">${character}</text></svg>`,
        { font: { loadSystemFonts: false, fontFiles: CHART_FONT_FILES, defaultFontFamily: 'Inter' } },
      )
        .render()
        .asPng();
    const naira = draw('₦');
    expect(naira.equals(draw('\u{E000}'))).toBe(false); // a code point the font has no glyph for
    expect(naira.equals(draw('N'))).toBe(false);
    expect(count(decode(naira), { x: 0, y: 0, width: 120, height: 120 }, 1, ink)).toBeGreaterThan(500);
  });
});

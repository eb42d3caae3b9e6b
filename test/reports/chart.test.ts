import { Resvg } from '@resvg/resvg-js';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { CHART_FONT_FILES, renderReportChart } from '../../src/reports/chart.js';
import { CHART_HEIGHT, CHART_WIDTH, chartSvg } from '../../src/reports/chart-svg.js';
import { chartAlt } from '../../src/reports/chart-text.js';
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

/** A week of ₦300,000 inflows with one ₦4,012 outflow. */
const smallOutflowWeek: DayFigures[] = WEEK.map((d, i) => ({
  ...d,
  closing: String(300_000 * (i + 1) - (i >= 3 ? 4012 : 0)),
  inflow: '300000.00',
  outflow: i === 3 ? '4012.00' : '0.00',
}));

/** The rectangles of the SVG filled with `fill`, in CSS pixels. */
function rectsFilled(svg: string, fill: string): Area[] {
  const found = svg.matchAll(
    new RegExp(
      `<rect x="([\\d.]+)" y="([\\d.]+)" width="([\\d.]+)" height="([\\d.]+)" fill="${fill}"/>`,
      'g',
    ),
  );
  return [...found].map((m) => ({
    x: Number(m[1]),
    y: Number(m[2]),
    width: Number(m[3]),
    height: Number(m[4]),
  }));
}

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

  // The alt text is read from the figures alone (chartAlt): the tests of what it says below read it
  // without drawing a picture, which takes a worker thread and the renderer each time.
  it('says the opening balance, as the summary does, when it is given', () => {
    expect(chartAlt({ ...week, opening: '39500000.00' })).toContain(
      'opening balance ₦39,500,000.00, closing balance ₦44,845,500.75 on Sun 22 Nov; inflows',
    );
  });

  it('sums the days’ amounts exactly', () => {
    const cents = Array.from({ length: 10 }, (_, i) => ({
      day: `2026-11-${String(i + 10).padStart(2, '0')}`,
      closing: '0.30',
      inflow: '0.10',
      outflow: '0.20',
    }));
    expect(chartAlt({ ...week, days: cents })).toContain('inflows ₦1.00, outflows ₦2.00 over 10 days');
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

  it('says earlier days are shaded only when some are', async () => {
    // Complete from before the period's first day: every day is whole, none is shaded.
    const input: ChartInput = { ...week, completeFrom: '2026-11-10T09:00:00Z' };
    const svg = chartSvg(input);
    expect(svg).toContain('Figures complete from Tue 10 Nov 2026, 10:00 WAT');
    expect(svg).not.toContain('shaded');
    expect(chartSvg({ ...input, unconfirmed: true, cutShort: true })).not.toContain('shaded');
    const image = decode((await renderReportChart(input)).png);
    // The first day's slot, left of its point: shaded when that day is.
    const firstSlot = { x: 115, y: 130, width: 25, height: 160 };
    expect(count(image, firstSlot, 1, shaded)).toBe(0);
    const partial: ChartInput = { ...week, completeFrom: '2026-11-17T09:00:00Z' };
    expect(chartSvg(partial)).toContain('(earlier days shaded)');
    expect(count(decode((await renderReportChart(partial)).png), firstSlot, 1, shaded)).toBeGreaterThan(0);
  });

  it('draws a small outflow on a large scale as a bar a few pixels high, its figure beside it', async () => {
    const input: ChartInput = { ...week, days: smallOutflowWeek };
    const svg = chartSvg(input);
    const bar = rectsFilled(svg, '#d2434f');
    expect(bar).toHaveLength(1);
    const [drawn] = bar;
    if (!drawn) throw new Error('no outflow bar');
    expect(drawn.height).toBeGreaterThanOrEqual(4);
    const figure = /<text x="([\d.]+)" y="([\d.]+)"[^>]*fill="#d2434f"[^>]*>₦4,012<\/text>/.exec(svg);
    expect(figure).not.toBeNull();
    expect(Number(figure?.[1])).toBeGreaterThan(drawn.x + drawn.width);
    // Drawn, not only laid out: the bar's pixels are red, and so is the figure beside it.
    const scale = 2;
    const image = decode((await renderReportChart({ ...input, scale })).png);
    const inside = {
      x: Math.ceil(drawn.x),
      y: Math.ceil(drawn.y),
      width: Math.floor(drawn.width) - 1,
      height: 3,
    };
    expect(count(image, inside, scale, red)).toBe(inside.width * inside.height * scale * scale);
    const beside = { x: Math.ceil(drawn.x + drawn.width), y: Math.floor(drawn.y), width: 50, height: 14 };
    expect(count(image, beside, scale, red)).toBeGreaterThan(40);
    // A bar tall enough to read against the axis has no figure written beside it.
    expect(svg).not.toContain('fill="#2e9b5f" stroke="#ffffff"');
  });

  it('runs the flows axis no lower than its outflows need, and not below zero without any', () => {
    // A ₦4,012 outflow is given room for its bar and its figure, not a band down to −₦100,000.
    const small = chartSvg({ ...week, days: smallOutflowWeek });
    expect(small).toContain('>₦300,000</text>');
    expect(small).not.toContain('−₦');
    const positive = chartSvg({
      ...week,
      days: smallOutflowWeek.map((d) => ({ ...d, outflow: '0.00' })),
    });
    expect(positive).not.toContain('−₦');
    // Large outflows keep their own ticks.
    expect(chartSvg(week)).toContain('−₦');
  });

  it('adds the environment to a title that does not name it', () => {
    const alt = chartAlt({ ...week, title: 'cNGN treasury — November 2026', environment: 'live' });
    expect(alt.startsWith('cNGN treasury — November 2026 (live), ')).toBe(true);
  });

  it('cuts a title too long for the picture, and keeps the whole title in the alt text', () => {
    const title = `cNGN treasury — ${'a very long period name '.repeat(6)}`;
    const input: ChartInput = { ...week, title };
    expect(chartSvg(input)).toContain('…');
    expect(chartSvg(week)).not.toContain('…');
    expect(chartAlt(input).startsWith(`${title} (sandbox), `)).toBe(true);
  });

  it('draws a title with markup characters as text', async () => {
    const input: ChartInput = { ...week, title: 'Treasury <b>&amp; "co" (sandbox)' };
    expect(chartSvg(input)).toContain('Treasury &#60;b&#62;&#38;amp; &#34;co&#34; (sandbox)');
    expect(decode((await renderReportChart(input)).png).width).toBe(CHART_WIDTH);
  });

  it('says in its title and alt text when its figures are unconfirmed or were cut short', () => {
    expect(chartAlt({ ...week, unconfirmed: true })).toMatch(
      /^cNGN treasury — last 7 days \(sandbox\) · unconfirmed\. Mon 16 Nov to Sun 22 Nov 2026: .* Unconfirmed: money moved while the report was read, so the figures may be off by the latest movements\.$/,
    );
    const svg = chartSvg({ ...week, unconfirmed: true });
    expect(svg).toContain(
      'cNGN treasury — last 7 days (sandbox)<tspan fill="#9a5b00">\u00a0· unconfirmed</tspan>',
    );
    expect(svg).toContain('Unconfirmed: money moved while this was read');

    const both = { ...week, unconfirmed: true, cutShort: true, completeFrom: '2026-11-17T09:00:00Z' };
    expect(chartAlt(both)).toMatch(
      /^cNGN treasury — last 7 days \(sandbox\) · unconfirmed, cut short\. .* Cut short: the read of the service's transactions stopped to keep within its request budget\.$/,
    );
    expect(chartSvg(both)).toContain('· unconfirmed, cut short</tspan>');
    expect(chartSvg(both)).toContain(
      'Money moved while read, figures may be off  ·  Complete from Tue 17 Nov 2026, 10:00 WAT, read cut short (earlier days shaded)',
    );
    expect(chartSvg({ ...week, cutShort: true })).toContain('· cut short</tspan>');

    expect(chartAlt({ ...week, unreadable: 2 })).toMatch(
      /^cNGN treasury — last 7 days \(sandbox\) · 2 amounts not counted\. .* Not counted: 2 transactions' amounts could not be read; the report's notes name them\.$/,
    );
    expect(chartSvg({ ...week, unreadable: 1 })).toContain('· 1 amount not counted</tspan>');

    // A confirmed chart says none of it.
    expect(chartAlt(week)).not.toMatch(/unconfirmed|cut short|not counted/i);
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

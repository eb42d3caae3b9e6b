// The report chart laid out as SVG, in CSS pixels: the title, the period's figures, the closing balance
// as a line on top, each day's inflow (up) and outflow (down) as bars beneath it, one Lagos day per
// slot on a shared date axis. Amounts stay decimal strings until here; only y positions are floats.
// Loaded with the renderer on a chart's first use (chart.ts), with d3-scale for the axes' round ticks.
import { type ScaleLinear, scaleLinear } from 'd3-scale';
import { naira } from '../format/display.js';
import { Money } from '../format/money.js';
import {
  chartTotals,
  completeFromText,
  dayLabel,
  figuresLine,
  incompleteDays,
  readCaveat,
  titleWithEnvironment,
} from './chart-text.js';
import type { ChartInput, DayFigures } from './types.js';

export const CHART_WIDTH = 900;
export const CHART_HEIGHT = 520;
/** The family name of the font files shipped in assets/fonts (the renderer loads no other). */
export const CHART_FONT = 'Inter';

const COLOURS = {
  text: '#1b2430',
  muted: '#5b6573',
  grid: '#e4e8ee',
  axis: '#9aa3af',
  line: '#2160c4',
  area: '#2160c4',
  inflow: '#2e9b5f',
  outflow: '#d2434f',
  incomplete: '#f2f3f5',
  warning: '#9a5b00',
  environment: { live: '#1e8e4e', test: '#b07800', sandbox: '#6b4fbb' },
} as const;

const PAD = 24;
const TOP = { caption: 102, from: 122, to: 298 };
const BOTTOM = { caption: 334, from: 352, to: 468 };
const X_LABELS = 488;
/** About how many ticks each y axis has (d3 picks round values near it). */
const BALANCE_TICKS = 4;
const FLOW_TICKS = 4;
/** Room for a date label on the x axis, so that labels never touch. */
const X_LABEL_ROOM = 78;
/** The room a side of the flows' panel gets when its bars are small beside the other side's. */
const SMALL_SIDE_PX = 16;
/** The least height of a bar: a movement too small for its scale still shows. */
const MIN_BAR_PX = 4;
/** A bar shorter than this has its figure written beside it: its height says too little. */
const SMALL_BAR_PX = 12;
/** The size of the figure written beside a small bar. */
const FIGURE_SIZE = 10.5;

// Advance widths of Inter's glyphs in em, to size the margins without a text-measuring canvas; a
// little wide on purpose, so an estimate errs towards room.
const ADVANCE: Record<string, number> = {
  ',': 0.3,
  '.': 0.3,
  '₦': 0.78,
  '−': 0.66,
  '-': 0.46,
  ' ': 0.28,
  '1': 0.45,
};
const DIGIT = 0.64;
const LETTER = 0.6;

function textWidth(text: string, size: number): number {
  let em = 0;
  for (const ch of text) em += ADVANCE[ch] ?? (/\d/.test(ch) ? DIGIT : LETTER);
  return em * size;
}

/** The text, cut with an ellipsis where it would be wider than `width`. */
function fitted(content: string, size: number, width: number): string {
  if (textWidth(content, size) <= width) return content;
  const characters = [...content];
  while (characters.length > 1 && textWidth(`${characters.join('')}…`, size) > width) characters.pop();
  return `${characters.join('').trimEnd()}…`;
}

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

interface TextOptions {
  size: number;
  weight?: 400 | 600;
  fill?: string;
  anchor?: 'start' | 'middle' | 'end';
}

function text(x: number, y: number, content: string, o: TextOptions): string {
  return (
    `<text x="${r(x)}" y="${r(y)}" font-size="${o.size}" font-weight="${o.weight ?? 400}"` +
    ` fill="${o.fill ?? COLOURS.text}" text-anchor="${o.anchor ?? 'start'}">${escapeXml(content)}</text>`
  );
}

const r = (n: number) => Math.round(n * 100) / 100;

function number(amount: string): number {
  try {
    return Number(Money.parseDecimal(amount).toString());
  } catch {
    return 0;
  }
}

/** `₦1,250,000` for a tick (no kobo when every tick is whole), `−₦250,000` below zero. */
function tickLabels(ticks: readonly number[]): string[] {
  const whole = ticks.every((t) => Number.isInteger(Math.round(t * 100) / 100));
  return ticks.map((t) => {
    const label = naira(t.toFixed(2)).replace('-', '−');
    return whole ? label.replace(/\.00$/, '') : label;
  });
}

/** The balance's axis: the line's range with a little air, rounded to ticks. */
function balanceScale(values: readonly number[]): ScaleLinear<number, number> {
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  const spread = hi - lo;
  const air = spread > 0 ? spread * 0.12 : Math.max(Math.abs(hi) * 0.05, 1);
  lo -= air;
  hi += air;
  // A balance that never went below zero is not drawn as if it did.
  if (Math.min(...values) >= 0 && lo < 0) lo = 0;
  return scaleLinear().domain([lo, hi]).range([TOP.to, TOP.from]).nice(BALANCE_TICKS);
}

/**
 * The flows' axis: inflows up, outflows down, rounded to ticks. A side whose bars would not reach half
 * way to its first tick (a ₦4,012 outflow on a ₦300,000 scale) gets only the room its bars and their
 * figures need, not an empty band down to a tick nothing comes near.
 */
function flowScale(days: readonly DayFigures[]): ScaleLinear<number, number> {
  const maxIn = Math.max(0, ...days.map((d) => number(d.inflow)));
  const maxOut = Math.max(0, ...days.map((d) => number(d.outflow)));
  const range = [BOTTOM.to, BOTTOM.from];
  if (maxIn === 0 && maxOut === 0) return scaleLinear().domain([-1, 1]).range(range).nice(FLOW_TICKS);
  const rounded = scaleLinear().domain([-maxOut, maxIn]).range(range).nice(FLOW_TICKS);
  const [first = 0, second = Number.POSITIVE_INFINITY] = rounded.ticks(FLOW_TICKS);
  const step = second - first;
  let [lo = -maxOut, hi = maxIn] = rounded.domain();
  // The small side's share of the panel, in the other side's units.
  const band = (other: number) => (other * SMALL_SIDE_PX) / (BOTTOM.to - BOTTOM.from - SMALL_SIDE_PX);
  if (maxOut > 0 && maxOut < step / 2) lo = -Math.max(maxOut * 1.1, band(hi));
  else if (maxIn > 0 && maxIn < step / 2) hi = Math.max(maxIn * 1.1, band(-lo));
  return scaleLinear().domain([lo, hi]).range(range);
}

/** Every how many days a date is written, so labels never overlap. */
function labelEvery(count: number, plotWidth: number): number {
  const fits = Math.max(1, Math.floor(plotWidth / X_LABEL_ROOM));
  return Math.max(1, Math.ceil(count / fits));
}

function yAxis(
  scale: ScaleLinear<number, number>,
  count: number,
  left: number,
  right: number,
  labelsShown: boolean,
): string[] {
  const ticks = scale.ticks(count);
  const labels = tickLabels(ticks);
  return ticks.flatMap((t, i) => {
    const y = scale(t);
    const line = `<line x1="${r(left)}" x2="${r(right)}" y1="${r(y)}" y2="${r(y)}" stroke="${t === 0 ? COLOURS.axis : COLOURS.grid}" stroke-width="1"/>`;
    const label = labelsShown
      ? text(left - 8, y + 4, labels[i] ?? '', { size: 11.5, fill: COLOURS.muted, anchor: 'end' })
      : '';
    return [line, label];
  });
}

function widestTick(scale: ScaleLinear<number, number>, count: number): number {
  return Math.max(0, ...tickLabels(scale.ticks(count)).map((l) => textWidth(l, 11.5)));
}

function environmentBadge(input: ChartInput): { x: number; svg: string } {
  const label = input.environment.toUpperCase();
  const width = textWidth(label, 11) + 18;
  const x = CHART_WIDTH - PAD - width;
  const fill = COLOURS.environment[input.environment];
  return {
    x,
    svg:
      `<rect x="${r(x)}" y="18" width="${r(width)}" height="22" rx="11" fill="${fill}"/>` +
      text(x + width / 2, 33, label, { size: 11, weight: 600, fill: '#ffffff', anchor: 'middle' }),
  };
}

function legend(x: number, y: number): string {
  const swatch = (at: number, fill: string, label: string) =>
    `<rect x="${r(at)}" y="${y - 9}" width="10" height="10" rx="2" fill="${fill}"/>` +
    text(at + 15, y, label, { size: 12, fill: COLOURS.muted });
  return swatch(x, COLOURS.inflow, 'Inflows') + swatch(x + 80, COLOURS.outflow, 'Outflows');
}

/**
 * The title, cut to `width` where too long; its caveat (unconfirmed, cut short) is never cut, and is
 * drawn in the warning colour after it.
 */
function title(input: ChartInput, width: number): string {
  const caveat = readCaveat(input);
  // A no-break space: the renderer drops a plain one at the start of the tspan.
  const suffix = caveat ? `\u00a0· ${caveat}` : '';
  const main = fitted(titleWithEnvironment(input), 18, width - textWidth(suffix, 18));
  const warned = caveat ? `<tspan fill="${COLOURS.warning}">${escapeXml(suffix)}</tspan>` : '';
  return `<text x="${PAD}" y="35" font-size="18" font-weight="600" fill="${COLOURS.text}">${escapeXml(main)}${warned}</text>`;
}

/**
 * The line under the figures: why they rest on less than a whole read at one moment, if they do. With
 * two reasons, each is said shorter, so both fit on the line.
 */
function readNotes(input: ChartInput, shaded: boolean): string | undefined {
  const complete = input.completeFrom ? completeFromText(input.completeFrom) : undefined;
  const shading = shaded ? ' (earlier days shaded)' : '';
  const budget = complete
    ? `${complete}${input.cutShort ? ', read cut short by the request budget' : ''}${shading}`
    : input.cutShort
      ? 'Cut short by the request budget: outcomes of older pending movements may be out of date'
      : undefined;
  if (!input.unconfirmed) return budget;
  if (!budget)
    return 'Unconfirmed: money moved while this was read, so the figures may be off by the latest movements';
  const shorter = complete
    ? `${complete.replace('Figures complete', 'Complete')}${input.cutShort ? ', read cut short' : ''}${shading}`
    : 'read cut short by the request budget';
  return `Money moved while read, figures may be off  ·  ${shorter}`;
}

/** The chart as an SVG document of CHART_WIDTH × CHART_HEIGHT CSS pixels. */
export function chartSvg(input: ChartInput): string {
  const days = input.days;
  const closings = days.map((d) => number(d.closing));
  const balance = balanceScale(closings.length > 0 ? closings : [0]);
  const flows = flowScale(days);
  const totals = chartTotals(days);
  const hasDays = days.length > 0;

  const left = PAD + Math.max(widestTick(balance, BALANCE_TICKS), widestTick(flows, FLOW_TICKS), 40) + 10;
  const right = CHART_WIDTH - PAD - 4;
  const slot = hasDays ? (right - left) / days.length : right - left;
  const centre = (i: number) => left + slot * (i + 0.5);
  const out: string[] = [];

  out.push(`<rect width="${CHART_WIDTH}" height="${CHART_HEIGHT}" fill="#ffffff"/>`);
  const badge = environmentBadge(input);
  out.push(title(input, badge.x - PAD - 16));
  out.push(badge.svg);
  out.push(text(PAD, 60, figuresLine(days, input.opening), { size: 13, fill: COLOURS.muted }));
  const partial = incompleteDays(days, input.completeFrom);
  const notes = readNotes(input, partial > 0);
  if (notes) {
    out.push(
      text(PAD, 79, fitted(notes, 12.5, CHART_WIDTH - 2 * PAD), { size: 12.5, fill: COLOURS.warning }),
    );
  }

  if (partial > 0) {
    const width = slot * partial;
    for (const panel of [TOP, BOTTOM]) {
      out.push(
        `<rect x="${r(left)}" y="${panel.from}" width="${r(width)}" height="${panel.to - panel.from}" fill="${COLOURS.incomplete}"/>`,
      );
    }
  }

  out.push(text(PAD, TOP.caption, 'Closing balance', { size: 12.5, weight: 600 }));
  out.push(...yAxis(balance, BALANCE_TICKS, left, right, hasDays));
  out.push(text(PAD, BOTTOM.caption, 'Daily inflows and outflows', { size: 12.5, weight: 600 }));
  out.push(legend(PAD + textWidth('Daily inflows and outflows', 12.5) + 20, BOTTOM.caption));
  out.push(...yAxis(flows, FLOW_TICKS, left, right, hasDays && totals.moved));
  if (!hasDays || !totals.moved) {
    out.push(zeroLine(flows, left, right));
  }

  if (hasDays) {
    out.push(...bars(days, flows, slot, centre));
    out.push(...balanceLine(days, closings, balance, centre));
    out.push(...xAxis(days, centre, left, right));
  }
  if (!hasDays) {
    out.push(note((left + right) / 2, (TOP.from + TOP.to) / 2, 'No figures for this period'));
  } else if (!totals.moved) {
    out.push(
      note((left + right) / 2, (BOTTOM.from + BOTTOM.to) / 2, 'No inflows or outflows in this period'),
    );
  }

  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${CHART_WIDTH}" height="${CHART_HEIGHT}"` +
    ` viewBox="0 0 ${CHART_WIDTH} ${CHART_HEIGHT}" font-family="${CHART_FONT}">${out.join('')}</svg>`
  );
}

function zeroLine(flows: ScaleLinear<number, number>, left: number, right: number): string {
  const y = flows(0);
  return `<line x1="${r(left)}" x2="${r(right)}" y1="${r(y)}" y2="${r(y)}" stroke="${COLOURS.axis}" stroke-width="1"/>`;
}

function note(x: number, y: number, content: string): string {
  const width = textWidth(content, 13) + 24;
  return (
    `<rect x="${r(x - width / 2)}" y="${r(y - 16)}" width="${r(width)}" height="28" rx="6" fill="#ffffff" stroke="${COLOURS.grid}"/>` +
    text(x, y + 3, content, { size: 13, fill: COLOURS.muted, anchor: 'middle' })
  );
}

/** Where a day's bars stand: their left edge and width, and the flows' scale with its zero. */
interface BarPlace {
  x: number;
  width: number;
  zero: number;
  flows: ScaleLinear<number, number>;
}

type Side = 'in' | 'out';

function bars(
  days: readonly DayFigures[],
  flows: ScaleLinear<number, number>,
  slot: number,
  centre: (i: number) => number,
): string[] {
  const width = Math.min(slot * 0.56, 44);
  const zero = flows(0);
  const rects: string[] = [];
  const figures: string[] = [];
  // Where the last figure written on each side ends, so that figures never overlap.
  const written = { in: Number.NEGATIVE_INFINITY, out: Number.NEGATIVE_INFINITY };
  days.forEach((d, i) => {
    const place = { x: centre(i) - width / 2, width, zero, flows };
    for (const side of ['in', 'out'] as const) {
      const amount = side === 'in' ? d.inflow : d.outflow;
      const drawn = bar(side, amount, place);
      if (!drawn) continue;
      rects.push(drawn.rect);
      const figure = drawn.height < SMALL_BAR_PX ? smallBarFigure(side, amount, place, written) : undefined;
      if (figure) figures.push(figure);
    }
  });
  // Figures over the bars: one written across a neighbour's bar stays legible on its white edge.
  return [...rects, ...figures];
}

const fillOf = (side: Side) => (side === 'in' ? COLOURS.inflow : COLOURS.outflow);

/** One side's bar (at least MIN_BAR_PX high), and its height on the scale; none for nothing moved. */
function bar(side: Side, amount: string, place: BarPlace): { rect: string; height: number } | undefined {
  const value = number(amount);
  if (value <= 0) return undefined;
  const { x, width, zero, flows } = place;
  const height = Math.abs(zero - flows(side === 'in' ? value : -value));
  const drawn = Math.max(height, MIN_BAR_PX);
  const y = side === 'in' ? zero - drawn : zero;
  const rect = `<rect x="${r(x)}" y="${r(y)}" width="${r(width)}" height="${r(drawn)}" fill="${fillOf(side)}"/>`;
  return { rect, height };
}

/** The exact figure beside a bar too small to read, unless it would run into the last one written. */
function smallBarFigure(
  side: Side,
  amount: string,
  place: BarPlace,
  written: Record<Side, number>,
): string | undefined {
  const { x, width, zero } = place;
  const label = barFigure(amount);
  const size = textWidth(label, FIGURE_SIZE);
  // Beside the bar on its right, or on its left at the picture's right edge.
  const after = x + width + 3 + size <= CHART_WIDTH - PAD;
  const from = after ? x + width + 3 : x - 3 - size;
  if (from < written[side] + 4) return undefined;
  written[side] = from + size;
  const baseline = side === 'in' ? zero - 3 : zero + FIGURE_SIZE;
  return (
    `<text x="${r(from)}" y="${r(baseline)}" font-size="${FIGURE_SIZE}" font-weight="600" fill="${fillOf(side)}"` +
    ` stroke="#ffffff" stroke-width="3" stroke-linejoin="round" paint-order="stroke">${escapeXml(label)}</text>`
  );
}

/** `₦4,012` (the kobo when there are any): the exact figure of a bar too small to read. */
function barFigure(amount: string): string {
  return naira(amount).replace(/\.00$/, '');
}

function balanceLine(
  days: readonly DayFigures[],
  closings: readonly number[],
  balance: ScaleLinear<number, number>,
  centre: (i: number) => number,
): string[] {
  const points = closings.map((v, i) => [centre(i), balance(v)] as const);
  const path = points.map(([x, y], i) => `${i === 0 ? 'M' : 'L'}${r(x)} ${r(y)}`).join(' ');
  const first = points[0];
  const last = points.at(-1);
  const out: string[] = [];
  if (first && last && points.length > 1) {
    const base = balance.range()[0] ?? TOP.to;
    out.push(
      `<path d="${path} L${r(last[0])} ${base} L${r(first[0])} ${base} Z" fill="${COLOURS.area}" fill-opacity="0.07"/>`,
    );
  }
  out.push(
    `<path d="${path}" fill="none" stroke="${COLOURS.line}" stroke-width="2.25" stroke-linejoin="round" stroke-linecap="round"/>`,
  );
  const radius = days.length > 20 ? 2.5 : 3.75;
  for (const [x, y] of points) {
    out.push(
      `<circle cx="${r(x)}" cy="${r(y)}" r="${radius}" fill="${COLOURS.line}" stroke="#ffffff" stroke-width="1.5"/>`,
    );
  }
  const lastDay = days.at(-1);
  if (last && lastDay) {
    // The latest balance, written beside its point: the figure a reader looks for first.
    const label = naira(lastDay.closing);
    const above = last[1] - 10 > TOP.from + 4;
    out.push(
      text(last[0], above ? last[1] - 10 : last[1] + 20, label, {
        size: 12,
        weight: 600,
        fill: COLOURS.line,
        anchor: points.length === 1 ? 'middle' : 'end',
      }),
    );
  }
  return out;
}

function xAxis(
  days: readonly DayFigures[],
  centre: (i: number) => number,
  left: number,
  right: number,
): string[] {
  const every = labelEvery(days.length, right - left);
  const out = [
    `<line x1="${r(left)}" x2="${r(right)}" y1="${BOTTOM.to}" y2="${BOTTOM.to}" stroke="${COLOURS.axis}" stroke-width="1"/>`,
  ];
  // Counted from the last day, so the latest day is always labelled.
  const last = days.length - 1;
  days.forEach((d, i) => {
    const x = centre(i);
    const labelled = (last - i) % every === 0;
    out.push(
      `<line x1="${r(x)}" x2="${r(x)}" y1="${BOTTOM.to}" y2="${BOTTOM.to + (labelled ? 5 : 3)}" stroke="${COLOURS.axis}" stroke-width="1"/>`,
    );
    if (!labelled) return;
    const label = dayLabel(d.day);
    // Kept inside the picture: the latest day's label sits under the right edge of a long period.
    const half = textWidth(label, 11.5) / 2;
    const at = Math.min(x, CHART_WIDTH - 6 - half);
    out.push(text(at, X_LABELS, label, { size: 11.5, fill: COLOURS.muted, anchor: 'middle' }));
  });
  return out;
}

// The report chart as a PNG: laid out as SVG (chart-svg.ts), drawn by resvg with the font shipped in
// assets/fonts only, so the picture is the same on every machine and no browser is needed. The
// layout and the renderer are loaded on the first chart, so a bot that draws none holds neither
// (docs/decisions/charts-server-side.md).
import { fileURLToPath } from 'node:url';
import { chartAlt } from './chart-text.js';
import type { ChartImage, ChartInput } from './types.js';

const FONT_DIR = new URL('../../assets/fonts/', import.meta.url);
/** The font files the chart is drawn with; the renderer is given these and never the system's. */
export const CHART_FONT_FILES = ['Inter-Regular.ttf', 'Inter-SemiBold.ttf'].map((name) =>
  fileURLToPath(new URL(name, FONT_DIR)),
);

/** Device pixels per CSS pixel: Slack shows a 2× picture sharp on a dense screen. */
const SCALES = [1, 2, 3] as const;

export async function renderReportChart(input: ChartInput): Promise<ChartImage> {
  const scale = input.scale ?? 1;
  if (!SCALES.includes(scale as (typeof SCALES)[number])) {
    throw new RangeError(`chart scale ${scale} is not one of ${SCALES.join(', ')}`);
  }
  const [{ chartSvg, CHART_FONT }, { Resvg }] = await Promise.all([
    import('./chart-svg.js'),
    import('@resvg/resvg-js'),
  ]);
  // Drawn on the main thread: resvg's asynchronous render leaves more memory held by the thread
  // pool's malloc arena, and encodes the PNG here all the same (the decision record has figures).
  const image = new Resvg(chartSvg(input), {
    fitTo: { mode: 'zoom', value: scale },
    font: { loadSystemFonts: false, fontFiles: CHART_FONT_FILES, defaultFontFamily: CHART_FONT },
  }).render();
  const png = image.asPng();
  return {
    png: new Uint8Array(png.buffer, png.byteOffset, png.byteLength),
    width: image.width,
    height: image.height,
    alt: chartAlt(input),
  };
}

// The report chart as a PNG: laid out as SVG (chart-svg.ts), drawn by resvg with the font shipped in
// assets/fonts only, so the picture is the same on every machine and no browser is needed. The
// layout is loaded on the first chart, and the drawing is done off the main thread, in a worker
// thread of its own that loads the renderer and ends with the chart: a render of a month at 2× holds
// a loaded machine's CPU for hundreds of ms, and the bot's event loop must not wait on it
// (docs/decisions/charts-server-side.md).
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { chartAlt } from './chart-text.js';
import type { ChartImage, ChartInput } from './types.js';

const FONT_DIR = new URL('../../assets/fonts/', import.meta.url);
/** The font files the chart is drawn with; the renderer is given these and never the system's. */
export const CHART_FONT_FILES = ['Inter-Regular.ttf', 'Inter-SemiBold.ttf'].map((name) =>
  fileURLToPath(new URL(name, FONT_DIR)),
);

/** Device pixels per CSS pixel: Slack shows a 2× picture sharp on a dense screen. */
const SCALES = [1, 2, 3] as const;

/**
 * The worker's code, as text: the bundle has no file of its own for it. It draws the SVG it is given
 * and answers the PNG, its bytes moved (not copied) back to the bot's thread.
 */
const DRAW = `
const { parentPort, workerData } = require('node:worker_threads');
const { Resvg } = require(workerData.renderer);
const { svg, options } = workerData;
const image = new Resvg(svg, options).render();
const encoded = image.asPng();
const png = new Uint8Array(encoded.byteLength);
png.set(encoded);
parentPort.postMessage({ png, width: image.width, height: image.height }, [png.buffer]);
`;

interface Drawn {
  png: Uint8Array;
  width: number;
  height: number;
}

/** Where resvg is, for the worker to load it from (the bundle leaves it outside, as native code). */
const rendererPath = () => createRequire(import.meta.url).resolve('@resvg/resvg-js');

/** Draws `svg` in a worker thread; rejects with the worker's error or `signal`'s reason. */
function drawOffThread(svg: string, options: object, signal?: AbortSignal): Promise<Drawn> {
  signal?.throwIfAborted();
  const worker = new Worker(DRAW, { eval: true, workerData: { svg, options, renderer: rendererPath() } });
  return new Promise<Drawn>((resolve, reject) => {
    const abort = () => {
      reject(signal?.reason);
      void worker.terminate();
    };
    signal?.addEventListener('abort', abort, { once: true });
    const settle = () => signal?.removeEventListener('abort', abort);
    worker.once('message', (drawn: Drawn) => {
      settle();
      resolve(drawn);
    });
    worker.once('error', (error) => {
      settle();
      reject(error);
    });
    worker.once('exit', (code) => {
      settle();
      reject(new Error(`the chart's worker ended (${code}) without a chart`));
    });
  });
}

export async function renderReportChart(input: ChartInput, signal?: AbortSignal): Promise<ChartImage> {
  const scale = input.scale ?? 1;
  if (!SCALES.includes(scale as (typeof SCALES)[number])) {
    throw new RangeError(`chart scale ${scale} is not one of ${SCALES.join(', ')}`);
  }
  const { chartSvg, CHART_FONT } = await import('./chart-svg.js');
  const drawn = await drawOffThread(
    chartSvg(input),
    {
      fitTo: { mode: 'zoom', value: scale },
      font: { loadSystemFonts: false, fontFiles: CHART_FONT_FILES, defaultFontFamily: CHART_FONT },
    },
    signal,
  );
  return { ...drawn, alt: chartAlt(input) };
}

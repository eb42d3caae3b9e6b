// The report chart (src/reports/chart.ts): how long a 30-day chart takes to draw at 2× (Slack's
// picture) and 1×, and how much memory the first chart adds to a bot that has drawn none, loading of
// the layout and the renderer included. Measured on the production build of the chart, in a process
// of its own with npm start's node flags (bench/chart-worker.mjs), after one render to warm up.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from '../scripts/build.mjs';
import { daysOf } from '../test/support/report-days.js';
import { productionLabel, productionNode } from './production.js';
import { emitResult } from './results.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RENDERS = Number(process.env.BENCH_CHART_RENDERS ?? 20);
const TIME_TARGET_MS = 500;
const MEMORY_TARGET_MB = 30;

interface WorkerFigures {
  firstMs: number;
  pngBytes: number;
  rssDeltaMb: number;
  heapDeltaMb: number;
  rssKeptMb: number;
  rssAfterRendersMb: number;
  twice: { median: number; p95: number };
  once: { median: number; p95: number };
  loopDelayMaxMs: number;
}

const outfile = 'bench-results/chart/chart.js';
mkdirSync(join(ROOT, 'bench-results', 'chart'), { recursive: true });
await build({ entry: 'src/reports/chart.ts', outfile });

const input = { title: 'cNGN treasury — last 30 days', environment: 'live', days: daysOf(30) };
const node = productionNode();
const child = spawn(
  process.execPath,
  [
    ...node.flags,
    '--expose-gc',
    join(ROOT, 'bench/chart-worker.mjs'),
    pathToFileURL(join(ROOT, outfile)).href,
    JSON.stringify(input),
    String(RENDERS),
  ],
  { cwd: ROOT, env: { ...process.env, ...node.env }, stdio: ['ignore', 'pipe', 'inherit'] },
);
let output = '';
child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
  output += chunk;
});
const [code] = (await once(child, 'exit')) as [number | null];
if (code !== 0) {
  console.error(`the chart worker exited with ${code}`);
  process.exit(1);
}
const f = JSON.parse(output.trim().split('\n').at(-1) ?? '{}') as WorkerFigures;

console.log(`30-day chart, ${RENDERS} renders per scale after one to warm up, ${productionLabel(node)}`);
console.log(
  `first render ${f.firstMs.toFixed(0)} ms (loading included), PNG ${(f.pngBytes / 1024).toFixed(0)} KiB at 2×`,
);
console.log(`2×: median ${f.twice.median.toFixed(1)} ms, p95 ${f.twice.p95.toFixed(1)} ms`);
console.log(`1×: median ${f.once.median.toFixed(1)} ms, p95 ${f.once.p95.toFixed(1)} ms`);
console.log(`longest hold of the event loop while drawing at 2×: ${f.loopDelayMaxMs.toFixed(1)} ms`);
console.log(
  `first render adds RSS ${f.rssDeltaMb.toFixed(1)} MB (heap ${f.heapDeltaMb.toFixed(1)} MB); ` +
    `${f.rssKeptMb.toFixed(1)} MB kept after a collection; ${f.rssAfterRendersMb.toFixed(1)} MB after ${RENDERS} more at 2×`,
);

emitResult({
  id: 'chart.render.p50',
  figure: 'report chart render, 30 days at 2× (median)',
  value: f.twice.median,
  unit: 'ms',
  target: { op: '<', value: TIME_TARGET_MS },
  reference: `p95 ${f.twice.p95.toFixed(1)} ms; at 1× median ${f.once.median.toFixed(1)} ms`,
});
emitResult({
  id: 'chart.render.p95',
  figure: 'report chart render, 30 days at 2× (p95)',
  value: f.twice.p95,
  unit: 'ms',
  target: { op: '<', value: TIME_TARGET_MS },
  reference: `first render, loading included, ${f.firstMs.toFixed(0)} ms`,
});
emitResult({
  id: 'chart.render.loop-hold',
  figure: 'report chart: longest hold of the event loop while drawing (reference)',
  value: f.loopDelayMaxMs,
  unit: 'ms',
  reference: 'a chart is drawn in a worker thread; the hold is the layout and the worker’s start',
});
emitResult({
  id: 'chart.first.rss',
  figure: 'RSS added by the first chart (renderer loaded)',
  value: f.rssDeltaMb,
  unit: 'MB',
  target: { op: '<', value: MEMORY_TARGET_MB },
  reference: `heap ${f.heapDeltaMb.toFixed(1)} MB; kept after a collection ${f.rssKeptMb.toFixed(1)} MB`,
});

// The chart bench's measuring process (bench/chart.ts starts it with npm start's node flags, on the
// production build of src/reports/chart.ts): the memory the first chart adds, loading of the layout
// and the renderer included, then the time of each later render and the longest hold of the event
// loop. Prints one JSON line.
// Plain JavaScript, so no TypeScript loader's memory or compilation is counted.
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';

const [chartUrl = '', inputJson = '', rendersText = '20'] = process.argv.slice(2);
const input = JSON.parse(inputJson);
const renders = Number(rendersText);
const MB = 1024 * 1024;

/** A collection, then a turn of the event loop for the finalisers of native objects to run. */
async function settle() {
  globalThis.gc?.();
  await new Promise((resolve) => setTimeout(resolve, 20));
  globalThis.gc?.();
}

// What a bot that has drawn no chart holds: the module it imports statically.
const { renderReportChart } = await import(chartUrl);
await settle();
const before = process.memoryUsage();

let started = performance.now();
const first = await renderReportChart({ ...input, scale: 2 });
const firstMs = performance.now() - started;
const after = process.memoryUsage();
await settle();
const kept = process.memoryUsage();

async function timed(scale) {
  const times = [];
  for (let i = 0; i < renders; i++) {
    started = performance.now();
    await renderReportChart({ ...input, scale });
    times.push(performance.now() - started);
    // A turn of the event loop between renders, so its delay monitor sees each render's hold.
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  times.sort((a, b) => a - b);
  const at = (q) => times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)] ?? Number.NaN;
  return { median: at(0.5), p95: at(0.95) };
}

// How long the event loop is held at a time while charts are drawn (Slack's acks wait that long).
const delay = monitorEventLoopDelay({ resolution: 1 });
delay.enable();
const twice = await timed(2);
delay.disable();
const rssAfterRenders = process.memoryUsage().rss;
const once = await timed(1);

process.stdout.write(
  `${JSON.stringify({
    firstMs,
    pngBytes: first.png.byteLength,
    rssDeltaMb: (after.rss - before.rss) / MB,
    heapDeltaMb: (after.heapUsed - before.heapUsed) / MB,
    rssKeptMb: (kept.rss - before.rss) / MB,
    rssAfterRendersMb: (rssAfterRenders - before.rss) / MB,
    twice,
    once,
    loopDelayMaxMs: delay.max / 1e6,
  })}\n`,
);

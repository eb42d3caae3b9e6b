// The bot for the month-report bench, in its own process: the whole bot against the service of
// bench/month-report-sandbox.ts (its details as argv[2], JSON) and the fake Slack at argv[3], with the
// service's budget of 20 requests a minute. It watches its own event loop and memory: a line `mark`
// on stdin starts a measure (RSS now, the loop's delays forgotten); `stats` prints one JSON line
// {rssBeforeMb, rssPeakMb, loopMaxMs} of what happened since.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { silentLogger } from '../src/log.js';
import type { Sandbox } from '../src/sandbox/index.js';
import { createStore } from '../src/store/index.js';
import { startBot } from '../src/wiring/bot.js';
import { testConfig } from '../test/support/harness.js';

const MB = 1024 * 1024;
const service = JSON.parse(process.argv[2] ?? '{}') as Pick<
  Sandbox,
  'baseUrl' | 'apiKey' | 'encryptionKey' | 'privateKey'
>;
const slackApiUrl = process.argv[3] ?? '';
// Only what the wiring reads of a sandbox: where it is and its keys; it runs in another process.
const sandbox = {
  ...service,
  setWebhookUrl: () => undefined,
  stop: async () => undefined,
} as unknown as Sandbox;
const store = await createStore('memory://');
const bot = await startBot({
  config: testConfig(slackApiUrl, { rateLimit: { limit: 20, windowSeconds: 60 } }),
  logger: silentLogger,
  store,
  sandbox,
});

const loop = monitorEventLoopDelay({ resolution: 10 });
loop.enable();
let rssBefore = process.memoryUsage.rss();
let rssPeak = rssBefore;
setInterval(() => {
  rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
}, 20).unref();

// With a CPU profile asked for: each late turn of a 10 ms timer, as [start, end] in the profile's
// clock (µs, monotonic), so the profile tells what ran in it. Printed to stderr at `stats`.
const late: Array<[number, number]> = [];
if (process.env.BENCH_MONTH_HOLDS) {
  let last = process.hrtime.bigint();
  setInterval(() => {
    const now = process.hrtime.bigint();
    if (now - last > 60_000_000n) late.push([Number(last / 1000n), Number(now / 1000n)]);
    last = now;
  }, 10).unref();
}

createInterface({ input: process.stdin }).on('line', (line) => {
  if (line === 'mark') {
    loop.reset();
    rssBefore = process.memoryUsage.rss();
    rssPeak = rssBefore;
  } else if (line === 'stats') {
    const stats = { rssBeforeMb: rssBefore / MB, rssPeakMb: rssPeak / MB, loopMaxMs: loop.max / 1e6 };
    process.stdout.write(`${JSON.stringify(stats)}\n`);
    if (late.length > 0) process.stderr.write(`late turns ${JSON.stringify(late)}\n`);
  }
});
process.stdout.write(`${JSON.stringify({ url: bot.url })}\n`);
process.on('SIGTERM', () => process.exit(0));

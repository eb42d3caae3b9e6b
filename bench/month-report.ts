// A month of 10,000 movements: `/cngn report <this month>` over a service history of 10,000
// transactions, read within the service's budget of 20 requests a minute. Three processes: the
// service (bench/month-report-sandbox.ts), the bot built as npm start builds it and run with its node
// flags (bench/month-report-bot.ts, which watches its own event loop and RSS), and this one, which plays
// Slack, sends the command and, meanwhile, `/cngn balance` every BENCH_MONTH_READ_EVERY_MS (500 ms),
// each timed until its answer reaches Slack. Figures: the time from the command to the report's last
// part (the CSV) in the DM, the bot's RSS rise at its peak, the longest hold of its event loop, and
// the p99 of the balance answers. The report's book starts empty, as a bot's first report does.
import { type ChildProcess, spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { FakeSlack } from '../test/support/fake-slack.js';
import { SIGNING_SECRET } from '../test/support/harness.js';
import { slashCommand } from '../test/support/slack-requests.js';
import { loaderFor, productionLabel, productionNode, productionScript } from './production.js';
import { emitResult } from './results.js';

const COUNT = Number(process.env.BENCH_MONTH_TRANSACTIONS ?? 10_000);
const READ_EVERY_MS = Number(process.env.BENCH_MONTH_READ_EVERY_MS ?? 500);
const GIVE_UP_MS = Number(process.env.BENCH_MONTH_GIVE_UP_MS ?? 180_000);
const TARGETS = { dmMs: 15_000, rssMb: 100, loopMs: 100, readP99Ms: 3_000 };

const children: ChildProcess[] = [];
process.on('exit', () => {
  for (const child of children) child.kill('SIGTERM');
});

/** A child running a script (TypeScript under tsx, a built one as it is), and its stdout's lines one at a time. */
function start(args: string[], flags: string[] = [], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [...flags, ...loaderFor(args[0] ?? ''), ...args], {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  children.push(child);
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  return { child, next: async () => JSON.parse(String((await lines.next()).value)) as unknown, lines };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

const slack = await FakeSlack.start();
const seedStarted = performance.now();
const service = start(['bench/month-report-sandbox.ts', String(COUNT)]);
const details = (await service.next()) as { month: string };
console.log(
  `service seeded with ${COUNT} transactions this month in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`,
);
const node = productionNode();
// BENCH_MONTH_CPU_PROF=<dir>: the bot writes a CPU profile there when it ends; with BENCH_MONTH_HOLDS=1
// too, it prints (stderr) each late turn of a 10 ms timer in the profile's clock, to find what held it.
const profile = process.env.BENCH_MONTH_CPU_PROF;
const botFlags = [...node.flags, ...(profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [])];
const botScript = await productionScript('bench/month-report-bot.ts');
const bot = start([botScript, JSON.stringify(details), slack.apiUrl], botFlags, node.env);
const { url } = (await bot.next()) as { url: string };
const sender = { baseUrl: url, signingSecret: SIGNING_SECRET };

let answers = 0;
/** `/cngn <text>`, acked; resolves with the ms until its first answer reached Slack. */
async function timedCommand(text: string): Promise<number> {
  const name = `month-${++answers}`;
  const started = performance.now();
  const ack = await slashCommand(sender, { text, responseUrl: slack.responseUrl(name) });
  if (ack.status !== 200) throw new Error(`/cngn ${text} was acked with ${ack.status}`);
  await slack.waitFor(`response_url:${name}`, () => true, GIVE_UP_MS);
  return performance.now() - started;
}

// Warm: the command path and the balance, as a bot that has answered before.
await timedCommand('balance');
await sleep(500);
const uploadsBefore = slack.callsTo('files.completeUploadExternal').length;
bot.child.stdin!.write('mark\n');
const load = loadavg()[0] ?? 0;
const started = performance.now();
await timedCommand(`report ${details.month}`);
const reads: number[] = [];
let done = false;
const reading = (async () => {
  while (!done) {
    const next = sleep(READ_EVERY_MS);
    reads.push(await timedCommand('balance'));
    await next;
  }
})();
let dmMs = Number.NaN;
while (performance.now() - started < GIVE_UP_MS) {
  // The chart, then the CSV: the report's last part.
  if (slack.callsTo('files.completeUploadExternal').length >= uploadsBefore + 2) {
    dmMs = performance.now() - started;
    break;
  }
  await sleep(10);
}
done = true;
await reading;
bot.child.stdin!.write('stats\n');
const stats = (await bot.next()) as { rssBeforeMb: number; rssPeakMb: number; loopMaxMs: number };
const failed = slack.callsTo('chat.postMessage').some((c) => /could not be/.test(JSON.stringify(c.body)));
const csvTitle = slack
  .callsTo('files.completeUploadExternal')
  .map((c) => JSON.stringify(c.body))
  .find((body) => body.includes('(CSV)'));
const rise = stats.rssPeakMb - stats.rssBeforeMb;
const p99 = percentile(reads, 99);

console.log(
  `bot ${productionLabel(node)}; load average ${load.toFixed(2)} at the command, ${(loadavg()[0] ?? 0).toFixed(2)} after`,
);
console.log(
  `report of ${details.month} in the DM after ${(dmMs / 1000).toFixed(1)} s${failed ? ' (a failure was told)' : ''}`,
);
console.log(`CSV: ${csvTitle?.match(/\d+ transactions[^"\\]*/)?.[0] ?? 'none'}`);
console.log(
  `RSS ${stats.rssBeforeMb.toFixed(0)} MB before, ${stats.rssPeakMb.toFixed(0)} MB at its peak (+${rise.toFixed(1)} MB)`,
);
console.log(`longest hold of the event loop: ${stats.loopMaxMs.toFixed(1)} ms`);
console.log(
  `/cngn balance meanwhile: ${reads.length} answered, p50 ${percentile(reads, 50).toFixed(0)} ms, p99 ${p99.toFixed(0)} ms`,
);

emitResult({
  id: 'month-report.dm',
  figure: `month report, ${COUNT} movements: command to the report in the DM`,
  value: dmMs / 1000,
  unit: 's',
  target: { op: '<', value: TARGETS.dmMs / 1000 },
  reference: `load average ${load.toFixed(2)}; 20 requests a minute`,
});
emitResult({
  id: 'month-report.rss',
  figure: 'month report: RSS rise of the bot (peak)',
  value: rise,
  unit: 'MB',
  target: { op: '<', value: TARGETS.rssMb },
  reference: `${stats.rssBeforeMb.toFixed(0)} MB before`,
});
emitResult({
  id: 'month-report.loop-hold',
  figure: 'month report: longest hold of the event loop',
  value: stats.loopMaxMs,
  unit: 'ms',
  target: { op: '<', value: TARGETS.loopMs },
  reference: 'large sealed answers opened, and the chart drawn, in worker threads',
});
emitResult({
  id: 'month-report.read-p99',
  figure: 'month report: /cngn balance answered meanwhile (p99)',
  value: p99,
  unit: 'ms',
  target: { op: '<', value: TARGETS.readP99Ms },
  reference: `${reads.length} answers, p50 ${percentile(reads, 50).toFixed(0)} ms`,
});
await slack.stop();
process.exit(Number.isNaN(dmMs) || failed ? 1 : 0);

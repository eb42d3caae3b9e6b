// Webhook figures: intake (signed deliveries verified, stored durably and acknowledged per second) and
// end-to-end delivery of a 1,000-event burst into the one alerts channel through the fake Slack with its
// per-channel limiter (1 message/s, burst 10, 429 + Retry-After beyond): time until every event is
// shown in the channel (digests filled in included), none lost, none shown twice — once with the bot
// running throughout, once with the bot (a child process) killed with SIGKILL mid-burst and restarted
// on the same SQLite file.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { Pool } from 'undici';
import { alertDigest } from '../src/slack/alerts/digest-blocks.js';
import { webhookMessage } from '../src/slack/alerts/message-blocks.js';
import { slackAlerts } from '../src/slack/alerts/sink.js';
import { createStore, type Store } from '../src/store/index.js';
import { createWebhooks, signatureFor, type Webhooks } from '../src/webhooks/index.js';
import { FakeSlack } from '../test/support/fake-slack.js';
import { type Pinning, pinning, pinProcess } from './pinning.js';
import { productionLabel, productionNode, productionScript } from './production.js';
import { emitBurst, emitIntake } from './results.js';

const SECRET = 'whsec_bench';
/** The bot processes run with npm start's node flags and environment. */
const production = productionNode();
const INTAKE_EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 10_000);
const INTAKE_CONCURRENCY = 16;
const INTAKE_ROUNDS = Math.max(1, Number(process.env.BENCH_INTAKE_ROUNDS ?? 3));
// A sustained rate: the first couple of thousand requests after start run code V8 has not optimised
// yet (measured: a 200-request warm-up with 2,000 timed gave about half the rate of this set-up).
const INTAKE_WARMUP = 2_000;
const BURST_EVENTS = Number(process.env.BENCH_WEBHOOK_BURST ?? 1_000);
const BUCKET_BURST = 10;
const BUCKET_PER_SECOND = 1;

export interface WebhookBenchResult {
  lines: string[];
}

function body(i: number, ref: string, event = 'deposit.completed'): string {
  return JSON.stringify({
    event,
    data: {
      transactionId: `bench-tx-${i}`,
      trx_ref: ref,
      status: 'completed',
      trx_type: 'fiat_buy',
      amount: `${1000 + i}.50`,
      asset_symbol: 'CNGN',
      receiver: 'biz-bench',
      occurredAt: '2026-11-23T08:00:00.000Z',
    },
    timestamp: '2026-11-23T08:00:00.000Z',
  });
}

async function serve(webhooks: Webhooks): Promise<{ origin: string; close(): Promise<void> }> {
  const server = createServer((req, res) => webhooks.route.handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function sendAll(
  origin: string,
  bodies: Array<string | { raw: string; signature: string }>,
  concurrency: number,
): Promise<number[]> {
  const pool = new Pool(origin, { connections: concurrency });
  const latencies: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < bodies.length) {
      const item = bodies[next++]!;
      const raw = typeof item === 'string' ? item : item.raw;
      const signature = typeof item === 'string' ? signatureFor(raw, SECRET) : item.signature;
      const started = performance.now();
      const response = await pool.request({
        path: '/webhooks/cngn',
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-cngn-signature': signature },
        body: raw,
      });
      await response.body.text();
      if (response.statusCode !== 200) throw new Error(`intake answered ${response.statusCode}`);
      latencies.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  await pool.close();
  return latencies;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

interface IntakeRound {
  perSecond: number;
  p50: number;
  p99: number;
  /** CPU time of the bot process alone per event, ms. */
  botCpuMs: number;
  /** CPU time of this process (the sender) per event, ms. */
  senderCpuMs: number;
  seconds: number;
}

/**
 * One round: the intake (bench/webhooks-intake-server.ts) in a child process — on a CPU of its own
 * where taskset can pin it — and this process signing and sending. A warm-up first (not counted), then
 * INTAKE_EVENTS timed; the child reports its own CPU time over the timed part.
 */
async function intakeRound(storeUrl: string, pin: Pinning): Promise<IntakeRound> {
  const script = await productionScript('bench/webhooks-intake-server.ts');
  const profile = process.env.BENCH_INTAKE_CPU_PROF
    ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_INTAKE_CPU_PROF]
    : [];
  const [command = process.execPath, ...args] = [
    ...pin.app,
    process.execPath,
    ...production.flags,
    ...profile,
    script,
    storeUrl,
    SECRET,
  ];
  const child = spawn(command, args, {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, ...production.env },
  });
  const exited = once(child, 'exit');
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
  const next = async <T>(): Promise<T> => {
    const { value, done } = await lines.next();
    if (done) throw new Error('the intake process ended early');
    return JSON.parse(value as string) as T;
  };
  try {
    const { url } = await next<{ url: string }>();
    await sendAll(
      url,
      Array.from({ length: INTAKE_WARMUP }, (_, i) => body(1_000_000 + i, `BENCH-WARM-${i}`)), // ids of their own
      INTAKE_CONCURRENCY,
    );
    const bodies = Array.from({ length: INTAKE_EVENTS }, (_, i) =>
      body(i, `BENCH-IN-${i % 500}`, i < 500 ? 'deposit.received' : 'deposit.completed'),
    );
    const signed = bodies.map((raw) => ({ raw, signature: signatureFor(raw, SECRET) }));
    child.stdin?.write('start\n');
    await next();
    const started = performance.now();
    const senderCpu = process.cpuUsage();
    const latencies = await sendAll(url, signed, INTAKE_CONCURRENCY);
    const seconds = (performance.now() - started) / 1000;
    const { user, system } = process.cpuUsage(senderCpu);
    child.stdin?.write('stop\n');
    const { cpuMs, stored } = await next<{ cpuMs: number; stored: number }>();
    await exited; // it exits on its own (writing its CPU profile when asked for one)
    if (stored !== INTAKE_EVENTS + INTAKE_WARMUP)
      throw new Error(`stored ${stored} of ${INTAKE_EVENTS + INTAKE_WARMUP}`);
    return {
      perSecond: INTAKE_EVENTS / seconds,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      botCpuMs: cpuMs / INTAKE_EVENTS,
      senderCpuMs: (user + system) / 1000 / INTAKE_EVENTS,
      seconds,
    };
  } finally {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  }
}

const range = (values: number[], digits = 0) =>
  values.length > 1
    ? `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`
    : (values[0] ?? Number.NaN).toFixed(digits);
const median = (values: number[]) => percentile(values, 50);
/** How busy a process was over the timed part, median over the rounds: CPU time / wall time. */
const percentOfWall = (rounds: IntakeRound[], field: 'botCpuMs' | 'senderCpuMs') =>
  `${Math.round(median(rounds.map((r) => (r[field] * INTAKE_EVENTS) / (r.seconds * 1000))) * 100)}%`;

async function intake(storeUrl: (round: number) => string, label: string): Promise<string> {
  const pin = pinning();
  // The sender keeps off the CPU the intake has to itself (and gets every CPU back afterwards).
  if (pin.restCpus) pinProcess(process.pid, pin.restCpus);
  const rounds: IntakeRound[] = [];
  const load = loadavg()[0] ?? 0;
  try {
    for (let round = 0; round < INTAKE_ROUNDS; round++) rounds.push(await intakeRound(storeUrl(round), pin));
  } finally {
    if (pin.allCpus) pinProcess(process.pid, pin.allCpus);
  }
  const perSecond = median(rounds.map((r) => r.perSecond));
  const p99 = median(rounds.map((r) => r.p99));
  emitIntake(label, perSecond, p99);
  const target = label.startsWith('SQLite') ? ' (target >= 2,000/s, p99 < 20 ms)' : '';
  const cores = availableParallelism();
  return (
    `webhook intake (${label}, bot in its own process ${productionLabel(production)}, ${pin.label}): ${INTAKE_EVENTS} signed events, concurrency ${INTAKE_CONCURRENCY}, ` +
    `median of ${rounds.length} rounds [range]: ${Math.round(perSecond)} events/s stored+acked [${range(rounds.map((r) => r.perSecond))}]; ` +
    `p50 ${median(rounds.map((r) => r.p50)).toFixed(1)} ms [${range(
      rounds.map((r) => r.p50),
      1,
    )}], ` +
    `p99 ${p99.toFixed(1)} ms [${range(
      rounds.map((r) => r.p99),
      1,
    )}]${target}; ` +
    `CPU of the bot process ${median(rounds.map((r) => r.botCpuMs)).toFixed(2)} ms/event [${range(
      rounds.map((r) => r.botCpuMs),
      2,
    )}] (${percentOfWall(rounds, 'botCpuMs')} of its CPU's time), of the sender ${median(rounds.map((r) => r.senderCpuMs)).toFixed(2)} ms/event (${percentOfWall(rounds, 'senderCpuMs')}); ` +
    `${cores} cores, load average ${load.toFixed(1)} at the start`
  );
}

/** The same on Redis (127.0.0.1:6379 or REDIS_URL), when one answers. */
async function intakeOnRedis(): Promise<string> {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  try {
    return await intake(() => url, 'Redis store');
  } catch (error) {
    return `webhook intake (Redis store): not measured (${error instanceof Error ? error.message : String(error)})`;
  }
}

const bucket = `fake Slack allowing ${BUCKET_PER_SECOND} message/s per channel with a burst of ${BUCKET_BURST}`;

/** Every event's reference as the channel shows it now (chat.update applied), counted per message. */
function visibility(slack: FakeSlack, events: number): { visible: number; lost: number; twice: number } {
  const times = new Array<number>(events).fill(0);
  for (const message of slack.messages()) {
    const shown = JSON.stringify(message.blocks ?? message.text);
    for (const match of shown.matchAll(/Ref `BENCH-B-(\d+)`/g)) times[Number(match[1])]! += 1;
  }
  return {
    visible: times.filter((n) => n > 0).length,
    lost: times.filter((n) => n === 0).length,
    twice: times.filter((n) => n > 1).length,
  };
}

async function untilVisible(slack: FakeSlack, events: number, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (visibility(slack, events).visible < events && performance.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
  }
}

function burstBodies(events: number): string[] {
  return Array.from({ length: events }, (_, i) => body(i, `BENCH-B-${i}`));
}

function messageCounts(slack: FakeSlack): string {
  const shown = slack.messages();
  const digests = shown.filter((m) => m.text.includes('Alert digest')).length;
  return `${shown.length} messages (${digests} digests), ${slack.rateLimited} requests answered 429`;
}

/**
 * The real set-up: every alert to CNGN_ALERTS_CHANNEL, the burst sent while the deliverer runs; timed
 * from the first event sent until every event is shown in the channel.
 */
async function oneChannelBurst(storeUrl: string): Promise<string> {
  const slack = await FakeSlack.start({ rateLimit: { perSecond: BUCKET_PER_SECOND, burst: BUCKET_BURST } });
  const store: Store = await createStore(storeUrl, { prefix: `bench-burst-${Date.now()}` });
  const webhooks = createWebhooks({
    store,
    environment: 'sandbox',
    secret: SECRET,
    render: webhookMessage,
    renderDigest: alertDigest,
    sink: slackAlerts('xoxb-bench', slack.apiUrl),
    alertsChannel: 'C0ALERTS',
  });
  const server = await serve(webhooks);
  await webhooks.start();
  const started = performance.now();
  await sendAll(server.origin, burstBodies(BURST_EVENTS), INTAKE_CONCURRENCY);
  const acked = performance.now();
  await untilVisible(slack, BURST_EVENTS, 300_000);
  const seconds = (performance.now() - started) / 1000;
  const afterLast = (performance.now() - acked) / 1000;
  const seen = visibility(slack, BURST_EVENTS);
  await webhooks.stop();
  await server.close();
  await store.close();
  const counts = messageCounts(slack);
  await slack.stop();
  emitBurst('burst', BURST_EVENTS, seconds, seen);
  return (
    `webhook burst, one alerts channel (SQLite store, ${bucket}): ${BURST_EVENTS.toLocaleString('en')} events sent 16 at a time, ` +
    `all acknowledged in ${((acked - started) / 1000).toFixed(1)} s; every event visible ${seconds.toFixed(1)} s after the first was sent ` +
    `(target < 60 s), ${afterLast.toFixed(1)} s after the last was acknowledged; lost ${seen.lost} (target 0), shown twice ${seen.twice} (target 0); ${counts}`
  );
}

/** Starts the webhooks half of the bot (bench/webhooks-bot.ts) in its own process. */
async function spawnBot(
  storeUrl: string,
  slackApiUrl: string,
): Promise<{ url: string; child: ChildProcess; exited: Promise<unknown> }> {
  const script = await productionScript('bench/webhooks-bot.ts');
  const child = spawn(process.execPath, [...production.flags, script, storeUrl, slackApiUrl, SECRET], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...production.env },
  });
  // Listened for from the start: the kill may come before anyone waits for it.
  const exited = once(child, 'exit');
  const [line] = (await once(createInterface({ input: child.stdout as NodeJS.ReadableStream }), 'line')) as [
    string,
  ];
  return { url: (JSON.parse(line) as { url: string }).url, child, exited };
}

/**
 * Sends every body, 16 at a time; a request the dead process never answered is simply not counted.
 * `onAck` hears each acknowledgement as it comes.
 */
async function sendSome(
  origin: string,
  bodies: string[],
  acked = new Set<number>(),
  onAck: (acked: Set<number>) => void = () => {},
): Promise<Set<number>> {
  const pool = new Pool(origin, { connections: INTAKE_CONCURRENCY });
  let next = 0;
  const worker = async () => {
    while (next < bodies.length) {
      const i = next++;
      const raw = bodies[i]!;
      try {
        const response = await pool.request({
          path: '/webhooks/cngn',
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-cngn-signature': signatureFor(raw, SECRET) },
          body: raw,
        });
        await response.body.text();
        if (response.statusCode === 200) {
          acked.add(i);
          onAck(acked);
        }
      } catch {
        // The process was killed under this request: not acknowledged, so the sender still holds it.
      }
    }
  };
  await Promise.all(Array.from({ length: INTAKE_CONCURRENCY }, worker));
  await pool.close().catch(() => undefined);
  return acked;
}

/**
 * The same burst, with the bot killed (SIGKILL) mid-intake — the moment half the burst has been
 * acknowledged, with requests still in flight and digests under way — and started again on the same
 * SQLite file. Events it never acknowledged are sent again to the new process (a duplicate is dropped
 * there).
 */
async function killedBurst(storeUrl: string): Promise<string> {
  const slack = await FakeSlack.start({ rateLimit: { perSecond: BUCKET_PER_SECOND, burst: BUCKET_BURST } });
  let bot = await spawnBot(storeUrl, slack.apiUrl);
  let killedAt: number | undefined;
  let inFlight = 0;
  let digestsTaken = 0;
  slack.on('chat.update', () => {
    if (killedAt === undefined) digestsTaken += 1;
    return undefined;
  });
  const bodies = burstBodies(BURST_EVENTS);
  const started = performance.now();
  const first = await sendSome(bot.url, bodies, new Set(), (acked) => {
    if (killedAt !== undefined || acked.size < BURST_EVENTS / 2) return;
    killedAt = performance.now();
    inFlight = Math.min(INTAKE_CONCURRENCY, BURST_EVENTS - acked.size);
    bot.child.kill('SIGKILL');
  });
  await bot.exited;
  const restartStarted = performance.now();
  bot = await spawnBot(storeUrl, slack.apiUrl);
  const restartSeconds = (performance.now() - restartStarted) / 1000;
  const missing = bodies.map((_, i) => i).filter((i) => !first.has(i));
  const second = await sendSome(
    bot.url,
    missing.map((i) => bodies[i]!),
  );
  await untilVisible(slack, BURST_EVENTS, 300_000);
  const seconds = (performance.now() - started) / 1000;
  const seen = visibility(slack, BURST_EVENTS);
  bot.child.kill('SIGKILL');
  await bot.exited;
  const counts = messageCounts(slack);
  await slack.stop();
  emitBurst('kill -9', BURST_EVENTS, seconds, seen);
  return (
    `webhook burst with kill -9 (SQLite store, bot in a child process, ${bucket}): killed ${(((killedAt ?? started) - started) / 1000).toFixed(1)} s in, ` +
    `after ${first.size} of ${BURST_EVENTS.toLocaleString('en')} events were acknowledged (up to ${inFlight} requests in flight, ` +
    `${digestsTaken} digest updates taken by Slack before the kill); ` +
    `restarted on the same file in ${restartSeconds.toFixed(1)} s, the ${missing.length} unacknowledged sent again (${second.size} acknowledged); ` +
    `every event visible ${seconds.toFixed(1)} s after the first was sent (target < 60 s); lost ${seen.lost} (target 0), ` +
    `shown twice ${seen.twice} (target 0); ${counts}`
  );
}

export async function benchWebhooks(): Promise<WebhookBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'cngn-bench-wh-'));
  try {
    const lines = [
      await intake(() => 'memory://', 'memory store'),
      await intake((round) => `sqlite://${join(dir, `intake-${round}.sqlite`)}`, 'SQLite store'),
      await intakeOnRedis(),
      await oneChannelBurst(`sqlite://${join(dir, 'one-channel.sqlite')}`),
      await killedBurst(`sqlite://${join(dir, 'killed.sqlite')}`),
    ];
    return { lines };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The intake figures alone (`tsx bench/webhooks.ts --intake`): memory and SQLite, Redis where it runs. */
export async function benchIntake(): Promise<WebhookBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'cngn-bench-wh-'));
  try {
    return {
      lines: [
        await intake(() => 'memory://', 'memory store'),
        await intake((round) => `sqlite://${join(dir, `intake-${round}.sqlite`)}`, 'SQLite store'),
        await intakeOnRedis(),
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { lines } = process.argv.includes('--intake') ? await benchIntake() : await benchWebhooks();
  for (const line of lines) console.log(line);
  process.exit(0);
}

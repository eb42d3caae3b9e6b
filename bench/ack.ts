// Ack latency: signed `/cngn balance` requests against our bot (real Bolt app, embedded sandbox, fake
// Slack) and against a bare Bolt app whose /cngn does nothing but ack, on the same machine. Each app
// runs in a child process, built as `npm start` builds the bot and run with its node flags; this
// process sends the load and a third one plays Slack's Web API.
//
// Three loads, all printed:
// - paced: requests sent at a steady rate (BENCH_ACK_RATE per second, far above any team's use),
//   each timed from when it left. Sending never waits for an answer (a pool of 32 connections), so a
//   slow server's queue still shows; timing from the due time instead would add the load's own timer
//   jitter to both apps. This is what Slack sees (target: p99 < 100 ms).
// - saturated: BENCH_ACK_CONCURRENCY requests in flight back to back. Every request's answer then
//   competes for the CPU with the next acks, so this measures throughput more than ack latency.
// - slow service: BENCH_ACK_SLOW_CONCURRENCY (50) requests in flight back to back while every call to
//   the service answers after BENCH_ACK_SERVICE_DELAY_MS (2 s), so the answers wait on the service
//   while the acks go on (target: p99 < 300 ms). Our bot runs it in a process of its own behind a
//   delaying proxy; bare Bolt, which calls no service, meets the same load as a reference.
// The latency ratios to bare Bolt are reference figures, not targets. Beside them, for the CPU per request
// only, a third app: Bolt acking and then answering one line through its own `respond()`, the least
// any app that answers a command does (bare Bolt answers nothing).
// Where `taskset` exists and there are two or more CPUs, the app under test gets a CPU of its own
// and the load and the fake Slack share the rest, so neither app is slowed by the harness.
// BENCH_ACK_ROUNDS rounds (default 3), the two apps alternating which goes first, so both meet the
// same load on the machine; each figure is the median of the rounds, with their range. Beside the
// latencies, each app's CPU time per request (from /proc, Linux only): what the ack and the answer
// cost, whatever else the machine runs.

import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { Client, Pool, request } from 'undici';
import { SIGNING_SECRET } from '../test/support/harness.js';
import { signSlackBody } from '../test/support/slack-requests.js';
import { pinning } from './pinning.js';
import { loaderFor, type ProductionNode, productionNode, productionScript } from './production.js';
import { emitResult } from './results.js';

const REQUESTS = Number(process.env.BENCH_ACK_REQUESTS ?? 2_000);
const CONCURRENCY = Number(process.env.BENCH_ACK_CONCURRENCY ?? 4);
const RATE = Number(process.env.BENCH_ACK_RATE ?? 200);
const SLOW_CONCURRENCY = Number(process.env.BENCH_ACK_SLOW_CONCURRENCY ?? 50);
const SERVICE_DELAY_MS = Number(process.env.BENCH_ACK_SERVICE_DELAY_MS ?? 2_000);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ACK_ROUNDS ?? 3));
const WARMUP = 50;
const CLOCK_TICKS = 100; // USER_HZ on Linux, the unit of /proc/<pid>/stat times

interface Figures {
  p50: number;
  p99: number;
}

interface AppFigures {
  paced: Figures;
  saturated: Figures;
  /** The app process's CPU time per request under the saturated load, µs (undefined without /proc). */
  cpuMicrosPerRequest: number | undefined;
  /**
   * Answers (our app only): ms from the last saturated ack until the last of its answers reached the
   * fake Slack; undefined for bare Bolt, which answers nothing.
   */
  answersDrainedMs?: number | undefined;
  /** SLOW_CONCURRENCY in flight while the service answers slowly (bare Bolt: the same load, no service). */
  slow: Figures;
  /** Our app only: ms from the slow load's last ack until the last of its answers reached Slack. */
  slowAnswersDrainedMs?: number | undefined;
}

export interface AckBenchResult {
  lines: string[];
  rounds: Array<{ ours: AppFigures; bare: AppFigures; answering: AppFigures }>;
}

/** CPU time (user + system) of a process so far, in ms, from /proc; undefined elsewhere. */
function cpuMsOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return ((Number(fields[11]) + Number(fields[12])) * 1_000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

let sent = 0;

function requestFor(responseUrl: string): { body: string; headers: Record<string, string> } {
  sent += 1;
  const body = new URLSearchParams({
    command: '/cngn',
    text: process.env.BENCH_TEXT ?? 'balance',
    user_id: 'UBENCH',
    channel_id: 'CBENCH',
    team_id: 'T1',
    response_url: responseUrl,
    // Each command a trigger of its own, as Slack gives: a repeated one is answered from the first.
    trigger_id: `bench.${sent}`,
  }).toString();
  return {
    body,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...signSlackBody(SIGNING_SECRET, body) },
  };
}

function figures(times: number[]): Figures {
  const sorted = [...times].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

/** How many answers the fake Slack has had at `${responseBase}${name}`. */
async function answersAt(slack: SlackInfo, name: string): Promise<number> {
  const response = await request(`${slack.countUrl}?name=${encodeURIComponent(name)}`);
  return Number(await response.body.text());
}

/** Resolves with the ms it took until `expected` answers reached `name` (throws after `limitMs`). */
async function answersIn(
  slack: SlackInfo,
  name: string,
  expected: number,
  limitMs = 60_000,
): Promise<number> {
  const started = performance.now();
  for (;;) {
    const seen = await answersAt(slack, name);
    if (seen >= expected) return performance.now() - started;
    if (performance.now() - started > limitMs) {
      throw new Error(`only ${seen} of ${expected} answers arrived within ${limitMs} ms`);
    }
    await sleep(5);
  }
}

/**
 * Sends signed commands, paced ones over a pool of connections, back-to-back ones each over its
 * worker's own; each resolves with the ms until its ack.
 */
function sender(baseUrl: string, connections: number) {
  const pool = new Pool(baseUrl, { connections });
  // A back-to-back worker keeps a connection of its own: a pool may give a request to a connection
  // still opening, queue the next ones behind it there, and their wait would be counted as the app's.
  const own = new Map<number, Client>();
  const connectionOf = (worker: number) => {
    const client = own.get(worker) ?? new Client(baseUrl);
    own.set(worker, client);
    return client;
  };
  let responseUrl = '';
  return {
    /** Where the answers to what is sent from now on go (counted per name by the fake Slack). */
    answerTo(url: string) {
      responseUrl = url;
    },
    /** One request, timed; `worker`: on that back-to-back worker's own connection (else the pool's). */
    async send(worker?: number): Promise<number> {
      const { body, headers } = requestFor(responseUrl);
      const dispatcher = worker === undefined ? pool : connectionOf(worker);
      const started = performance.now();
      const response = await dispatcher.request({ path: '/slack/events', method: 'POST', headers, body });
      await response.body.dump();
      if (response.statusCode !== 200) throw new Error(`ack answered ${response.statusCode}`);
      return performance.now() - started;
    },
    close: async () => {
      await Promise.all([pool.close(), ...[...own.values()].map((client) => client.close())]);
    },
  };
}

/** `count` requests with `concurrency` in flight, each sent as soon as the previous one's ack is read. */
async function backToBack(send: (worker: number) => Promise<number>, count: number, concurrency: number) {
  const times: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      while (next++ < count) times.push(await send(worker));
    }),
  );
  return times;
}

/** The paced and the saturated loads, in one app process. */
async function measure(
  baseUrl: string,
  slack: SlackInfo,
  run: string,
  pid: number | undefined,
  answers: boolean,
): Promise<Omit<AppFigures, 'slow'>> {
  const load = sender(baseUrl, 32);
  load.answerTo(`${slack.responseBase}${run}-warmup`);
  for (let i = 0; i < WARMUP; i++) await load.send();
  load.answerTo(`${slack.responseBase}${run}-paced`);

  // Paced: request i leaves at start + i / RATE, whatever happened to the earlier ones.
  const pacedTimes: Promise<number>[] = [];
  const start = performance.now();
  for (let i = 0; i < REQUESTS; i++) {
    const due = start + (i * 1_000) / RATE;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    pacedTimes.push(load.send());
  }
  const paced = figures(await Promise.all(pacedTimes));

  // Saturated: CONCURRENCY in flight, each sent as soon as the previous one's ack is read.
  if (answers) await answersIn(slack, `${run}-paced`, REQUESTS); // the paced answers settle first
  await sleep(500);
  // The workers' connections opened before the load is timed, their answers under the warm-up's name.
  load.answerTo(`${slack.responseBase}${run}-warmup`);
  await backToBack(load.send, CONCURRENCY, CONCURRENCY);
  load.answerTo(`${slack.responseBase}${run}-saturated`);
  const cpuBefore = cpuMsOf(pid);
  const saturatedTimes = await backToBack(load.send, REQUESTS, CONCURRENCY);
  // Every answer queued behind the acks has arrived before the CPU is read, so it is counted.
  const answersDrainedMs = answers ? await answersIn(slack, `${run}-saturated`, REQUESTS) : undefined;
  await sleep(1_000);
  const cpuAfter = cpuMsOf(pid);
  await load.close();
  const cpuMicrosPerRequest =
    cpuBefore !== undefined && cpuAfter !== undefined
      ? ((cpuAfter - cpuBefore) * 1_000) / REQUESTS
      : undefined;
  return { paced, saturated: figures(saturatedTimes), cpuMicrosPerRequest, answersDrainedMs };
}

/**
 * The slow-service load: SLOW_CONCURRENCY in flight back to back. For our bot the service answers
 * every call after SERVICE_DELAY_MS, so answers wait on it (the balance read is shared by the answers
 * waiting for it) while acks go on; every answer must still reach Slack.
 */
async function measureSlow(
  baseUrl: string,
  slack: SlackInfo,
  run: string,
  answers: boolean,
): Promise<{ slow: Figures; slowAnswersDrainedMs: number | undefined }> {
  const load = sender(baseUrl, 1); // back to back only: each worker's own connection
  load.answerTo(`${slack.responseBase}${run}-slow-warmup`);
  // Spread over the load's own connections, so all of them are open before it is timed: 49 opened at
  // once into the bot under this load waited up to 700 ms before their first request was read (the
  // request's own ack inside the bot stayed under 15 ms) and made the p99 a measure of that.
  await backToBack(load.send, Math.max(WARMUP, SLOW_CONCURRENCY), SLOW_CONCURRENCY);
  load.answerTo(`${slack.responseBase}${run}-slow`);
  const times = await backToBack(load.send, REQUESTS, SLOW_CONCURRENCY);
  const slowAnswersDrainedMs = answers ? await answersIn(slack, `${run}-slow`, REQUESTS) : undefined;
  await load.close();
  return { slow: figures(times), slowAnswersDrainedMs };
}

/**
 * Node flags for the apps under test beyond npm start's, to look into them: BENCH_ACK_CPU_PROF=<dir>
 * (a CPU profile each), BENCH_ACK_NODE_FLAGS (e.g. `--trace-gc`, or `--max-semi-space-size=8`, which
 * wins over npm start's as the later flag).
 */
function lookingFlags(): string[] {
  const profile = process.env.BENCH_ACK_CPU_PROF;
  return [
    ...(profile ? ['--cpu-prof', '--cpu-prof-dir', profile] : []),
    ...(process.env.BENCH_ACK_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean),
  ];
}

/**
 * Starts a bench script in its own process (under `prefix`, e.g. taskset) and reads its JSON line: a
 * TypeScript one under tsx, a built one as it is. `production`: with npm start's node flags and
 * environment (the apps under test, every one of them), and the flags to look into them with; what
 * else an app so looked into prints (a flag's trace) goes to bench-results/ack-app-<pid>.out.
 */
async function spawnServer<T>(
  args: string[],
  prefix: string[] = [],
  production?: ProductionNode,
): Promise<{ info: T; child: ChildProcess }> {
  const node = [
    process.execPath,
    ...(production ? [...production.flags, ...lookingFlags()] : []),
    ...loaderFor(args[0] ?? ''),
    ...args,
  ];
  const [command = process.execPath, ...rest] = [...prefix, ...node];
  const child = spawn(command, rest, {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...production?.env },
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const looking = production !== undefined && lookingFlags().length > 0;
  const printed = looking
    ? createWriteStream(new URL(`../bench-results/ack-app-${child.pid}.out`, import.meta.url))
    : undefined;
  printed?.on('error', (error) => console.error(`the app's trace could not be kept: ${error.message}`));
  // Lines may still come after the child's exit; the file ends once its output has.
  lines.once('close', () => printed?.end());
  const info = await new Promise<string>((resolve, reject) => {
    let found = false;
    lines.on('line', (line) => {
      // A trace the app prints through C's buffered stdout may end mid-line just before the JSON.
      const at = found || !line.endsWith('}') ? -1 : line.indexOf('{"');
      if (at >= 0) {
        found = true;
        if (at > 0) printed?.write(`${line.slice(0, at)}\n`);
        resolve(line.slice(at));
      } else printed?.write(`${line}\n`);
    });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`a bench app ended before it was ready (exit ${code})`)));
  });
  return { info: JSON.parse(info) as T, child };
}

async function stopChild(child: ChildProcess): Promise<void> {
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

type Mode = 'ours' | 'bare' | 'answering';

/** Runs `measure` against a fresh app process (our bot with the service delayed by `delayMs`, or a Bolt app). */
async function withApp<T>(
  mode: Mode,
  slack: SlackInfo,
  pin: string[],
  delayMs: number,
  measure: (url: string, pid: number | undefined) => Promise<T>,
): Promise<T> {
  const app = await spawnServer<{ url: string }>(
    [await productionScript('bench/ack-server.ts'), mode, slack.apiUrl, String(delayMs)],
    pin,
    productionNode(),
  );
  try {
    return await measure(app.info.url, app.child.pid);
  } finally {
    await stopChild(app.child);
  }
}

async function benchApp(mode: Mode, slack: SlackInfo, pin: string[], round: number): Promise<AppFigures> {
  const run = `${mode}-${round}`;
  if (mode === 'answering') {
    // Only its CPU per request is reported; the slow-service load means nothing without a service.
    return withApp('answering', slack, pin, 0, async (url, pid) => ({
      ...(await measure(url, slack, run, pid, true)),
      slow: { p50: Number.NaN, p99: Number.NaN },
    }));
  }
  if (mode === 'bare') {
    // Bare Bolt calls no service: both loads in one process.
    return withApp('bare', slack, pin, 0, async (url, pid) => ({
      ...(await measure(url, slack, run, pid, false)),
      ...(await measureSlow(url, slack, run, false)),
    }));
  }
  // The slow service in a process of its own, so its answers never overlap the other loads.
  const fast = await withApp('ours', slack, pin, 0, (url, pid) => measure(url, slack, run, pid, true));
  const slow = await withApp('ours', slack, pin, SERVICE_DELAY_MS, (url) =>
    measureSlow(url, slack, run, true),
  );
  return { ...fast, ...slow };
}

interface SlackInfo {
  apiUrl: string;
  /** A response_url is this followed by a name; answers are counted per name. */
  responseBase: string;
  countUrl: string;
}

const median = (values: number[]) => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? Number.NaN) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};
const range = (values: number[], digits = 2) =>
  values.length > 1
    ? `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`
    : (values[0] ?? Number.NaN).toFixed(digits);

export async function benchAck(): Promise<AckBenchResult> {
  const cores = availableParallelism(); // before this process is pinned to fewer
  const pin = pinning();
  // This process (the load) joins the fake Slack on the CPUs the app does not use.
  if (pin.restCpus)
    execFileSync('taskset', ['-c', '-p', pin.restCpus, String(process.pid)], { stdio: 'ignore' });
  const slack = await spawnServer<SlackInfo>(['bench/slack-server.ts'], pin.rest);
  const rounds: AckBenchResult['rounds'] = [];
  const loadBefore = loadavg()[0] ?? 0;
  try {
    for (let round = 0; round < ROUNDS; round++) {
      // Alternating which app goes first, so a change in the machine's load does not favour one.
      const order: Mode[] = round % 2 === 0 ? ['ours', 'bare', 'answering'] : ['answering', 'bare', 'ours'];
      const measured: Partial<Record<Mode, AppFigures>> = {};
      for (const mode of order) measured[mode] = await benchApp(mode, slack.info, pin.app, round);
      const { ours, bare, answering } = measured;
      if (!ours || !bare || !answering) throw new Error('a round left an app unmeasured');
      rounds.push({ ours, bare, answering });
    }
  } finally {
    await stopChild(slack.child);
  }
  const loadAfter = loadavg()[0] ?? 0;

  type Kind = 'paced' | 'saturated' | 'slow';
  const load = (kind: Kind, app: 'ours' | 'bare', p: 'p50' | 'p99') => rounds.map((r) => r[app][kind][p]);
  const ratio = (kind: Kind, p: 'p50' | 'p99') => rounds.map((r) => r.ours[kind][p] / r.bare[kind][p]);
  const row = (name: string, kind: Kind, app: 'ours' | 'bare') =>
    `    ${name} : p50 ${median(load(kind, app, 'p50')).toFixed(2)} ms (${range(load(kind, app, 'p50'))})   ` +
    `p99 ${median(load(kind, app, 'p99')).toFixed(2)} ms (${range(load(kind, app, 'p99'))})`;
  const ratios = (kind: Kind) =>
    `    ratio     : p50 ${median(ratio(kind, 'p50')).toFixed(2)} (${range(ratio(kind, 'p50'))})   ` +
    `p99 ${median(ratio(kind, 'p99')).toFixed(2)} (${range(ratio(kind, 'p99'))})`;
  const cpu = (app: Mode) =>
    rounds.map((r) => r[app].cpuMicrosPerRequest).filter((n): n is number => n !== undefined);
  // Each round's ratio, ours over the reference measured beside it in that round.
  const cpuRatios = (to: 'bare' | 'answering') =>
    rounds.flatMap((r) =>
      r.ours.cpuMicrosPerRequest && r[to].cpuMicrosPerRequest
        ? [r.ours.cpuMicrosPerRequest / r[to].cpuMicrosPerRequest]
        : [],
    );
  const cpuLine =
    cpu('ours').length > 0
      ? `  CPU time of the app per request (saturated): cngn-desk ${median(cpu('ours')).toFixed(0)} µs ` +
        `(${range(cpu('ours'), 0)}, ack and answer), bare Bolt ${median(cpu('bare')).toFixed(0)} µs (${range(cpu('bare'), 0)}, ack only; ` +
        `ratio ${median(cpuRatios('bare')).toFixed(2)}×, rounds ${range(cpuRatios('bare'))}), Bolt answering through respond() ` +
        `${median(cpu('answering')).toFixed(0)} µs (${range(cpu('answering'), 0)}; ratio ${median(cpuRatios('answering')).toFixed(2)}×, ` +
        `rounds ${range(cpuRatios('answering'))})`
      : '  CPU time per request: not measured (no /proc)';
  const drainedOf = (key: 'answersDrainedMs' | 'slowAnswersDrainedMs') =>
    rounds.map((r) => r.ours[key]).filter((n): n is number => n !== undefined);
  const drained = drainedOf('answersDrainedMs');
  const slowDrained = drainedOf('slowAnswersDrainedMs');
  const answersLine =
    `  answers (cngn-desk): all ${REQUESTS} of each load reached Slack; the last one ` +
    `${median(drained).toFixed(0)} ms (${range(drained, 0)}) after the saturated load's last ack, ` +
    `${median(slowDrained).toFixed(0)} ms (${range(slowDrained, 0)}) after the slow-service load's`;
  const slowLoad = `${SLOW_CONCURRENCY} in flight, service answering in ${(SERVICE_DELAY_MS / 1_000).toLocaleString('en')} s`;

  const bare = (kind: Kind, p: 'p50' | 'p99') =>
    `bare Bolt ${p} ${median(load(kind, 'bare', p)).toFixed(2)} ms, cngn-desk ${median(load(kind, 'ours', p)).toFixed(2)} ms; ` +
    `${rounds.length} rounds ${range(ratio(kind, p))}`;
  emitResult({
    id: 'ack.paced.p99',
    figure: `ack p99, paced at ${RATE}/s`,
    value: median(load('paced', 'ours', 'p99')),
    unit: 'ms',
    target: { op: '<', value: 100 },
    reference: `bare Bolt ${median(load('paced', 'bare', 'p99')).toFixed(2)} ms`,
  });
  emitResult({
    id: 'ack.slow-service.p99',
    figure: `ack p99, ${slowLoad}`,
    value: median(load('slow', 'ours', 'p99')),
    unit: 'ms',
    target: { op: '<', value: 300 },
    reference: `bare Bolt ${median(load('slow', 'bare', 'p99')).toFixed(2)} ms (no service); ${rounds.length} rounds ${range(load('slow', 'ours', 'p99'))} ms`,
  });
  emitResult({
    id: 'ack.paced.p99-ratio',
    figure: `ack p99, paced at ${RATE}/s, ratio to bare Bolt (reference)`,
    value: median(ratio('paced', 'p99')),
    unit: '×',
    reference: bare('paced', 'p99'),
  });
  emitResult({
    id: 'ack.saturated.p99-ratio',
    figure: `ack p99, saturated (${CONCURRENCY} in flight), ratio to bare Bolt (reference)`,
    value: median(ratio('saturated', 'p99')),
    unit: '×',
    reference: bare('saturated', 'p99'),
  });
  emitResult({
    id: 'ack.saturated.p50-ratio',
    figure: 'ack p50, saturated, ratio to bare Bolt (reference)',
    value: median(ratio('saturated', 'p50')),
    unit: '×',
    reference: bare('saturated', 'p50'),
  });
  emitResult({
    id: 'ack.saturated.answers-drained',
    figure: 'saturated: last answer after the last ack (answers queue behind acks)',
    value: median(drained),
    unit: 'ms',
    reference: `all ${REQUESTS} answers of each load arrived; ${rounds.length} rounds ${range(drained, 0)} ms`,
  });
  emitResult({
    id: 'ack.slow-service.answers-drained',
    figure: 'slow service: last answer after the last ack (answers wait on the service)',
    value: median(slowDrained),
    unit: 'ms',
    reference: `all ${REQUESTS} answers arrived; ${rounds.length} rounds ${range(slowDrained, 0)} ms`,
  });
  if (cpu('ours').length > 0) {
    emitResult({
      id: 'ack.cpu-per-request',
      figure: 'app CPU per /cngn balance (ack and answer)',
      value: median(cpu('ours')),
      unit: 'µs',
      reference:
        `bare Bolt ${median(cpu('bare')).toFixed(0)} µs (ack only), ${median(cpuRatios('bare')).toFixed(2)}× ` +
        `(rounds ${range(cpuRatios('bare'))}); Bolt answering through respond() ${median(cpu('answering')).toFixed(0)} µs`,
    });
  }
  if (cpuRatios('bare').length > 0) {
    emitResult({
      id: 'ack.cpu-per-request-ratio',
      figure: 'app CPU per /cngn balance, ratio to bare Bolt in the same round',
      value: median(cpuRatios('bare')),
      unit: '×',
      target: { op: '<', value: 2 },
      reference: `${rounds.length} rounds ${range(cpuRatios('bare'))}; to Bolt answering through respond(): ${median(cpuRatios('answering')).toFixed(2)}× (rounds ${range(cpuRatios('answering'))})`,
    });
  }
  return {
    rounds,
    lines: [
      `ack latency over ${REQUESTS} signed /cngn balance requests, loopback, ${pin.label}; median of ${rounds.length} round(s) (range):`,
      `  paced at ${RATE}/s, each timed from when it left (target: p99 < 100 ms; the ratio is a reference):`,
      row('cngn-desk', 'paced', 'ours'),
      row('bare Bolt', 'paced', 'bare'),
      ratios('paced'),
      `  saturated, ${CONCURRENCY} in flight back to back (answers may queue, acks may not; the ratio is a reference):`,
      row('cngn-desk', 'saturated', 'ours'),
      row('bare Bolt', 'saturated', 'bare'),
      ratios('saturated'),
      `  slow service, ${slowLoad}, back to back (target: p99 < 300 ms; bare Bolt calls no service):`,
      row('cngn-desk', 'slow', 'ours'),
      row('bare Bolt', 'slow', 'bare'),
      cpuLine,
      answersLine,
      `  ${cores} cores, load average ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after, node ${process.version}`,
    ],
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { lines } = await benchAck();
  for (const line of lines) console.log(line);
  process.exit(0);
}

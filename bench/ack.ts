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
import { createWriteStream } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import {
  type AppFigures,
  CONCURRENCY,
  measure,
  measureSlow,
  RATE,
  REQUESTS,
  SLOW_CONCURRENCY,
  type SlackInfo,
} from './ack-loads.js';
import { pinning } from './pinning.js';
import { loaderFor, type ProductionNode, productionNode, productionScript } from './production.js';
import { emitResult } from './results.js';

const SERVICE_DELAY_MS = Number(process.env.BENCH_ACK_SERVICE_DELAY_MS ?? 2_000);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ACK_ROUNDS ?? 3));

export interface AckBenchResult {
  lines: string[];
  rounds: Array<{ ours: AppFigures; bare: AppFigures; answering: AppFigures }>;
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

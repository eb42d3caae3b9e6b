// Ack latency: signed `/cngn balance` requests against our bot (real Bolt app, embedded sandbox, fake
// Slack) and against a bare Bolt app whose /cngn does nothing but ack, on the same machine. Each app
// runs in a child process; this process sends the load and a third one plays Slack's Web API.
//
// Two loads, both printed:
// - paced: requests sent at a steady rate (BENCH_ACK_RATE per second, far above any team's use),
//   each timed from when it left. Sending never waits for an answer (a pool of 32 connections), so a
//   slow server's queue still shows; timing from the due time instead would add the load's own timer
//   jitter to both apps. This is what Slack sees,
//   and the figure the ≤ 1.5 ratio target is judged on.
// - saturated: BENCH_ACK_CONCURRENCY requests in flight back to back. Every request's answer then
//   competes for the CPU with the next acks, so this measures throughput more than ack latency.
// Where `taskset` exists and there are two or more CPUs, the app under test gets a CPU of its own
// and the load and the fake Slack share the rest, so neither app is slowed by the harness.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { SIGNING_SECRET } from '../test/support/harness.js';
import { signSlackBody } from '../test/support/slack-requests.js';

const REQUESTS = Number(process.env.BENCH_ACK_REQUESTS ?? 2_000);
const CONCURRENCY = Number(process.env.BENCH_ACK_CONCURRENCY ?? 4);
const RATE = Number(process.env.BENCH_ACK_RATE ?? 200);
const WARMUP = 50;

interface Figures {
  p50: number;
  p99: number;
}

interface AppFigures {
  paced: Figures;
  saturated: Figures;
}

export interface AckBenchResult {
  lines: string[];
  ours: AppFigures;
  bare: AppFigures;
}

/** CPU pinning: the app on the last CPU, everything else on the others (when taskset exists). */
function pinning(): { app: string[]; rest: string[]; restCpus?: string; label: string } {
  const cpus = availableParallelism();
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
  } catch {
    return { app: [], rest: [], label: 'not pinned (no taskset)' };
  }
  if (cpus < 2) return { app: [], rest: [], label: 'not pinned (one CPU)' };
  const last = cpus - 1;
  const others = cpus === 2 ? '0' : `0-${last - 1}`;
  return {
    app: ['taskset', '-c', String(last)],
    rest: ['taskset', '-c', others],
    restCpus: others,
    label: `app pinned to CPU ${last}, load and fake Slack on CPU ${others}`,
  };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

function requestFor(responseUrl: string): { body: string; headers: Record<string, string> } {
  const body = new URLSearchParams({
    command: '/cngn',
    text: process.env.BENCH_TEXT ?? 'balance',
    user_id: 'UBENCH',
    channel_id: 'CBENCH',
    team_id: 'T1',
    response_url: responseUrl,
    trigger_id: 'bench',
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

async function measure(baseUrl: string, responseUrl: string): Promise<AppFigures> {
  const pool = new Pool(baseUrl, { connections: 32 });
  /** Sends one signed command; resolves with the ms until its ack was read. */
  const send = async (): Promise<number> => {
    const { body, headers } = requestFor(responseUrl);
    const started = performance.now();
    const response = await pool.request({ path: '/slack/events', method: 'POST', headers, body });
    await response.body.dump();
    if (response.statusCode !== 200) throw new Error(`ack answered ${response.statusCode}`);
    return performance.now() - started;
  };
  for (let i = 0; i < WARMUP; i++) await send();

  // Paced: request i leaves at start + i / RATE, whatever happened to the earlier ones.
  const pacedTimes: Promise<number>[] = [];
  const start = performance.now();
  for (let i = 0; i < REQUESTS; i++) {
    const due = start + (i * 1_000) / RATE;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    pacedTimes.push(send());
  }
  const paced = figures(await Promise.all(pacedTimes));

  // Saturated: CONCURRENCY in flight, each sent as soon as the previous one's ack is read.
  const saturatedTimes: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < REQUESTS) saturatedTimes.push(await send());
    }),
  );
  await pool.close();
  return { paced, saturated: figures(saturatedTimes) };
}

/** Starts a bench script in its own process (under `prefix`, e.g. taskset) and reads its JSON line. */
async function spawnServer<T>(
  args: string[],
  prefix: string[] = [],
): Promise<{ info: T; child: ChildProcess }> {
  const node = [process.execPath, '--import', 'tsx', ...args];
  const [command = process.execPath, ...rest] = [...prefix, ...node];
  const child = spawn(command, rest, { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(createInterface({ input: child.stdout as NodeJS.ReadableStream }), 'line')) as [
    string,
  ];
  return { info: JSON.parse(line) as T, child };
}

async function stopChild(child: ChildProcess): Promise<void> {
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

async function benchApp(mode: 'ours' | 'bare', slack: SlackInfo, pin: string[]): Promise<AppFigures> {
  const app = await spawnServer<{ url: string }>(['bench/ack-server.ts', mode, slack.apiUrl], pin);
  try {
    return await measure(app.info.url, slack.responseUrl);
  } finally {
    await stopChild(app.child);
  }
}

interface SlackInfo {
  apiUrl: string;
  responseUrl: string;
}

export async function benchAck(): Promise<AckBenchResult> {
  const pin = pinning();
  // This process (the load) joins the fake Slack on the CPUs the app does not use.
  if (pin.restCpus)
    execFileSync('taskset', ['-c', '-p', pin.restCpus, String(process.pid)], { stdio: 'ignore' });
  const slack = await spawnServer<SlackInfo>(['bench/slack-server.ts'], pin.rest);
  let ours: AppFigures;
  let bare: AppFigures;
  try {
    ours = await benchApp('ours', slack.info, pin.app);
    bare = await benchApp('bare', slack.info, pin.app);
  } finally {
    await stopChild(slack.child);
  }

  const f = (n: number) => n.toFixed(2);
  const row = (name: string, x: Figures) => `    ${name} : p50 ${f(x.p50)} ms   p99 ${f(x.p99)} ms`;
  const ratios = (a: Figures, b: Figures) =>
    `    ratio     : p50 ${(a.p50 / b.p50).toFixed(2)}   p99 ${(a.p99 / b.p99).toFixed(2)}`;
  return {
    ours,
    bare,
    lines: [
      `ack latency over ${REQUESTS} signed /cngn balance requests, loopback, ${pin.label}:`,
      `  paced at ${RATE}/s, each timed from when it left (target: ratio ≤ 1.5, p99 < 50 ms):`,
      row('cngn-desk', ours.paced),
      row('bare Bolt', bare.paced),
      ratios(ours.paced, bare.paced),
      `  saturated, ${CONCURRENCY} in flight back to back (answers compete with acks for the CPU):`,
      row('cngn-desk', ours.saturated),
      row('bare Bolt', bare.saturated),
      ratios(ours.saturated, bare.saturated),
    ],
  };
}

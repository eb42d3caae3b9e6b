// The loads of the ack bench (bench/ack.ts says what each measures and why): signed `/cngn` requests
// sent paced or back to back, each timed until its ack; the answers counted where the fake Slack
// received them; and the app process's CPU time per request, read from /proc.

import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Pool, request } from 'undici';
import { SIGNING_SECRET } from '../test/support/harness.js';
import { signSlackBody } from '../test/support/slack-requests.js';

export const REQUESTS = Number(process.env.BENCH_ACK_REQUESTS ?? 2_000);
export const CONCURRENCY = Number(process.env.BENCH_ACK_CONCURRENCY ?? 4);
export const RATE = Number(process.env.BENCH_ACK_RATE ?? 200);
export const SLOW_CONCURRENCY = Number(process.env.BENCH_ACK_SLOW_CONCURRENCY ?? 50);
const WARMUP = 50;
const CLOCK_TICKS = 100; // USER_HZ on Linux, the unit of /proc/<pid>/stat times

interface Figures {
  p50: number;
  p99: number;
}

export interface AppFigures {
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

export interface SlackInfo {
  apiUrl: string;
  /** A response_url is this followed by a name; answers are counted per name. */
  responseBase: string;
  countUrl: string;
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
export async function measure(
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
export async function measureSlow(
  baseUrl: string,
  slack: SlackInfo,
  run: string,
  answers: boolean,
): Promise<{ slow: Figures; slowAnswersDrainedMs: number | undefined }> {
  const load = sender(baseUrl, 1); // back to back only: each worker's own connection
  load.answerTo(`${slack.responseBase}${run}-slow-warmup`);
  // Spread over the load's own connections, so all of them are open before it is timed: connections
  // opened at once into the bot under this load wait to be read, while each request's own ack stays
  // fast, and the p99 would measure that wait (docs/decisions/ack-cost-per-request.md).
  await backToBack(load.send, Math.max(WARMUP, SLOW_CONCURRENCY), SLOW_CONCURRENCY);
  load.answerTo(`${slack.responseBase}${run}-slow`);
  const times = await backToBack(load.send, REQUESTS, SLOW_CONCURRENCY);
  const slowAnswersDrainedMs = answers ? await answersIn(slack, `${run}-slow`, REQUESTS) : undefined;
  await load.close();
  return { slow: figures(times), slowAnswersDrainedMs };
}

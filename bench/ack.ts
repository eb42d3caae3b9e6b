// Ack latency: signed `/cngn balance` requests against our bot (real Bolt app, embedded sandbox, fake
// Slack) and against a bare Bolt app whose /cngn does nothing but ack, on the same machine. Each app
// runs in a child process; this process sends the load and plays Slack's Web API.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { Pool } from 'undici';
import { SIGNING_SECRET } from '../test/support/harness.js';
import { signSlackBody } from '../test/support/slack-requests.js';

const REQUESTS = Number(process.env.BENCH_ACK_REQUESTS ?? 1_000);
const CONCURRENCY = Number(process.env.BENCH_ACK_CONCURRENCY ?? 4);
const WARMUP = 50;

export interface AckBenchResult {
  lines: string[];
  ours: { p50: number; p99: number };
  bare: { p50: number; p99: number };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

async function measure(baseUrl: string, responseUrl: string): Promise<{ p50: number; p99: number }> {
  const pool = new Pool(baseUrl, { connections: CONCURRENCY });
  const once = async (): Promise<number> => {
    const body = new URLSearchParams({
      command: '/cngn',
      text: process.env.BENCH_TEXT ?? 'balance',
      user_id: 'UBENCH',
      channel_id: 'CBENCH',
      team_id: 'T1',
      response_url: responseUrl,
      trigger_id: 'bench',
    }).toString();
    const started = performance.now();
    const response = await pool.request({
      path: '/slack/events',
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        ...signSlackBody(SIGNING_SECRET, body),
      },
      body,
    });
    await response.body.dump();
    const elapsed = performance.now() - started;
    if (response.statusCode !== 200) throw new Error(`ack answered ${response.statusCode}`);
    return elapsed;
  };
  for (let i = 0; i < WARMUP; i++) await once();
  const times: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < REQUESTS) times.push(await once());
    }),
  );
  await pool.close();
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}

/** Starts a bench script in its own process and reads the one JSON line it prints. */
async function spawnServer<T>(args: string[]): Promise<{ info: T; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(createInterface({ input: child.stdout as NodeJS.ReadableStream }), 'line')) as [
    string,
  ];
  return { info: JSON.parse(line) as T, child };
}

async function serve(
  mode: 'ours' | 'bare',
  slackApiUrl: string,
): Promise<{ url: string; child: ChildProcess }> {
  const { info, child } = await spawnServer<{ url: string }>(['bench/ack-server.ts', mode, slackApiUrl]);
  return { url: info.url, child };
}

async function stopChild(child: ChildProcess): Promise<void> {
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

export async function benchAck(): Promise<AckBenchResult> {
  // Three processes besides this one's load: the app, and the fake Slack it answers to.
  const slack = await spawnServer<{ apiUrl: string; responseUrl: string }>(['bench/slack-server.ts']);
  const mine = await serve('ours', slack.info.apiUrl);
  const ours = await measure(mine.url, slack.info.responseUrl);
  await stopChild(mine.child);
  const bareApp = await serve('bare', slack.info.apiUrl);
  const bareResult = await measure(bareApp.url, slack.info.responseUrl);
  await stopChild(bareApp.child);
  await stopChild(slack.child);

  const f = (n: number) => n.toFixed(2);
  const ratio = ours.p99 / bareResult.p99;
  const ratio50 = ours.p50 / bareResult.p50;
  return {
    ours,
    bare: bareResult,
    lines: [
      `ack latency over ${REQUESTS} signed /cngn balance requests (${CONCURRENCY} at a time, loopback):`,
      `  cngn-desk : p50 ${f(ours.p50)} ms   p99 ${f(ours.p99)} ms`,
      `  bare Bolt : p50 ${f(bareResult.p50)} ms   p99 ${f(bareResult.p99)} ms`,
      `  ratio     : p50 ${ratio50.toFixed(2)}   p99 ${ratio.toFixed(2)} (target ≤ 1.5; p99 target < 50 ms)`,
    ],
  };
}

// The soak: the production bundle (dist/main.js with npm start's node flags) in a child process on a
// SQLite store of its own, the sandbox as its custody service and a fake Slack, under steady mixed load
// (soak-load.ts) for the given minutes. At the end of each minute the bot reports its memory and
// event-loop delay over its IPC channel (soak-probe.mjs, loaded only here) and the store's files are
// measured; soak-judge.ts decides. The bot runs alone in its process, so its figures are its own.
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { productionLabel, productionNode } from '../../bench/production.js';
import { buildIfStale } from '../../scripts/build.mjs';
import { networksFor } from '../../src/sandbox/catalog.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { FakeSlack } from '../../test/support/fake-slack.js';
import { SIGNING_SECRET } from '../../test/support/harness.js';
import { APPROVALS_CHANNEL, APPROVERS, freePort, type Line, REQUESTER, sleep } from '../support.js';
import {
  DELAY_P99_LIMIT_MS,
  GROWTH_LIMIT,
  judgeSoak,
  noOperations,
  OPERATIONS,
  type Operation,
  type OperationCounts,
  type SoakRun,
  type SoakSample,
  type SoakVerdict,
  soakFigure,
  soakTable,
} from './soak-judge.js';
import { type LoadState, OPERATION_TIMEOUT_MS, operationsAt, type Target } from './soak-load.js';

const DIST_MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
const PROBE = new URL('./soak-probe.mjs', import.meta.url).href;
const ALERTS_CHANNEL = 'CALERTS';
const STORE_FILE = 'soak.sqlite';
const TICK_MS = 1_000;
/** More operations than this still waiting: the bot fell behind, and the next ones are not started. */
const MAX_WAITING = 60;
const SAMPLE_TIMEOUT_MS = 15_000;

export interface SoakResult {
  line: Omit<Line, 'seconds'>;
  run: SoakRun;
  verdict: SoakVerdict;
  /** How the bot ran: the node flags and settings, for the report. */
  setup: string;
}

interface BotProcess {
  child: ChildProcess;
  url: string;
  exited: Promise<string>;
  /** Warning and error lines the bot logged, and the first few of them. */
  logged: { warn: number; error: number; first: string[] };
}

interface ProbeAnswer {
  type: 'soak:sample';
  rssMb: number;
  heapMb: number;
  heapBeforeGcMb: number;
  codeMb: number;
  delay: SoakSample['delay'];
  gc: boolean;
}

function levelOf(line: string): 'warn' | 'error' | undefined {
  try {
    const level = (JSON.parse(line) as { level?: unknown }).level;
    if (level === 'error' || level === 'fatal' || (typeof level === 'number' && level >= 50)) return 'error';
    if (level === 'warn' || level === 40) return 'warn';
  } catch {
    // Not a JSON line (a crash's stack, say): counted as an error.
    return line.trim() ? 'error' : undefined;
  }
  return undefined;
}

/** dist/main.js as the release runs it, forked with an IPC channel and the probe loaded first. */
async function startBotProcess(sandbox: Sandbox, slack: FakeSlack, dir: string): Promise<BotProcess> {
  const port = await freePort();
  const production = productionNode();
  const child = fork(DIST_MAIN, [], {
    execArgv: [...production.flags, '--expose-gc', '--import', PROBE],
    env: {
      PATH: process.env.PATH,
      ...production.env,
      SLACK_BOT_TOKEN: 'xoxb-soak',
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: slack.apiUrl,
      PORT: String(port),
      ADMIN_PORT: '0',
      CNGN_APPROVALS_CHANNEL: APPROVALS_CHANNEL,
      CNGN_ALERTS_CHANNEL: ALERTS_CHANNEL,
      CNGN_APPROVERS: [...APPROVERS, REQUESTER].join(','),
      CNGN_APPROVAL_TIERS: '0:1',
      CNGN_BASE_URL: sandbox.baseUrl,
      CNGN_API_KEY: sandbox.apiKey,
      CNGN_ENCRYPTION_KEY: sandbox.encryptionKey,
      CNGN_PRIVATE_KEY_FILE: sandbox.privateKeyFile,
      CNGN_WEBHOOK_SECRET: sandbox.webhookSecret,
      // The real service allows 20 calls a minute; the soak lifts that (here and in the sandbox) so
      // each read does its work instead of being refused or answered from the cache.
      CNGN_RATE_LIMIT: '100000/60s',
      STORE_URL: `sqlite://${join(dir, STORE_FILE)}`,
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  const exited = once(child, 'exit').then(([code, signal]) =>
    signal ? `killed by ${String(signal)}` : `exit code ${String(code)}`,
  );
  const logged: BotProcess['logged'] = { warn: 0, error: 0, first: [] };
  let tail = '';
  const running = new Promise<void>((resolve, reject) => {
    if (!child.stderr) throw new Error('the bot has no stderr pipe');
    createInterface({ input: child.stderr }).on('line', (line) => {
      tail = `${tail}${line}\n`.slice(-2_000);
      if (line.includes('cngn-desk is running')) resolve();
      const level = levelOf(line);
      if (!level) return;
      logged[level] += 1;
      if (logged.first.length < 3) logged.first.push(line.slice(0, 300));
    });
    void exited.then((how) => reject(new Error(`the bot stopped (${how}) before it was running: ${tail}`)));
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  try {
    await running;
  } finally {
    clearTimeout(timer);
  }
  return { child, url: `http://127.0.0.1:${port}`, exited, logged };
}

/** Ask the bot for its figures; undefined when it does not answer in time. */
async function probe(child: ChildProcess): Promise<ProbeAnswer | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.off('message', onMessage);
      resolve(undefined);
    }, SAMPLE_TIMEOUT_MS);
    const onMessage = (message: unknown) => {
      if ((message as { type?: unknown })?.type !== 'soak:sample') return;
      clearTimeout(timer);
      child.off('message', onMessage);
      resolve(message as ProbeAnswer);
    };
    child.on('message', onMessage);
    child.send({ type: 'soak:sample' });
  });
}

/** The store's database file, and its write-ahead log beside it. */
function storeSize(dir: string): { storeMb: number; walMb: number } {
  const mb = (name: string) => statSync(join(dir, name)).size / (1024 * 1024);
  let walMb = 0;
  for (const name of readdirSync(dir)) {
    if (name === `${STORE_FILE}-wal` || name === `${STORE_FILE}-shm`) walMb += mb(name);
  }
  return { storeMb: mb(STORE_FILE), walMb };
}

/** The fake Slack keeps every call; the load only looks at recent ones. */
function forgetOldCalls(slack: FakeSlack, olderThanMs: number): void {
  const before = Date.now() - olderThanMs;
  const keep = slack.calls.findIndex((c) => c.at >= before);
  slack.calls.splice(0, keep === -1 ? slack.calls.length : keep);
}

/**
 * `minutes` of load, a sample at the end of each. `minuteMs` shortens a "minute" (a quick look at the
 * machinery, not a soak); `print` gets each minute's row as it is taken.
 */
export async function soak(
  minutes: number,
  dir: string,
  options: { minuteMs?: number; print?: (line: string) => void } = {},
): Promise<SoakResult> {
  const minuteMs = options.minuteMs ?? 60_000;
  const print = options.print ?? (() => {});
  const setup = `dist/main.js ${productionLabel()}, SQLite store, sandbox as the service, fake Slack`;
  const base = {
    line: 'soak',
    on: `${minutes} min`,
    target: `RSS and heap +≤ ${GROWTH_LIMIT * 100} % after minute 5, delay p99 ≤ ${DELAY_P99_LIMIT_MS} ms, 0 failed`,
  };
  if ((await buildIfStale()) === 'built') print('built dist/main.js');
  const sandbox = await startSandbox({ settleDelayMs: 5_000, rateLimit: false });
  const slack = await FakeSlack.start();
  const network = networksFor('test').find((n) => !n.isDisabled);
  if (!network) throw new Error('the sandbox has no enabled network');
  let bot: BotProcess | undefined;
  try {
    bot = await startBotProcess(sandbox, slack, dir);
    sandbox.setWebhookUrl(`${bot.url}/webhooks/cngn`);
    const target: Target = {
      sender: { baseUrl: bot.url, signingSecret: SIGNING_SECRET },
      slack,
      sandbox,
      network: { id: network.id, name: network.name },
    };
    const state: LoadState = { filings: 0, references: [] };
    let counts: OperationCounts = noOperations();
    const failures: string[] = [];
    const done = (op: Operation, error?: unknown) => {
      if (error === undefined) counts[op].ok += 1;
      else {
        counts[op].failed += 1;
        if (failures.length < 5)
          failures.push(`${op}: ${error instanceof Error ? error.message : String(error)}`);
      }
    };
    const waiting = new Set<Promise<void>>();
    let skipped = 0;
    let botExit: string | undefined;
    let stopping = false;
    void bot.exited.then((how) => {
      if (!stopping) botExit ??= how;
    });

    const samples: SoakSample[] = [];
    print(`soak: ${minutes} min against ${setup}`);
    const started = performance.now();
    let tick = 0;
    const ticker = setInterval(() => {
      if (waiting.size > MAX_WAITING) {
        skipped += 1;
        return;
      }
      for (const work of operationsAt(tick, target, state, done)) {
        waiting.add(work);
        void work.finally(() => waiting.delete(work));
      }
      tick += 1;
    }, TICK_MS);
    try {
      for (let minute = 1; minute <= minutes && !botExit; minute++) {
        await sleep(Math.max(0, started + minute * minuteMs - performance.now()));
        if (botExit) break;
        const operations = counts;
        counts = noOperations();
        const figures = await probe(bot.child);
        if (!figures) {
          print(`minute ${minute}: the bot gave no figures within ${SAMPLE_TIMEOUT_MS / 1000} s`);
          continue;
        }
        if (!figures.gc) throw new Error('the bot was not started with --expose-gc');
        samples.push({
          minute,
          rssMb: figures.rssMb,
          heapMb: figures.heapMb,
          heapBeforeGcMb: figures.heapBeforeGcMb,
          codeMb: figures.codeMb,
          delay: figures.delay,
          ...storeSize(dir),
          loadAverage: loadavg()[0] ?? 0,
          operations,
        });
        const rows = soakTable(samples);
        if (minute === 1) print(`${rows[0]}\n${rows[1]}`);
        print(rows.at(-1) ?? '');
        forgetOldCalls(slack, 2 * OPERATION_TIMEOUT_MS);
      }
    } finally {
      clearInterval(ticker);
    }
    // What was still under way ends (or times out) and counts in the last minute.
    await Promise.race([Promise.allSettled([...waiting]), sleep(2 * OPERATION_TIMEOUT_MS)]);
    const last = samples.at(-1);
    if (last) {
      for (const op of OPERATIONS) {
        last.operations[op].ok += counts[op].ok;
        last.operations[op].failed += counts[op].failed;
      }
    }

    stopping = true;
    bot.child.kill('SIGTERM');
    const stopped = await Promise.race([
      bot.exited,
      sleep(20_000).then(() => 'still running 20 s after SIGTERM'),
    ]);
    if (!botExit && stopped !== 'exit code 0') botExit = `on SIGTERM: ${stopped}`;

    const run: SoakRun = { minutes, samples, skipped, ...(botExit ? { botExit } : {}) };
    const verdict = judgeSoak(run);
    const logged = `bot logged ${bot.logged.error} error and ${bot.logged.warn} warning lines${bot.logged.first.length ? ` (first: ${bot.logged.first[0]})` : ''}`;
    const note = [...verdict.reasons, ...failures.slice(0, 3), ...verdict.notes, logged].join('; ');
    return {
      line: { ...base, figure: soakFigure(run, verdict), status: verdict.status, note },
      run,
      verdict,
      setup,
    };
  } finally {
    if (bot && bot.child.exitCode === null && bot.child.signalCode === null) {
      bot.child.kill('SIGKILL');
      await bot.exited;
    }
    await slack.stop();
    await sandbox.stop();
  }
}

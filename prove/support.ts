// Shared pieces of the proof suite: the result lines, the profile, the stores each line runs on, and
// a bot replica (the real startBot) against a sandbox and a fake Slack of the caller's choosing.
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { auditStateFiles } from '../src/audit/location.js';
import type { Config } from '../src/config.js';
import { silentLogger } from '../src/log.js';
import type { Sandbox } from '../src/sandbox/index.js';
import { clearStore, createStore, type Store } from '../src/store/index.js';
import { type Bot, startBot } from '../src/wiring/bot.js';
import type { FakeSlack } from '../test/support/fake-slack.js';
import { SIGNING_SECRET, testConfig } from '../test/support/harness.js';
import { createTestDatabase, POSTGRES_URL, postgresAvailable } from '../test/support/postgres.js';
import { REDIS_URL, redisAvailable } from '../test/support/redis.js';
import {
  postSigned,
  type SlackSender,
  slackRetry,
  viewSubmissionBody,
  withdrawValues,
} from '../test/support/slack-requests.js';

export type Profile = 'full' | 'short';

export interface Line {
  /** What is proven, e.g. "races". */
  line: string;
  /** Which store or endpoint the figure is for, if any. */
  on: string;
  /** The target, in words: "exactly 1000 service calls". */
  target: string;
  /** What was measured. */
  figure: string;
  status: 'pass' | 'fail' | 'skipped';
  /** Why it failed or was skipped, when it did. */
  note?: string;
  seconds: number;
}

export const REQUESTER = 'UREQ';
export const APPROVERS = ['UAPPROVERA', 'UAPPROVERB', 'UAPPROVERC'] as const;
export const APPROVALS_CHANNEL = 'CAPPROVALS';
export const DEST = '0x52908400098527886E0F7030069857D2E4169EE7';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Wait for background work to make a condition true, up to `ms`. */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what: string,
  ms = 30_000,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

export async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const port = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Run `fn` over items with at most `limit` at a time. */
export async function inBatches<T, R>(items: T[], limit: number, fn: (item: T, i: number) => Promise<R>) {
  const results: R[] = new Array(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i] as T, i);
    }
  });
  await Promise.all(workers);
  return results;
}

/** The Redis database (of 16) lines with a child process use; the prove suite empties its cngn-desk keys. */
export const PROVE_REDIS_DB = 13;

export type StoreName = 'SQLite' | 'Redis' | 'PostgreSQL';

/** A store to run a line on: its URL for a child process, and `open` for one in this process. */
export interface ProveStore {
  name: StoreName;
  url: string;
  open(): Promise<Store>;
  /** Remove what the line made. */
  dispose(): Promise<void>;
}

/**
 * The store, or why it is skipped. Under CI=true a missing Redis or PostgreSQL throws (the line fails).
 * `tag` keeps lines apart: every store has a prefix (or a database, or a file) of its own.
 */
export async function proveStore(
  name: StoreName,
  tag: string,
  dir: string,
  child = false,
): Promise<ProveStore | string> {
  if (name === 'SQLite') {
    const url = `sqlite://${dir}/${tag}.sqlite`;
    return { name, url, open: () => createStore(url), dispose: async () => {} };
  }
  if (name === 'Redis') {
    if (!(await redisAvailable())) return 'skipped: no Redis';
    if (!child) {
      const prefix = `cngn-desk-prove:${tag}:${process.pid}:${Date.now()}`;
      return {
        name,
        url: REDIS_URL,
        open: () => createStore(REDIS_URL, { prefix }),
        dispose: async () => {
          const store = await createStore(REDIS_URL, { prefix });
          await clearStore(store);
          await store.close();
        },
      };
    }
    // A child process runs src/main.ts, which keeps the default prefix: the line gets a Redis database
    // of its own instead, emptied of that prefix before and after, and its audit head marks with it (a
    // mark left from an earlier run, of a chain since emptied, would be a head gone missing).
    const url = new URL(REDIS_URL);
    url.pathname = `/${PROVE_REDIS_DB}`;
    const clear = async () => {
      const store = await createStore(url.toString());
      await clearStore(store);
      await store.close();
      const marks = auditStateFiles(url.toString())?.marksFile;
      if (marks) rmSync(marks, { force: true });
    };
    await clear();
    return { name, url: url.toString(), open: () => createStore(url.toString()), dispose: clear };
  }
  if (!(await postgresAvailable())) return `skipped: no PostgreSQL at ${new URL(POSTGRES_URL).host}`;
  const database = await createTestDatabase();
  return { name, url: database.url, open: () => createStore(database.url), dispose: database.drop };
}

export interface Replica {
  bot: Bot;
  sender: SlackSender;
  store: Store;
  stop(): Promise<void>;
}

export interface ReplicaOptions {
  sandbox: Sandbox;
  slack: FakeSlack;
  store: Store;
  tiers?: string;
  now?: () => Date;
  config?: Partial<Omit<Config, 'slack'>>;
  clientTimeouts?: { connectMs?: number; headersMs?: number; bodyMs?: number };
}

/** One replica of the whole bot (startBot as start-up builds it) on the given store. */
export async function startReplica(options: ReplicaOptions): Promise<Replica> {
  const config = testConfig(options.slack.apiUrl, {
    port: await freePort(),
    approvers: [...APPROVERS, REQUESTER],
    approvalTiers: options.tiers ?? '0:1',
    webhookSecret: options.sandbox.webhookSecret,
    rateLimit: { limit: 1_000_000, windowSeconds: 60 },
    ...options.config,
  });
  const bot = await startBot({
    config,
    logger: silentLogger,
    store: options.store,
    // Given service credentials (the sandbox as a real service, as a child process sees it), no embedded one.
    ...(config.service.mode === 'service' ? {} : { sandbox: options.sandbox }),
    ...(options.now ? { now: options.now } : {}),
    clientTimeouts: options.clientTimeouts ?? { headersMs: 5_000, bodyMs: 5_000 },
  });
  return {
    bot,
    store: options.store,
    sender: { baseUrl: bot.url, signingSecret: SIGNING_SECRET },
    stop: () => bot.stop(),
  };
}

/**
 * File a withdrawal the way a person does (the modal's submission), and return its request id once
 * the approval message is posted. With `resend`, the one submission is delivered three times, as Slack
 * does when its first answer is late: at once to both replicas (the second marked as Slack's retry),
 * then once more after both were answered.
 */
export async function fileWithdrawal(
  sender: SlackSender,
  slack: FakeSlack,
  network: { id: string; name: string },
  amount: string,
  resend?: SlackSender,
): Promise<string> {
  const viewId = `V${randomUUID()}`;
  const body = viewSubmissionBody({
    callbackId: 'withdraw.submit',
    userId: REQUESTER,
    viewId,
    privateMetadata: JSON.stringify({ networks: [network.id] }),
    values: withdrawValues({ amount, network, address: DEST }),
  });
  const answered = (n: number) => () =>
    slack.callsTo('views.update').filter((c) => c.body.view_id === viewId).length >= n;
  const deliveries = [postSigned(sender, body)];
  if (resend) deliveries.push(postSigned(resend, body, { headers: slackRetry(1) }));
  for (const response of await Promise.all(deliveries)) {
    if (response.status !== 200) throw new Error(`submission answered ${response.status}`);
  }
  // The amount is unique per request in every line, so the approval message names it.
  const shown = Number(amount).toLocaleString('en-US', { minimumFractionDigits: 2 });
  const posted = await slack.waitFor(
    'chat.postMessage',
    (c) => c.body.channel === APPROVALS_CHANNEL && !c.body.thread_ts && String(c.body.text).includes(shown),
    30_000,
  );
  const id = /AR-[0-9A-F]+/.exec(String(posted.body.text))?.[0];
  if (!id) throw new Error(`no request id in "${String(posted.body.text)}"`);
  if (resend) {
    await waitFor(answered(2), 'both deliveries answered');
    const again = await postSigned(sender, body);
    if (again.status !== 200) throw new Error(`submission answered ${again.status}`);
    await waitFor(answered(3), 'the third delivery answered');
  }
  return id;
}

/** How many requests were filed: the approval messages posted in the channel, one per request. */
export function filedRequests(slack: FakeSlack): number {
  const ids = slack
    .callsTo('chat.postMessage')
    .filter((c) => c.body.channel === APPROVALS_CHANNEL && !c.body.thread_ts)
    .map((c) => /AR-[0-9A-F]+/.exec(String(c.body.text))?.[0]);
  return new Set(ids.filter(Boolean)).size;
}

/** The amounts the sandbox received in POSTs to `path`, each with how many times. */
export function postsByAmount(sandbox: Sandbox, path: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const request of sandbox.requests) {
    if (request.method !== 'POST' || request.path !== path) continue;
    const amount = String((request.plainBody as { amount?: unknown } | undefined)?.amount);
    counts.set(amount, (counts.get(amount) ?? 0) + 1);
  }
  return counts;
}

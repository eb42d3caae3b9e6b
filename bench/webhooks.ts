// Webhook figures: intake (signed deliveries verified, stored durably and acknowledged per second) and
// end-to-end delivery of a burst through a fake Slack that rate-limits each channel (token bucket,
// 1 message/s with a burst allowance, answering 429 + Retry-After) — all delivered, none twice.
// Two bursts: the realistic one, every alert to the one alerts channel (measured on a smaller burst and
// projected to 1,000, since 1,000 at 1 message/s takes over 16 minutes), and the same 1,000 spread over
// 50 channels by a custom route — a figure for the deliverer's parallelism, not a real set-up.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { Pool } from 'undici';
import { webhookMessage } from '../src/slack/blocks/webhook-message.js';
import { createStore, type Store } from '../src/store/index.js';
import { alertsClient, createWebhooks, signatureFor, type Webhooks } from '../src/webhooks/index.js';

const SECRET = 'whsec_bench';
const INTAKE_EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 2_000);
const INTAKE_CONCURRENCY = 16;
const BURST_EVENTS = Number(process.env.BENCH_WEBHOOK_BURST ?? 1_000);
const ONE_CHANNEL_EVENTS = Number(process.env.BENCH_WEBHOOK_ONE_CHANNEL ?? 60);
const CHANNELS = 50;
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

async function sendAll(origin: string, bodies: string[], concurrency: number): Promise<number[]> {
  const pool = new Pool(origin, { connections: concurrency });
  const latencies: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < bodies.length) {
      const raw = bodies[next++]!;
      const started = performance.now();
      const response = await pool.request({
        path: '/webhooks/cngn',
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-cngn-signature': signatureFor(raw, SECRET) },
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

async function intake(storeUrl: string, label: string): Promise<string> {
  const store = await createStore(storeUrl, { prefix: `bench-intake-${Date.now()}` });
  const webhooks = createWebhooks({ store, environment: 'sandbox', secret: SECRET, render: webhookMessage });
  const server = await serve(webhooks);
  const bodies = Array.from({ length: INTAKE_EVENTS }, (_, i) =>
    body(i, `BENCH-IN-${i % 500}`, i < 500 ? 'deposit.received' : 'deposit.completed'),
  );
  const started = performance.now();
  const latencies = await sendAll(server.origin, bodies, INTAKE_CONCURRENCY);
  const seconds = (performance.now() - started) / 1000;
  const stored = await webhooks.outbox.pendingCount();
  await server.close();
  await store.close();
  if (stored !== INTAKE_EVENTS) throw new Error(`stored ${stored} of ${INTAKE_EVENTS}`);
  return `webhook intake (${label}): ${INTAKE_EVENTS} signed events, concurrency ${INTAKE_CONCURRENCY}: ${Math.round(INTAKE_EVENTS / seconds)} events/s stored+acked; p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms`;
}

/** A fake Slack with a token bucket per channel: answers 429 + Retry-After when a channel's bucket is empty. */
async function limitedSlack() {
  const buckets = new Map<string, { tokens: number; at: number }>();
  const posted = new Map<string, number>();
  let refused = 0;
  let counter = 0;
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const params = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
    const channel = params.get('channel') ?? '';
    const now = performance.now();
    const bucket = buckets.get(channel) ?? { tokens: BUCKET_BURST, at: now };
    bucket.tokens = Math.min(BUCKET_BURST, bucket.tokens + ((now - bucket.at) / 1000) * BUCKET_PER_SECOND);
    bucket.at = now;
    buckets.set(channel, bucket);
    if (bucket.tokens < 1) {
      refused += 1;
      const wait = Math.max(1, Math.ceil((1 - bucket.tokens) / BUCKET_PER_SECOND));
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(wait) });
      res.end(JSON.stringify({ ok: false, error: 'ratelimited' }));
      return;
    }
    bucket.tokens -= 1;
    const id = /bench-tx-(\d+)/.exec(params.get('blocks') ?? params.get('text') ?? '')?.[1] ?? '?';
    posted.set(id, (posted.get(id) ?? 0) + 1);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ok: true, channel, ts: `1700000000.${String(++counter).padStart(6, '0')}` }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    apiUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`,
    posted,
    refused: () => refused,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Burst {
  events: number;
  /** Spread over this many channels by a custom route; 1 = the alerts channel, routed as configured. */
  channels: number;
}

interface BurstFigures {
  acceptSeconds: number;
  deliverSeconds: number;
  delivered: number;
  twice: number;
  refused: number;
}

async function runBurst(storeUrl: string, shape: Burst): Promise<BurstFigures> {
  const slack = await limitedSlack();
  const store: Store = await createStore(storeUrl, { prefix: `bench-burst-${shape.channels}-${Date.now()}` });
  const webhooks = createWebhooks({
    store,
    environment: 'sandbox',
    secret: SECRET,
    render: webhookMessage,
    slack: alertsClient('xoxb-bench', slack.apiUrl),
    alertsChannel: 'C0',
    ...(shape.channels > 1
      ? { route: (entry) => `C${Number(/(\d+)$/.exec(entry.orderKey ?? '0')?.[1] ?? 0) % shape.channels}` }
      : {}),
    rescanMs: 1_000,
  });
  const server = await serve(webhooks);
  // The burst is accepted first (deliverer not started), then released at once onto the limiter.
  const bodies = Array.from({ length: shape.events }, (_, i) => body(i, `BENCH-B-${i}`));
  const acceptStarted = performance.now();
  await sendAll(server.origin, bodies, INTAKE_CONCURRENCY);
  const acked = performance.now();
  await webhooks.start();
  while (slack.posted.size < shape.events || (await webhooks.outbox.pendingCount()) > 0) {
    await new Promise((r) => setTimeout(r, 50));
  }
  const deliverSeconds = (performance.now() - acked) / 1000;
  await webhooks.stop();
  await server.close();
  await store.close();
  await slack.close();
  return {
    acceptSeconds: (acked - acceptStarted) / 1000,
    deliverSeconds,
    delivered: slack.posted.size,
    twice: [...slack.posted.values()].filter((n) => n > 1).length,
    refused: slack.refused(),
  };
}

const bucket = `fake Slack limit ${BUCKET_PER_SECOND} message/s per channel, burst ${BUCKET_BURST}`;

/** The real case: every alert to CNGN_ALERTS_CHANNEL. Measured on a smaller burst, projected to 1,000. */
async function oneChannelBurst(storeUrl: string, label: string): Promise<string> {
  const events = ONE_CHANNEL_EVENTS;
  const f = await runBurst(storeUrl, { events, channels: 1 });
  // After the burst allowance, the channel drains at the measured rate.
  const rate = (events - BUCKET_BURST) / f.deliverSeconds;
  const projected = (BURST_EVENTS - BUCKET_BURST) / rate;
  const floor = (BURST_EVENTS - BUCKET_BURST) / BUCKET_PER_SECOND;
  return (
    `webhook burst, one alerts channel (${label}, ${bucket}): ${events} events accepted in ${f.acceptSeconds.toFixed(1)} s, ` +
    `all posted ${f.deliverSeconds.toFixed(1)} s after the deliverer started (limiter floor ${((events - BUCKET_BURST) / BUCKET_PER_SECOND).toFixed(0)} s), ` +
    `${rate.toFixed(2)} messages/s after the burst allowance; delivered ${f.delivered}/${events}, posted twice ${f.twice}, 429s answered ${f.refused}. ` +
    `Projected for ${BURST_EVENTS.toLocaleString('en')} events: ${(projected / 60).toFixed(1)} min (floor ${(floor / 60).toFixed(1)} min)`
  );
}

/** Not a real set-up: the burst spread over 50 channels by a custom route, to show per-channel workers. */
async function spreadBurst(storeUrl: string, label: string): Promise<string> {
  const f = await runBurst(storeUrl, { events: BURST_EVENTS, channels: CHANNELS });
  const floor = Math.ceil(BURST_EVENTS / CHANNELS - BUCKET_BURST) / BUCKET_PER_SECOND;
  return (
    `webhook burst, spread over ${CHANNELS} channels by a custom bench route, not a real set-up (${label}, ${bucket}): ` +
    `${BURST_EVENTS} events accepted in ${f.acceptSeconds.toFixed(1)} s, then all posted ${f.deliverSeconds.toFixed(1)} s after the deliverer started ` +
    `(limiter floor ≈ ${floor} s); delivered ${f.delivered}/${BURST_EVENTS}, posted twice ${f.twice}, 429s answered ${f.refused}`
  );
}

export async function benchWebhooks(): Promise<WebhookBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'cngn-bench-wh-'));
  try {
    const lines = [
      await intake('memory://', 'memory store'),
      await intake(`sqlite://${join(dir, 'intake.sqlite')}`, 'SQLite store'),
      await oneChannelBurst(`sqlite://${join(dir, 'one-channel.sqlite')}`, 'SQLite store'),
      await spreadBurst(`sqlite://${join(dir, 'burst.sqlite')}`, 'SQLite store'),
    ];
    return { lines };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { lines } = await benchWebhooks();
  for (const line of lines) console.log(line);
}

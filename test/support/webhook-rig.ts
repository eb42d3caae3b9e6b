// A webhook rig for these tests: a store, FakeSlack, createWebhooks with the real builders, and the
// route served by a bare node:http server on 127.0.0.1 (the app-level tests go through the harness).
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { request } from 'undici';
import type { CngnEnvironment } from '../../src/cngn/api.js';
import type { Transaction } from '../../src/cngn/schemas.js';
import type { Logger } from '../../src/log.js';
import { alertDigest } from '../../src/slack/alerts/digest-blocks.js';
import { webhookMessage } from '../../src/slack/alerts/message-blocks.js';
import { slackAlerts } from '../../src/slack/alerts/sink.js';
import { createStore, type Store } from '../../src/store/index.js';
import {
  createWebhooks,
  type DigestRendering,
  type IntakeResult,
  signatureFor,
  type TransactionSource,
  type WebhookSubscriber,
  type Webhooks,
} from '../../src/webhooks/index.js';
import { FakeSlack } from './fake-slack.js';

export const SECRET = 'whsec_test_secret';

export interface RigOptions {
  storeUrl?: string;
  store?: Store;
  /** false: no deliverer (events only stored). */
  deliver?: boolean;
  fake?: FakeSlack;
  secret?: string | undefined;
  /** CNGN_WEBHOOK_SECRET_PREVIOUS, accepted beside `secret` during a rotation. */
  previousSecret?: string;
  /** null: no default alerts channel. */
  alertsChannel?: string | null;
  alertRoutes?: string;
  transactions?: TransactionSource;
  bankName?: (code: string) => Promise<string | undefined>;
  environment?: CngnEnvironment;
  /** The API key id the reconciler keeps its bookkeeping under. */
  keyId?: string;
  openSealed?: (sealed: string) => string;
  subscribers?: WebhookSubscriber[];
  reconcileGraceMs?: number;
  bodyLimitBytes?: number;
  /** How long storing may take before a 503 (the product's 1.5 s otherwise). */
  storeTimeoutMs?: number;
  /** The deliverer's waits, to observe them instead of waiting. */
  sleep?: (ms: number) => Promise<void>;
  /** The clock a delivery's signed time is judged by (real time otherwise). */
  now?: () => number;
  log?: Logger;
  /** Told of each delivery's result (metrics). */
  onIntake?: (result: IntakeResult) => void;
  /** false: one message per event whatever waits (no digest builder). */
  digests?: boolean;
  digestMaxEvents?: number;
  /** Digest builders other than the real ones (a builder that fails). */
  renderDigest?: DigestRendering;
}

export interface Rig {
  fake: FakeSlack;
  store: Store;
  webhooks: Webhooks;
  url: string;
  send(body: string | object, options?: { signature?: string | null; secret?: string }): Promise<Reply>;
  stop(options?: { keepFake?: boolean; keepStore?: boolean }): Promise<void>;
}

export interface Reply {
  status: number;
  body: string;
}

export async function startRig(options: RigOptions = {}): Promise<Rig> {
  const fake = options.fake ?? (await FakeSlack.start());
  const store =
    options.store ??
    (await createStore(options.storeUrl ?? 'memory://', {
      // A file store keeps one prefix so a restarted rig sees what the previous one stored.
      prefix: options.storeUrl ? 'wh' : `wh-${Math.random()}`,
    }));
  const secret = 'secret' in options ? options.secret : SECRET;
  const webhooks = createWebhooks({
    store,
    environment: options.environment ?? 'sandbox',
    keyId: options.keyId,
    secret,
    previousSecret: options.previousSecret,
    openSealed: options.openSealed,
    sink: options.deliver === false ? undefined : slackAlerts('xoxb-test', fake.apiUrl),
    render: (input) => webhookMessage(input),
    ...(options.digests === false ? {} : { renderDigest: options.renderDigest ?? alertDigest }),
    ...(options.digestMaxEvents ? { digestMaxEvents: options.digestMaxEvents } : {}),
    alertsChannel: options.alertsChannel === null ? undefined : (options.alertsChannel ?? 'CALERTS'),
    alertRoutes: options.alertRoutes,
    transactions: options.transactions,
    bankName: options.bankName,
    subscribers: options.subscribers ?? [],
    reconcileGraceMs: options.reconcileGraceMs ?? 0,
    rescanMs: 200,
    maxBackoffMs: 400,
    ...(options.bodyLimitBytes ? { bodyLimitBytes: options.bodyLimitBytes } : {}),
    ...(options.storeTimeoutMs ? { storeTimeoutMs: options.storeTimeoutMs } : {}),
    ...(options.sleep ? { sleep: options.sleep } : {}),
    ...(options.now ? { now: options.now } : {}),
    ...(options.log ? { log: options.log } : {}),
    ...(options.onIntake ? { onIntake: options.onIntake } : {}),
  });
  const server: Server = createServer((req, res) => {
    if (req.method === 'POST' && req.url === webhooks.route.path) return webhooks.route.handler(req, res);
    res.writeHead(404).end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${webhooks.route.path}`;
  await webhooks.start();
  return {
    fake,
    store,
    webhooks,
    url,
    send: (body, sendOptions = {}) =>
      postWebhook(url, body, sendOptions.secret ?? SECRET, sendOptions.signature),
    async stop(stopOptions = {}) {
      await webhooks.stop();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      if (!stopOptions.keepStore) await store.close();
      if (!stopOptions.keepFake) await fake.stop();
    },
  };
}

export async function postWebhook(
  url: string,
  body: string | object,
  secret: string,
  signature?: string | null,
): Promise<Reply> {
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const sig = signature === undefined ? signatureFor(raw, secret) : signature;
  if (sig !== null) headers['x-cngn-signature'] = sig;
  const response = await request(url, { method: 'POST', headers, body: raw });
  return { status: response.statusCode, body: await response.body.text() };
}

/**
 * A delivery whose sender closes the connection mid-body: its headers (a signature, a length of 1,000
 * bytes), then part of the body once the route has taken the request (Node answers `Expect:
 * 100-continue` as it hands the request over), then the socket destroyed.
 */
export async function abortMidBody(url: string): Promise<void> {
  const { hostname, port, pathname } = new URL(url);
  const socket = connect(Number(port), hostname);
  await once(socket, 'connect');
  socket.write(
    `POST ${pathname} HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\nExpect: 100-continue\r\nX-cNGN-Signature: sha256=forged\r\n\r\n`,
  );
  await once(socket, 'data');
  socket.write('{"event":');
  socket.destroy();
}

let n = 0;

/**
 * A webhook body like the service's, with a fresh transaction unless told otherwise, signed now (one
 * dated long ago is posted only as a possible replay).
 */
/** The service's transaction list holding `tx` alone, on its one and last page. */
export function oneTransactionList(tx: Transaction): TransactionSource {
  return {
    getTransactions: async () => ({
      data: [tx],
      pagination: { count: 1, pages: 1, isLastPage: true, nextPage: null, previousPage: null },
    }),
  } as TransactionSource;
}

export function webhookBody(event: string, data: Record<string, unknown> = {}): Record<string, unknown> {
  n += 1;
  const at = new Date().toISOString();
  return {
    event,
    data: {
      transactionId: `tx-${n}-${Math.random().toString(36).slice(2, 8)}`,
      trx_ref: `REF-${n}-${Math.random().toString(36).slice(2, 8)}`,
      businessId: 'biz-1',
      initiatorId: 'user-1',
      status: event === 'transaction.failed' ? 'failed' : 'completed',
      trx_type: 'fiat_buy',
      amount: '1500.00',
      asset_symbol: 'CNGN',
      receiver: 'biz-1',
      occurredAt: at,
      ...data,
    },
    timestamp: at,
  };
}

/** Posted alerts whose text mentions `needle`. */
export function postsMentioning(fake: FakeSlack, needle: string) {
  return fake.callsTo('chat.postMessage').filter((c) => JSON.stringify(c.body).includes(needle));
}

/** A logger that keeps every line, to check what was said (and that no secret was). */
export function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const logger: Logger & { lines: string[] } = {
    lines,
    debug: (message) => void lines.push(`debug ${message}`),
    info: (message) => void lines.push(`info ${message}`),
    warn: (message) => void lines.push(`warn ${message}`),
    error: (message) => void lines.push(`error ${message}`),
    child: () => logger,
  };
  return logger;
}

/** Checks `condition` every 20 ms until it holds; fails after `timeoutMs`. */
export async function waitUntil(
  condition: () => Promise<boolean> | boolean,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

// GET /metrics of a running bot, scraped over HTTP as Prometheus does: what a balance, a withdrawal
// filed, approved and settled, webhooks good and forged, a refusal from the service and alerts Slack
// will not take each show.
import { readFileSync } from 'node:fs';
import { request } from 'undici';
import { expect } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { BotMetrics, type MetricSources } from '../../src/metrics/index.js';
import {
  APPROVER_A,
  type ApprovalApp,
  approve,
  fileWithdrawal,
  slashCommand,
  waitUntil,
} from '../slack/approvals/support.js';
import { botTest as test } from '../support/bot.js';
import { capturedLog } from '../support/captured-log.js';
import { ALERTS_CHANNEL } from '../support/harness.js';
import { parseExposition, type Scrape, scrape } from '../support/prometheus.js';

function metricsUrl(app: ApprovalApp): string {
  return app.metricsUrl;
}

/** Scrape until `ready` holds for what was scraped (the bot does some of its work after answering). */
async function scrapeUntil(app: ApprovalApp, ready: (s: Scrape) => boolean, what: string): Promise<Scrape> {
  let last: Scrape | undefined;
  await waitUntil(async () => {
    last = await scrape(metricsUrl(app));
    return ready(last);
  }, what);
  return last as Scrape;
}

test('counts a balance, a withdrawal from filing to settlement, and webhooks good and forged', async ({
  startApp,
}) => {
  const app = await startApp({ withWebhooks: true });
  const before = await scrape(metricsUrl(app));
  expect(before.status).toBe(200);
  expect(before.contentType).toContain('text/plain');
  // Node's own, and ours with their types.
  expect(before.value('process_cpu_user_seconds_total')).toBeGreaterThan(0);
  expect(before.types.get('nodejs_eventloop_lag_seconds')).toBe('gauge');
  expect(before.types.get('cngn_approval_sends_total')).toBe('counter');
  expect(before.types.get('cngn_approval_time_to_approval_seconds')).toBe('histogram');
  expect(before.types.get('cngn_service_call_duration_seconds')).toBe('histogram');
  expect(before.value('cngn_approval_requests', { kind: 'withdraw', state: 'pending' })).toBe(0);
  expect(before.value('cngn_approval_outcome_unknown')).toBe(0);
  expect(before.value('cngn_alert_outbox_depth')).toBe(0);
  expect(before.value('cngn_alert_oldest_undelivered_age_seconds')).toBe(0);
  expect(before.value('cngn_alert_dead_letters')).toBe(0);
  expect(before.value('cngn_frozen')).toBe(0);
  expect(before.value('cngn_webhook_intake_total', { result: 'bad-signature' })).toBe(0);

  await slashCommand(app.sender, { text: 'balance', responseUrl: app.slack.responseUrl('balance') });
  await app.slack.waitFor('response_url:balance');
  const id = await fileWithdrawal(app, '2500');
  const filed = await scrape(metricsUrl(app));
  expect(filed.value('cngn_approval_requests', { kind: 'withdraw', state: 'pending' })).toBe(1);
  // Each series is labelled by route template: no reference, amount or address in a label.
  const endpoints = filed.series('cngn_service_call_duration_seconds_count').map((s) => s.labels.endpoint);
  expect(endpoints).toContain('GET /v1/api/balance');
  for (const endpoint of endpoints) expect(endpoint).toMatch(/^(GET|POST|PUT) \/v1\/api\/[a-z/{}-]+$/i);

  await approve(app, id, APPROVER_A);
  await waitUntil(async () => (await app.engine.get(id))?.state === 'sent', 'the withdrawal to be sent');
  const sent = await scrapeUntil(
    app,
    (s) => s.value('cngn_approval_sends_total', { kind: 'withdraw', result: 'sent' }) === 1,
    'the send to be counted',
  );
  expect(sent.value('cngn_approval_requests', { kind: 'withdraw', state: 'pending' })).toBe(0);
  expect(sent.value('cngn_approval_requests', { kind: 'withdraw', state: 'sent' })).toBe(1);
  expect(sent.value('cngn_approval_time_to_approval_seconds_count', { kind: 'withdraw' })).toBe(1);
  expect(sent.value('cngn_service_call_duration_seconds_count', { endpoint: 'POST /v1/api/withdraw' })).toBe(
    1,
  );
  const budget = sent.value('cngn_rate_budget_used_ratio') ?? Number.NaN;
  expect(budget).toBeGreaterThan(0);
  expect(budget).toBeLessThanOrEqual(1);

  // The service's webhook settles it; a forged one is refused.
  await app.sandbox.settleAll();
  await waitUntil(
    async () => (await app.engine.get(id))?.state === 'completed',
    'the withdrawal to complete',
  );
  const forged = await request(`${app.baseUrl}/webhooks/cngn`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-cngn-signature': 'forged' },
    body: JSON.stringify({ event: 'withdrawal.completed', data: {} }),
  });
  await forged.body.dump();
  expect(forged.statusCode).toBe(401);
  const settled = await scrapeUntil(
    app,
    (s) => s.value('cngn_approval_requests_closed_total', { kind: 'withdraw', state: 'completed' }) === 1,
    'the completion to be counted',
  );
  expect(settled.value('cngn_webhook_intake_total', { result: 'accepted' })).toBeGreaterThanOrEqual(1);
  expect(settled.value('cngn_webhook_intake_total', { result: 'bad-signature' })).toBe(1);
  expect(settled.value('cngn_approval_requests', { kind: 'withdraw', state: 'sent' })).toBe(0);
  expect(settled.value('cngn_approval_outcome_unknown')).toBe(0);
  expect(settled.value('cngn_slack_api_calls_total', { method: 'chat.postMessage' })).toBeGreaterThan(0);
  expect(settled.series('cngn_slack_api_errors_total')).toEqual([]);
});

test('counts what the service refuses, by endpoint', async ({ startApp }) => {
  const app = await startApp();
  app.sandbox.failNext('GET', '/v1/api/whitelisted', 400, 1, 'Invalid request');
  await slashCommand(app.sender, { text: 'whitelist', responseUrl: app.slack.responseUrl('whitelist') });
  await app.slack.waitFor('response_url:whitelist');
  const scraped = await scrape(metricsUrl(app));
  expect(
    scraped.value('cngn_service_call_errors_total', {
      endpoint: 'GET /v1/api/whitelisted',
      error: 'refused',
    }),
  ).toBe(1);
  expect(
    scraped.value('cngn_service_call_duration_seconds_count', { endpoint: 'GET /v1/api/whitelisted' }),
  ).toBe(1);
});

test('shows alerts Slack will not take: set aside, and waiting after a 429', async ({ startApp }) => {
  const app = await startApp({ withWebhooks: true });
  let alertPosts = 0;
  app.slack.on('chat.postMessage', (call) => {
    if (call.body.channel !== ALERTS_CHANNEL) return undefined;
    alertPosts += 1;
    // The first alert is refused for good; every later one is rate-limited for a minute.
    if (alertPosts === 1) return { body: { ok: false, error: 'restricted_action' } };
    return { status: 429, headers: { 'retry-after': '60' }, body: { ok: false, error: 'ratelimited' } };
  });

  await app.sandbox.simulateCryptoDeposit({ amount: '100' });
  const setAside = await scrapeUntil(
    app,
    (s) => s.value('cngn_alert_dead_letters') === 1,
    'the refused alert to be set aside',
  );
  expect(
    setAside.value('cngn_slack_api_errors_total', { method: 'chat.postMessage', error: 'restricted_action' }),
  ).toBeGreaterThanOrEqual(1);

  await app.sandbox.simulateCryptoDeposit({ amount: '200' });
  const waiting = await scrapeUntil(
    app,
    (s) => (s.value('cngn_slack_api_rate_limited_total', { method: 'chat.postMessage' }) ?? 0) >= 1,
    'the 429 to be counted',
  );
  expect(waiting.value('cngn_alert_outbox_depth')).toBe(1);
  expect(waiting.value('cngn_alert_oldest_undelivered_age_seconds')).toBeGreaterThanOrEqual(0);
  expect(waiting.value('cngn_alert_dead_letters')).toBe(1);
});

test('docs/metrics.md lists every metric the bot serves, with its type, and its alert rules use them', () => {
  const page = readFileSync(new URL('../../docs/metrics.md', import.meta.url), 'utf8');
  const documented = new Map(
    [...page.matchAll(/^\| `(cngn_[a-z_]+)` +\| (\w+) /gm)].map((row) => [row[1], row[2]] as const),
  );
  const every = new BotMetrics({
    log: silentLogger,
    build: { version: '0', commit: 'unknown', node: 'v20' },
  });
  every.watch({ ...QUIET_SOURCES, socketConnected: () => true, reconcilerLastSuccess: () => undefined });
  const served = every.registry.getMetricsAsArray().filter((metric) => metric.name.startsWith('cngn_'));
  expect(Object.fromEntries(documented)).toEqual(
    Object.fromEntries(served.map((metric) => [metric.name, metric.type.toString()])),
  );
  const rules = readFileSync(new URL('../../deploy/prometheus/cngn-desk.rules.yml', import.meta.url), 'utf8');
  const used = new Set([...rules.matchAll(/\b(cngn_[a-z_]+)\b/g)].map((match) => match[1] ?? ''));
  expect(used.size).toBeGreaterThan(5);
  for (const name of used) expect(documented.has(name)).toBe(true);
});

const QUIET_SOURCES: MetricSources = {
  storeUp: async () => true,
  readiness: async () => [],
  alertBacklog: async () => ({ depth: 0 }),
  rateBudget: async () => ({ limit: 20, used: 5, remaining: 15, resetsInSeconds: 3, blockedForSeconds: 0 }),
};

test('cngn_frozen says what the freeze it is given says, and 0 without one', async () => {
  const metrics = new BotMetrics({ log: silentLogger });
  metrics.watch(QUIET_SOURCES);
  const value = async (name: string) =>
    parseExposition(await metrics.registry.metrics()).samples.find((s) => s.name === name)?.value;
  expect(await value('cngn_frozen')).toBe(0);
  let frozen = true;
  metrics.watch({ ...QUIET_SOURCES, frozen: () => frozen });
  expect(await value('cngn_frozen')).toBe(1);
  frozen = false;
  expect(await value('cngn_frozen')).toBe(0);
  expect(await value('cngn_rate_budget_used_ratio')).toBe(0.25);
});

test('a figure the store will not give keeps its last good value, the failure counted and logged', async () => {
  const { logger, entries } = capturedLog('warn');
  const metrics = new BotMetrics({ log: logger });
  let storeDown = false;
  const backlog = async () => {
    if (storeDown) throw new Error('the store is down');
    return { depth: 3, oldestEnqueuedAt: new Date(Date.now() - 60_000).toISOString() };
  };
  metrics.watch({ ...QUIET_SOURCES, alertBacklog: backlog, storeUp: async () => !storeDown });
  const read = async () => {
    const samples = parseExposition(await metrics.registry.metrics()).samples;
    return (name: string, labels: Record<string, string> = {}) =>
      samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
        ?.value;
  };
  const up = await read();
  expect(up('cngn_alert_outbox_depth')).toBe(3);
  expect(up('cngn_store_up')).toBe(1);
  expect(up('cngn_store_read_failures_total', { read: 'alert outbox' })).toBe(0);
  storeDown = true;
  const down = await read();
  expect(down('cngn_alert_outbox_depth')).toBe(3); // not NaN: an alert on it keeps firing
  expect(down('cngn_alert_oldest_undelivered_age_seconds')).toBeGreaterThanOrEqual(60);
  expect(down('cngn_store_up')).toBe(0);
  expect(down('cngn_store_read_failures_total', { read: 'alert outbox' })).toBe(1);
  expect(down('cngn_rate_budget_used_ratio')).toBe(0.25);
  // One read for both gauges that need it, so one line.
  expect(entries).toEqual([
    expect.objectContaining({ message: 'a metric could not be read', metric: 'alert outbox' }),
  ]);
});

test('says whether the bot is ready, its audit trail whole, its socket open, and which build it is', async () => {
  const metrics = new BotMetrics({
    log: silentLogger,
    build: { version: '9.9.9', commit: 'abcdef123456', node: 'v20.0.0' },
  });
  let reasons: string[] = [];
  let auditOk: boolean | undefined;
  let socket: boolean | undefined = true;
  metrics.watch({
    ...QUIET_SOURCES,
    readiness: async () => reasons,
    auditOk: () => auditOk,
    socketConnected: () => socket,
    reconcilerLastSuccess: () => 1_700_000_000_000,
  });
  const read = async () => {
    const scraped = parseExposition(await metrics.registry.metrics()).samples;
    return (name: string) => scraped.find((s) => s.name === name);
  };
  let now = await read();
  expect(now('cngn_ready')?.value).toBe(1);
  expect(now('cngn_audit_ok')?.value).toBe(1);
  expect(now('cngn_slack_socket_connected')?.value).toBe(1);
  expect(now('cngn_reconciler_last_success_timestamp_seconds')?.value).toBe(1_700_000_000);
  expect(now('cngn_build_info')).toMatchObject({
    value: 1,
    labels: { version: '9.9.9', commit: 'abcdef123456', node: 'v20.0.0' },
  });
  reasons = ['the store (redis) did not answer within 2000 ms'];
  auditOk = false;
  socket = false;
  now = await read();
  expect(now('cngn_ready')?.value).toBe(0);
  expect(now('cngn_audit_ok')?.value).toBe(0);
  expect(now('cngn_slack_socket_connected')?.value).toBe(0);
});

test('the oldest alert is 0 s old when none waits, however the clock moves between reads', async () => {
  let clock = 1_700_000_000_000;
  // A busy machine: every read of the clock is a millisecond on.
  const metrics = new BotMetrics({ log: silentLogger, now: () => clock++ });
  metrics.watch(QUIET_SOURCES);
  const samples = parseExposition(await metrics.registry.metrics()).samples;
  expect(samples.find((s) => s.name === 'cngn_alert_oldest_undelivered_age_seconds')?.value).toBe(0);
});

test('counters start at zero for every label value they can have', async () => {
  const metrics = new BotMetrics({ log: silentLogger });
  metrics.watch(QUIET_SOURCES);
  metrics.serviceCalls.exchanged('GET /v1/api/balance', 0.01);
  const samples = parseExposition(await metrics.registry.metrics()).samples;
  const zero = (name: string, labels: Record<string, string>) =>
    samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
      ?.value;
  expect(zero('cngn_approval_sends_total', { kind: 'redeem', result: 'outcome-unknown' })).toBe(0);
  expect(zero('cngn_approval_requests_closed_total', { kind: 'bridge', state: 'expired' })).toBe(0);
  expect(zero('cngn_webhook_intake_total', { result: 'store-unavailable' })).toBe(0);
  expect(zero('cngn_service_call_errors_total', { endpoint: 'GET /v1/api/balance', error: 'network' })).toBe(
    0,
  );
  expect(zero('cngn_store_read_failures_total', { read: 'open approval requests' })).toBe(0);
});

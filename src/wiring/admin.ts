// The admin listener's side of the bot: what /healthz says besides readiness, what the gauges read
// at each scrape, and the listener itself (ADMIN_PORT: the probes and /metrics). See
// docs/decisions/admin-listener.md.

import type { CngnClient } from '../cngn/client.js';
import type { Config } from '../config.js';
import { type Logger, withoutUrlCredentials } from '../log.js';
import type { BotMetrics } from '../metrics/index.js';
import { type AdminServer, metricsRoute, startAdminServer } from '../metrics/server.js';
import type { Health, SlackApp } from '../slack/runtime/app.js';
import { HEALTH_TIMEOUT_MS, type Store, storeHealth, withinDeadline } from '../store/index.js';
import { buildInfo } from '../version.js';
import type { Webhooks } from '../webhooks/index.js';
import type { Approvals } from './approvals.js';

/**
 * /readyz and /healthz: the store answers, and the freeze of sends when there is one. A freeze is a
 * state, not a fault: the answer stays 200 and says who froze the sends, why and since when.
 */
export async function health(store: Store, approvals: Approvals | undefined): Promise<Health> {
  const answer = await storeHealth(store);
  if (!answer.ok || !approvals) return answer;
  try {
    const frozen = await withinDeadline(approvals.engine.currentFreeze(), HEALTH_TIMEOUT_MS, 'store');
    return frozen ? { ...answer, frozen } : answer;
  } catch (error) {
    return {
      ok: false,
      reason: `the freeze of sends could not be read: ${withoutUrlCredentials(String(error)).slice(0, 200)}`,
    };
  }
}

/** What /healthz shows besides readiness: the build, and the audit trail's last check. */
export function healthDetails(approvals: Approvals | undefined): () => Record<string, unknown> {
  const { version, commit } = buildInfo();
  return () => ({ version, commit, ...(approvals ? { audit: approvals.engine.auditHealth() } : {}) });
}

export interface AdminParts {
  config: Config;
  logger: Logger;
  store: Store;
  client: CngnClient;
  approvals: Approvals | undefined;
  webhooks: Webhooks;
  slack: SlackApp;
  metrics: BotMetrics;
}

/** Point the gauges at the parts they read. */
export function watchParts(parts: AdminParts): void {
  const { approvals, webhooks, client, store, slack } = parts;
  const socket = parts.config.slack.mode === 'socket' && Boolean(parts.config.slack.botToken);
  parts.metrics.watch({
    openRequests: approvals ? () => approvals.engine.openRequests() : undefined,
    alertBacklog: () => webhooks.outbox.backlog(),
    deadLetters: webhooks.deadLetters
      ? async () => (await webhooks.deadLetters?.open())?.length ?? 0
      : undefined,
    rateBudget: () => client.budget(),
    frozen: approvals ? async () => (await approvals.engine.currentFreeze()) !== undefined : undefined,
    storeUp: async () => (await storeHealth(store)).ok,
    readiness: () => slack.readiness(),
    auditOk: approvals
      ? () => {
          const audit = approvals.engine.auditHealth();
          return audit.checked ? audit.ok : undefined;
        }
      : undefined,
    reconcilerLastSuccess: webhooks.reconciler ? () => webhooks.reconciler?.lastSuccessAt : undefined,
    socketConnected: socket ? () => slack.socketConnected() : undefined,
  });
}

/** The admin listener (off with ADMIN_PORT=0) and the metrics-only listener (METRICS_PORT). */
export interface AdminListeners {
  /** The probes and /metrics; undefined with ADMIN_PORT=0. */
  admin: AdminServer | undefined;
  /** /metrics alone; undefined unless METRICS_PORT is set. */
  metrics: AdminServer | undefined;
  close(): Promise<void>;
}

const METRICS_LISTENER = {
  variables: 'METRICS_PORT/METRICS_HOST',
  serving: 'metrics port serving /metrics',
};

/** The admin listener: the Slack app's probes and the metrics; and /metrics alone on METRICS_PORT. */
export async function startAdmin(
  parts: Pick<AdminParts, 'config' | 'logger' | 'slack' | 'metrics'>,
): Promise<AdminListeners> {
  const { config, logger } = parts;
  const metrics = metricsRoute(parts.metrics.registry, logger);
  const admin = config.admin
    ? await startAdminServer([...parts.slack.probes, metrics], config.admin, logger)
    : undefined;
  let alone: AdminServer | undefined;
  try {
    alone = config.metricsListener
      ? await startAdminServer([metrics], config.metricsListener, logger, METRICS_LISTENER)
      : undefined;
  } catch (error) {
    await admin?.close();
    throw error;
  }
  return {
    admin,
    metrics: alone,
    async close() {
      await Promise.all([admin?.close(), alone?.close()]);
    },
  };
}

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

/** The admin listener: the Slack app's probes and the metrics. */
export function startAdmin(
  parts: Pick<AdminParts, 'config' | 'logger' | 'slack' | 'metrics'>,
): Promise<AdminServer> {
  const routes = [...parts.slack.probes, metricsRoute(parts.metrics.registry, parts.logger)];
  return startAdminServer(routes, parts.config.admin, parts.logger);
}

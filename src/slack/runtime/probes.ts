// The probes on PORT, one meaning each. /livez: the process serves (a supervisor restarts it when this
// fails). /readyz: it can do its work now (the store answers, Slack is connected, the start-up check
// passed, it is not shutting down): 200 `{ready: true}`, or 503 with every reason it is not. /healthz
// is /readyz for people, in the shape it has always had (`ok`, `reason`), plus details that are not
// readiness: the audit trail's last check (`audit`), which a broken chain turns `ok: false` without
// changing the status.
import type { CustomRoute } from '@slack/bolt';

/** Why the bot is not ready; empty when it is. */
export type Readiness = () => Promise<string[]>;

function answer(res: Parameters<CustomRoute['handler']>[1], status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

function probe(path: string, readiness: Readiness, body: (reasons: string[]) => unknown): CustomRoute {
  return {
    path,
    method: ['GET'],
    handler: (_req, res) => {
      void readiness()
        .catch((error: unknown) => [`the readiness check failed: ${String(error)}`])
        .then((reasons) => answer(res, reasons.length ? 503 : 200, body(reasons)));
    },
  };
}

/** `notes`: what /healthz adds, read once the readiness answered (a freeze of sends). */
export function probeRoutes(
  readiness: Readiness,
  notes: () => Record<string, unknown> = () => ({}),
): CustomRoute[] {
  return [
    { path: '/livez', method: ['GET'], handler: (_req, res) => answer(res, 200, { ok: true }) },
    probe('/readyz', readiness, (reasons) => (reasons.length ? { ready: false, reasons } : { ready: true })),
    probe('/healthz', readiness, (reasons) => ({
      ...(reasons.length
        ? { ok: false, ready: false, reason: reasons.join('; '), reasons }
        : { ok: true, ready: true }),
      ...notes(),
    })),
  ];
}

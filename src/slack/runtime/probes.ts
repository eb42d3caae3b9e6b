// The probes, served on the admin listener (ADMIN_PORT), one meaning each. /livez: the process serves
// (a supervisor restarts it when this fails). /readyz: it can take work now, that is, store what
// arrives (a webhook, a click): the store answers, the start-up check passed, it is not shutting down.
// 200 `{ready: true}`, or 503 with every reason it is not. Slack being unreachable is not a reason:
// every replica loses Slack at once in an outage, and a replica taken out of rotation then could not
// store the service's webhooks either. /healthz is /readyz for people (`ok`, `reason`), plus what is
// not readiness: what is wrong with Slack (`warnings`), the freeze of sends, the audit trail's last
// check (`audit`, whose own `ok` a broken chain turns false), the version. Anything in `warnings`
// turns `ok: false` without changing the status.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { withoutUrlCredentials } from '../../log.js';

/** Why the bot is not ready; empty when it is. */
export type Readiness = () => Promise<string[]>;

export interface ProbeRoute {
  path: string;
  handler(req: IncomingMessage, res: ServerResponse): void;
}

export interface HealthNotes {
  /** What is wrong that does not make the bot unready (the Socket Mode connection, the app removed). */
  warnings: () => string[];
  /** Read once the readiness answered: the freeze of sends, the audit trail, the version. */
  notes: () => Record<string, unknown>;
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

function probe(path: string, readiness: Readiness, body: (reasons: string[]) => unknown): ProbeRoute {
  return {
    path,
    handler: (_req, res) => {
      void readiness()
        .catch((error: unknown) => [
          `the readiness check failed: ${withoutUrlCredentials(String(error)).slice(0, 200)}`,
        ])
        .then((reasons) => answer(res, reasons.length ? 503 : 200, body(reasons)));
    },
  };
}

export function probeRoutes(
  readiness: Readiness,
  health: HealthNotes = { warnings: () => [], notes: () => ({}) },
): ProbeRoute[] {
  return [
    { path: '/livez', handler: (_req, res) => answer(res, 200, { ok: true }) },
    probe('/readyz', readiness, (reasons) => (reasons.length ? { ready: false, reasons } : { ready: true })),
    probe('/healthz', readiness, (reasons) => {
      const warnings = health.warnings();
      return {
        ...(reasons.length
          ? { ok: false, ready: false, reason: reasons.join('; '), reasons }
          : { ok: warnings.length === 0, ready: true }),
        ...(warnings.length ? { warnings } : {}),
        ...health.notes(),
      };
    }),
  ];
}

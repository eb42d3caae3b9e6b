// Which channel an event goes to: CNGN_ALERTS_CHANNEL by default, or the first matching rule of
// CNGN_ALERT_ROUTES, e.g. `deposit.*:C0DEPOSITS,transaction.failed:C0FAILURES` (`*` matches any tail).
export interface AlertRoute {
  pattern: string;
  channel: string;
}

class AlertRoutesError extends Error {
  override name = 'AlertRoutesError';
  readonly code = 'alert_routes_invalid' as const;
}

export function parseAlertRoutes(text: string | undefined): AlertRoute[] {
  if (!text?.trim()) return [];
  return text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const at = part.lastIndexOf(':');
      const pattern = part.slice(0, at).trim();
      const channel = part.slice(at + 1).trim();
      if (at <= 0 || !pattern || !/^[A-Z0-9]+$/.test(channel)) {
        throw new AlertRoutesError(
          `"${part}" should be <event or prefix.*>:<channel ID>, e.g. deposit.*:C0123ABCD`,
        );
      }
      return { pattern, channel };
    });
}

function matchesRoute(pattern: string, eventName: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('*')) return eventName.startsWith(pattern.slice(0, -1));
  return pattern === eventName;
}

/** A router over parsed rules; undefined when no rule matches and no default channel is set. */
export function alertRouter(
  defaultChannel: string | undefined,
  routes: AlertRoute[],
): (eventName: string) => string | undefined {
  return (eventName) => routes.find((r) => matchesRoute(r.pattern, eventName))?.channel ?? defaultChannel;
}

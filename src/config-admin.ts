// The admin listener's settings: ADMIN_PORT and ADMIN_HOST (9091 on loopback by default; ADMIN_PORT=0
// turns it off), where the probes and the metrics are served, apart from PORT. METRICS_PORT and
// METRICS_HOST (off by default): a listener of its own serving `GET /metrics` alone, for a scraper
// kept apart from the probes. Decision: docs/decisions/admin-listener.md.
import { z } from 'zod';

/** Where one listener listens. */
export interface AdminConfig {
  /**
   * From the environment always 1 to 65535 (ADMIN_PORT=0 is no listener at all). 0 here, set only by
   * tests building the configuration in code, takes any free port; the bound port is reported.
   */
  port: number;
  host: string;
}

const DEFAULT_ADMIN_PORT = 9091;
/** The public port (`PORT`) when unset. */
const DEFAULT_PUBLIC_PORT = 3000;
const DEFAULT_HOST = '127.0.0.1';

const blank = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);
const PORT_NUMBER = 'must be a port number from 0 to 65535';
const METRICS_PORT_NUMBER = 'must be a port number from 1 to 65535 (unset it for no metrics listener)';
const port = (message: string, min: number) =>
  z.preprocess(blank, z.coerce.number(message).int(message).min(min, message).max(65535, message).optional());
const host = z.preprocess(
  blank,
  z.union([z.ipv4(), z.ipv6(), z.hostname()], 'must be an IP address or a host name').optional(),
);

/** PORT, the public port: read as the admin ports are, so a bad value gets the same plain reason. */
export const PUBLIC_PORT = z.preprocess(
  blank,
  z.coerce
    .number(PORT_NUMBER)
    .int(PORT_NUMBER)
    .min(0, PORT_NUMBER)
    .max(65535, PORT_NUMBER)
    .default(DEFAULT_PUBLIC_PORT),
);

/** The variables, spread into the configuration's schema (docs/configuration.md lists them from there). */
export const ADMIN_VARIABLES = {
  ADMIN_PORT: port(PORT_NUMBER, 0),
  ADMIN_HOST: host,
  METRICS_PORT: port(METRICS_PORT_NUMBER, 1),
  METRICS_HOST: host,
};

interface AdminVariables {
  ADMIN_PORT?: number | undefined;
  ADMIN_HOST?: string | undefined;
  METRICS_PORT?: number | undefined;
  METRICS_HOST?: string | undefined;
}

/**
 * The admin listener (undefined: ADMIN_PORT=0, off) and the metrics-only listener (undefined unless
 * METRICS_PORT is set; METRICS_HOST alone opens nothing).
 */
export function settleAdmin(e: AdminVariables): {
  admin: AdminConfig | undefined;
  metricsListener: AdminConfig | undefined;
} {
  const adminPort = e.ADMIN_PORT ?? DEFAULT_ADMIN_PORT;
  return {
    admin: adminPort === 0 ? undefined : { port: adminPort, host: e.ADMIN_HOST ?? DEFAULT_HOST },
    metricsListener:
      e.METRICS_PORT === undefined
        ? undefined
        : { port: e.METRICS_PORT, host: e.METRICS_HOST ?? DEFAULT_HOST },
  };
}

/**
 * Two listeners on one port: the second could never listen (a wildcard host overlaps every address,
 * so the hosts are not compared), so the start is refused, naming the variable to change.
 */
export function adminProblems(env: Record<string, string | undefined>): string[] {
  const value = (name: string, unset: string) => env[name]?.trim() || unset;
  const metricsPort = Number(value('METRICS_PORT', '0'));
  const adminPort = Number(value('ADMIN_PORT', String(DEFAULT_ADMIN_PORT)));
  const publicPort = Number(value('PORT', String(DEFAULT_PUBLIC_PORT)));
  const problems: string[] = [];
  if (adminPort > 0 && adminPort === publicPort) {
    problems.push(`ADMIN_PORT: ${adminPort} is PORT too, the public port: give the admin listener its own`);
  }
  if (metricsPort > 0 && metricsPort === adminPort) {
    problems.push(
      `METRICS_PORT: ${metricsPort} is ADMIN_PORT too, which serves /metrics already: unset METRICS_PORT`,
    );
  }
  if (metricsPort > 0 && metricsPort === publicPort) {
    problems.push(`METRICS_PORT: ${metricsPort} is PORT too, the public port: give /metrics its own`);
  }
  return problems;
}

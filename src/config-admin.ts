// The admin listener's settings: ADMIN_PORT and ADMIN_HOST (loopback by default), where the probes
// and the metrics are served, apart from PORT. METRICS_PORT and METRICS_HOST, which served metrics
// alone before, are read for one release as the same settings, with a warning at start-up.
// Decision: docs/decisions/admin-listener.md.
import { z } from 'zod';

export interface AdminConfig {
  /** 0 takes any free port (tests); the bound port is reported. */
  port: number;
  host: string;
}

const DEFAULT_ADMIN_PORT = 3001;
const DEFAULT_ADMIN_HOST = '127.0.0.1';

const blank = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);
const PORT_NUMBER = 'must be a port number from 0 to 65535';
const port = z.preprocess(
  blank,
  z.coerce.number(PORT_NUMBER).int(PORT_NUMBER).min(0, PORT_NUMBER).max(65535, PORT_NUMBER).optional(),
);
const host = z.preprocess(
  blank,
  z.union([z.ipv4(), z.ipv6(), z.hostname()], 'must be an IP address or a host name').optional(),
);

/** The variables, spread into the configuration's schema (docs/configuration.md lists them from there). */
export const ADMIN_VARIABLES = {
  ADMIN_PORT: port,
  ADMIN_HOST: host,
  METRICS_PORT: port,
  METRICS_HOST: host,
};

interface AdminVariables {
  ADMIN_PORT?: number | undefined;
  ADMIN_HOST?: string | undefined;
  METRICS_PORT?: number | undefined;
  METRICS_HOST?: string | undefined;
}

/** The listener's address, and a warning for each old name still set. */
export function settleAdmin(e: AdminVariables): { admin: AdminConfig; warnings: string[] } {
  const warnings: string[] = [];
  const old = (name: string, now: string, value: unknown) => {
    if (value !== undefined) {
      warnings.push(
        `${name} is deprecated and will be removed in the next release: set ${now} instead (the probes and /metrics are served there)`,
      );
    }
  };
  old('METRICS_PORT', 'ADMIN_PORT', e.METRICS_PORT);
  old('METRICS_HOST', 'ADMIN_HOST', e.METRICS_HOST);
  return {
    admin: {
      port: e.ADMIN_PORT ?? e.METRICS_PORT ?? DEFAULT_ADMIN_PORT,
      host: e.ADMIN_HOST ?? e.METRICS_HOST ?? DEFAULT_ADMIN_HOST,
    },
    warnings,
  };
}

/** Both names of one setting, set to different values: which one holds is not for the bot to guess. */
export function adminProblems(env: Record<string, string | undefined>): string[] {
  const problems: string[] = [];
  for (const [now, old] of [
    ['ADMIN_PORT', 'METRICS_PORT'],
    ['ADMIN_HOST', 'METRICS_HOST'],
  ] as const) {
    const a = env[now]?.trim();
    const b = env[old]?.trim();
    if (a && b && a !== b)
      problems.push(`${old}: deprecated, and set to another value than ${now}: unset ${old}`);
  }
  return problems;
}

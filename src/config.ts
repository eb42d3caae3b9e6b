// The only place that reads the environment. Parsed once with zod; every problem is listed together.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { type ConfiguredRoles, ROLE_VARIABLES, settleRoles, userList } from './access/index.js';
import {
  DEFAULT_LIMIT_WINDOW_MS,
  DEFAULT_REMINDERS,
  parseReminderPoints,
  type ReminderPoint,
} from './approvals/index.js';
import { defaultArchiveDir, parseArchiveUrl, parseSigningKey } from './audit/index.js';
import { loadPrivateKey } from './cngn/credentials.js';
import { parseRateLimit, type RateLimit } from './cngn/limiter.js';
import {
  ADMIN_VARIABLES,
  type AdminConfig,
  adminProblems,
  PUBLIC_PORT,
  settleAdmin,
} from './config-admin.js';
import { approvalSetUpProblems, tierProblems } from './config-approvers.js';
import { parsedBy } from './config-parse.js';
import { CNGN_API_KEY, CNGN_BASE_URL, SLACK_API_URL } from './config-service.js';
import { SIGNING_VARIABLES, type SigningConfig, signingOf, signingProblems } from './config-signing.js';

export type { SigningConfig };

import { WEBHOOK_VARIABLES, webhookProblems } from './config-webhook.js';
import { Money } from './format/money.js';
import type { LogLevel } from './log.js';
import { parseReportSchedule, type ReportConfig } from './reports/schedule.js';
import { urlPasswordForms } from './store/url-credentials.js';
import { parseAlertRoutes } from './webhooks/routing.js';

export const LIVE_SERVICE_URL = 'https://api.cngn.co';

export class ConfigError extends Error {
  override name = 'ConfigError';
  readonly code = 'config_invalid' as const;
  constructor(readonly problems: string[]) {
    super(`Configuration needs fixing:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

const APPROVAL_NOTIFY = ['dm', 'channel', 'both'] as const;
export type ApprovalNotify = (typeof APPROVAL_NOTIFY)[number];

type ServiceConfig =
  | { mode: 'sandbox' }
  | { mode: 'service'; baseUrl: string; apiKey: string; encryptionKey: string; privateKey: string };

export interface Config {
  slack: {
    botToken: string | undefined;
    signingSecret: string | undefined;
    appToken: string | undefined;
    apiUrl: string | undefined;
    mode: 'socket' | 'http';
  };
  port: number;
  service: ServiceConfig;
  approvalsChannel: string | undefined;
  alertsChannel: string | undefined;
  alertRoutes: string | undefined;
  approvers: string[];
  approverGroup: string | undefined;
  /** CNGN_READERS, CNGN_REQUESTERS, CNGN_AUDITORS, CNGN_APPROVERS_<KIND>; absent: every default. */
  roles?: ConfiguredRoles | undefined;
  approvalTiers: string;
  approvalTtlMs: number;
  /** CNGN_LIMIT_WINDOW: the window totals and the daily limit are counted over (default 24 h). */
  limitWindowMs?: number | undefined;
  /** CNGN_DAILY_LIMIT: the most the environment may send in any window (canonical decimal ₦); unset: none. */
  dailyLimit?: string | undefined;
  /** CNGN_APPROVAL_REMINDERS: points of a pending request's lifetime (empty: none). Unset: 50%,90%. */
  approvalReminders?: ReminderPoint[] | undefined;
  /** CNGN_APPROVAL_NOTIFY: approvers are asked by DM, in the approvals channel, or both (default). */
  approvalNotify?: ApprovalNotify | undefined;
  /** CNGN_AUDIT_RETENTION: archived audit entries older than this are removed; unset keeps everything. */
  auditRetentionMs?: number | undefined;
  /** CNGN_START_FROZEN: sends are frozen at start-up, before anything is sent (unless already frozen). */
  startFrozen?: boolean | undefined;
  /** CNGN_AUDIT_ARCHIVE as a folder; unset: no archive (a memory store, unless it was set). */
  auditArchiveDir?: string | undefined;
  /** CNGN_AUDIT_ARCHIVE_EVERY (default 24h). */
  auditArchiveEveryMs?: number | undefined;
  report?: ReportConfig | undefined;
  /** CNGN_AUDIT_SIGNING_KEY (PEM) and the variable it came from; unset: one made beside the store. */
  auditSigningKey?: { pem: string; origin: string } | undefined;
  webhookSecret: string | undefined;
  /** CNGN_WEBHOOK_SECRET_PREVIOUS: also accepted while the service switches (config-webhook.ts). */
  webhookSecretPrevious?: string | undefined;
  rateLimit: RateLimit;
  publicUrl: string | undefined;
  /** CNGN_SIGNED_APPROVALS and CNGN_SIGNING_URL (or PUBLIC_URL); undefined when approvals are not signed. */
  signing?: SigningConfig | undefined;
  storeUrl: string;
  logLevel: LogLevel;
  /**
   * ADMIN_PORT / ADMIN_HOST: the probes and `GET /metrics`, apart from PORT (config-admin.ts);
   * undefined with ADMIN_PORT=0, no admin listener at all.
   */
  admin: AdminConfig | undefined;
  /** METRICS_PORT / METRICS_HOST: `GET /metrics` alone on a listener of its own; off unless set. */
  metricsListener?: AdminConfig | undefined;
}

export type { AdminConfig };

const blank = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);
const optional = z.preprocess(blank, z.string().trim().optional());
const slackId = (prefix: string) =>
  z.preprocess(
    blank,
    z
      .string()
      .trim()
      .regex(new RegExp(`^${prefix}[A-Z0-9]{2,}$`), `must be a Slack ID starting with ${prefix}`)
      .optional(),
  );

const DURATION = /^(\d+)\s*(ms|s|m|h|d)$/;
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

export function parseDuration(text: string): number {
  const match = DURATION.exec(text.trim());
  if (!match) throw new Error('must be a duration such as 24h, 30m or 90s');
  const ms = Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  if (ms <= 0) throw new Error('must be longer than zero');
  return ms;
}

/** The window's requests are read at every filing: long enough for a month's totals, no longer. */
const LONGEST_LIMIT_WINDOW_MS = 31 * 86_400_000;

function parseLimitWindow(text: string): number {
  const ms = parseDuration(text);
  if (ms < 60_000 || ms > LONGEST_LIMIT_WINDOW_MS) throw new Error('must be between 1m and 31d');
  return ms;
}

/** `5000000`, `₦5,000,000.00` → `5000000.00`. */
function parseDailyLimit(text: string): string {
  const amount = Money.parse(text);
  if (!amount.isPositive()) throw new Error('must be a positive amount in ₦, e.g. 5000000');
  return amount.toString();
}

/** Every variable the bot reads; docs/configuration.md is generated from it (`npm run docs`). */
export const envSchema = z.object({
  SLACK_BOT_TOKEN: z.preprocess(blank, z.string().startsWith('xoxb-', 'must start with xoxb-').optional()),
  SLACK_SIGNING_SECRET: optional,
  SLACK_APP_TOKEN: z.preprocess(blank, z.string().startsWith('xapp-', 'must start with xapp-').optional()),
  SLACK_API_URL,
  PORT: PUBLIC_PORT,
  CNGN_API_KEY,
  CNGN_ENCRYPTION_KEY: optional,
  CNGN_PRIVATE_KEY: optional,
  CNGN_BASE_URL,
  CNGN_APPROVALS_CHANNEL: slackId('[CG]'),
  CNGN_ALERTS_CHANNEL: slackId('[CG]'),
  CNGN_ALERT_ROUTES: optional,
  CNGN_APPROVERS: userList,
  CNGN_APPROVER_GROUP: slackId('S'),
  ...ROLE_VARIABLES,
  CNGN_APPROVAL_TIERS: z.preprocess(blank, z.string().default('0:1')),
  CNGN_APPROVAL_TTL: z.preprocess(blank, parsedBy(parseDuration).default(24 * 3_600_000)),
  CNGN_LIMIT_WINDOW: z.preprocess(blank, parsedBy(parseLimitWindow).default(DEFAULT_LIMIT_WINDOW_MS)),
  CNGN_DAILY_LIMIT: z.preprocess(blank, parsedBy(parseDailyLimit).optional()),
  // Unset means the default; `none` (or set but empty) turns reminders off.
  CNGN_APPROVAL_REMINDERS: z.preprocess(
    (v) => (v === undefined ? DEFAULT_REMINDERS : v),
    parsedBy(parseReminderPoints),
  ),
  CNGN_AUDIT_RETENTION: z.preprocess(blank, parsedBy(parseDuration).optional()),
  CNGN_AUDIT_ARCHIVE: z.preprocess(blank, parsedBy(parseArchiveUrl).optional()),
  CNGN_AUDIT_ARCHIVE_EVERY: z.preprocess(blank, parsedBy(parseDuration).default(24 * 3_600_000)),
  CNGN_AUDIT_SIGNING_KEY: z.preprocess(
    blank,
    parsedBy((pem) => {
      parseSigningKey(pem);
      return pem;
    }).optional(),
  ),
  CNGN_APPROVAL_NOTIFY: z.preprocess(
    (v) => (typeof v === 'string' ? blank(v.trim().toLowerCase()) : v),
    z.enum(APPROVAL_NOTIFY, 'must be dm, channel or both').default('both'),
  ),
  CNGN_START_FROZEN: z.preprocess(
    (v) => (typeof v === 'string' ? blank(v.trim().toLowerCase()) : v),
    z
      .enum(['1', 'true', 'yes', '0', 'false', 'no'], 'must be 1, true or yes (or 0, false, no)')
      .default('0')
      .transform((v) => v === '1' || v === 'true' || v === 'yes'),
  ),
  CNGN_REPORT_SCHEDULE: z.preprocess(blank, parsedBy(parseReportSchedule).optional()),
  CNGN_REPORT_CHANNEL: slackId('[CG]'),
  CNGN_WEBHOOK_SECRET: optional,
  ...WEBHOOK_VARIABLES,
  ...SIGNING_VARIABLES,
  CNGN_RATE_LIMIT: z.preprocess(blank, parsedBy(parseRateLimit).optional()),
  PUBLIC_URL: z.preprocess(
    blank,
    z
      .url('must be a URL')
      .refine((u) => u.startsWith('https://'), 'must be an https:// origin (the service calls it back)')
      .transform((u) => u.replace(/\/+$/, ''))
      .optional(),
  ),
  STORE_URL: z.preprocess(
    blank,
    z
      .string()
      .regex(
        /^(sqlite|redis|rediss|postgres|postgresql|memory):\/\//,
        'must start with sqlite://, redis://, postgres:// or memory://',
      )
      .default('sqlite://./data/cngn-desk.sqlite'),
  ),
  ...ADMIN_VARIABLES,
  LOG_LEVEL: z.preprocess(
    (v) => (typeof v === 'string' ? blank(v.toLowerCase()) : v),
    z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  ),
});

/**
 * The secrets that may also come from a file: `<NAME>_FILE` holds its path (the Docker and Kubernetes
 * convention). STORE_URL is one when it carries a password. docs/configuration.md lists them from here.
 */
export const FILE_SECRETS = [
  'SLACK_BOT_TOKEN',
  'SLACK_SIGNING_SECRET',
  'SLACK_APP_TOKEN',
  'CNGN_API_KEY',
  'CNGN_ENCRYPTION_KEY',
  'CNGN_PRIVATE_KEY',
  'CNGN_WEBHOOK_SECRET',
  'CNGN_WEBHOOK_SECRET_PREVIOUS',
  'CNGN_AUDIT_SIGNING_KEY',
  'STORE_URL',
] as const satisfies ReadonlyArray<keyof typeof envSchema.shape>;

export interface SecretFiles {
  /** The environment with each secret read from its file in place of its `_FILE` variable. */
  env: Record<string, string | undefined>;
  /** Which secrets came from a file, so a problem names the variable the operator set. */
  fromFile: Set<string>;
  /** Secrets whose file was named but not read (a problem says why): given, for rules across variables. */
  unread: Set<string>;
  problems: string[];
}

/**
 * Reads every `<NAME>_FILE` of FILE_SECRETS into `<NAME>`, its line breaks at the end trimmed.
 * Setting both is a problem, as is a file that cannot be read or is empty; a problem names the
 * variable and the path, never what the file holds. Reading an environment twice changes nothing.
 */
export function readSecretFiles(env: Record<string, string | undefined>): SecretFiles {
  const out = { ...env };
  const fromFile = new Set<string>();
  const unread = new Set<string>();
  const problems: string[] = [];
  for (const name of FILE_SECRETS) {
    const fileVariable = `${name}_FILE`;
    const path = env[fileVariable]?.trim();
    if (!path) continue;
    if (present(env, name)) {
      problems.push(`${name}: set both ${name} and ${fileVariable}; keep one of them`);
      continue;
    }
    let text: string;
    try {
      text = readFileSync(path, 'utf8').replace(/[\r\n]+$/, '');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      problems.push(`${fileVariable}: cannot read ${path} (${code})`);
      unread.add(name);
      continue;
    }
    if (text.trim() === '') {
      problems.push(`${fileVariable}: ${path} is empty`);
      unread.add(name);
      continue;
    }
    out[name] = text;
    delete out[fileVariable];
    fromFile.add(name);
  }
  return { env: out, fromFile, unread, problems };
}

/** Is a variable set (not missing, not blank)? Used for rules across variables. */
const present = (env: Record<string, string | undefined>, name: string) => Boolean(env[name]?.trim());

/**
 * Rules across variables, read from the raw environment so that they are reported together with
 * the per-variable problems in one list, even when some values are malformed. A secret whose file
 * could not be read counts as given: its one problem is the file, not that it is missing.
 */
function crossProblems(
  env: Record<string, string | undefined>,
  keyOrigin: string,
  unread: ReadonlySet<string>,
): string[] {
  const problems: string[] = [];
  const has = (name: string) => present(env, name) || unread.has(name);
  if (!has('SLACK_BOT_TOKEN')) {
    problems.push(
      'SLACK_BOT_TOKEN: required — the xoxb- token from "OAuth & Permissions" of your Slack app (or set no SLACK_ variable at all for the local workbench)',
    );
  }
  if (!has('SLACK_APP_TOKEN') && !has('SLACK_SIGNING_SECRET')) {
    problems.push(
      'SLACK_SIGNING_SECRET: required in HTTP mode — from "Basic Information" of your Slack app (or set SLACK_APP_TOKEN for Socket Mode)',
    );
  }
  problems.push(
    ...approvalSetUpProblems(has),
    ...serviceKeyProblems(env, keyOrigin, unread, has),
    ...tierProblems(env, has),
  );
  try {
    parseAlertRoutes(env.CNGN_ALERT_ROUTES?.trim() || undefined);
  } catch (error) {
    problems.push(`CNGN_ALERT_ROUTES: ${error instanceof Error ? error.message : String(error)}`);
  }
  problems.push(...adminProblems(env), ...webhookProblems(has), ...signingProblems(env, has));
  // A memory store keeps nothing to make a key beside: an archive then needs a key given.
  const memory = (env.STORE_URL ?? '').trim().startsWith('memory://');
  if (memory && has('CNGN_AUDIT_ARCHIVE') && !has('CNGN_AUDIT_SIGNING_KEY')) {
    problems.push(
      'CNGN_AUDIT_SIGNING_KEY: required with CNGN_AUDIT_ARCHIVE on a memory:// store (there is no folder to keep a key made by the bot)',
    );
  }
  if (has('CNGN_REPORT_SCHEDULE') && !has('CNGN_REPORT_CHANNEL') && !has('CNGN_ALERTS_CHANNEL')) {
    problems.push('CNGN_REPORT_CHANNEL: needed with CNGN_REPORT_SCHEDULE (or set CNGN_ALERTS_CHANNEL)');
  }
  // Events no rule matches, and alerts whose routed channel is gone, need somewhere to go.
  if (has('CNGN_ALERT_ROUTES') && !has('CNGN_ALERTS_CHANNEL')) {
    problems.push(
      'CNGN_ALERTS_CHANNEL: required with CNGN_ALERT_ROUTES — the channel ID for events no route matches',
    );
  }
  return problems;
}

function serviceKeyProblems(
  env: Record<string, string | undefined>,
  keyOrigin: string,
  unread: ReadonlySet<string>,
  has: (name: string) => boolean,
): string[] {
  if (!has('CNGN_API_KEY')) return [];
  const problems: string[] = [];
  if (!has('CNGN_ENCRYPTION_KEY')) problems.push('CNGN_ENCRYPTION_KEY: required with CNGN_API_KEY');
  if (unread.has('CNGN_PRIVATE_KEY')) return problems;
  try {
    loadPrivateKey(env.CNGN_PRIVATE_KEY?.trim() || undefined, keyOrigin);
  } catch (error) {
    problems.push(error instanceof Error ? error.message : String(error));
  }
  return problems;
}

/** What a retention cut must leave after a request's longest life unsent (its lookups and settling). */
const RETENTION_MARGIN_MS = 7 * 86_400_000;

/**
 * A retention shorter than a request's life would cut its filing from the signed audit chain while it
 * may still be sent, and the send would refuse it as not shown open (closed-on-the-signed-chain.md). A
 * request lives unsent at most twice CNGN_APPROVAL_TTL (its lifetime, and once more if extended; a
 * freeze holds it no longer), so the cut must leave that and a week more.
 */
function retentionProblems(
  e: { CNGN_AUDIT_RETENTION?: number | undefined; CNGN_APPROVAL_TTL: number },
  source: (name: string) => string,
): string[] {
  const retention = e.CNGN_AUDIT_RETENTION;
  const least = 2 * e.CNGN_APPROVAL_TTL + RETENTION_MARGIN_MS;
  if (retention === undefined || retention >= least) return [];
  return [
    `${source('CNGN_AUDIT_RETENTION')}: must be at least twice CNGN_APPROVAL_TTL (a request may be extended once) and 7 days more (${Math.ceil(least / 86_400_000)}d here), or requests still waiting would be cut from the audit log and never sent`,
  ];
}

/** Parse the environment; throws ConfigError listing every problem (field: reason). */
export function loadConfig(raw: Record<string, string | undefined> = process.env): Config {
  const { env, fromFile, unread, problems } = readSecretFiles(raw);
  // A value read from a file is named by the variable that gave its path.
  const source = (name: string) => (fromFile.has(name) ? `${name}_FILE` : name);
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    problems.push(
      ...parsed.error.issues.map(
        (issue) => `${source(String(issue.path[0] ?? 'environment'))}: ${issue.message}`,
      ),
    );
  }
  const keyOrigin = fromFile.has('CNGN_PRIVATE_KEY')
    ? `CNGN_PRIVATE_KEY_FILE (${raw.CNGN_PRIVATE_KEY_FILE?.trim()})`
    : 'CNGN_PRIVATE_KEY';
  problems.push(...crossProblems(env, keyOrigin, unread));
  if (parsed.success) problems.push(...retentionProblems(parsed.data, source));
  if (!parsed.success || problems.length) throw new ConfigError(problems);
  const e = parsed.data;
  const mode = e.SLACK_APP_TOKEN ? 'socket' : 'http';
  const { admin, metricsListener } = settleAdmin(e);

  let service: ServiceConfig = { mode: 'sandbox' };
  if (e.CNGN_API_KEY) {
    service = {
      mode: 'service',
      baseUrl: (e.CNGN_BASE_URL ?? LIVE_SERVICE_URL).replace(/\/+$/, ''),
      apiKey: e.CNGN_API_KEY,
      encryptionKey: e.CNGN_ENCRYPTION_KEY ?? '',
      privateKey: loadPrivateKey(e.CNGN_PRIVATE_KEY, keyOrigin),
    };
  }

  return {
    slack: {
      botToken: e.SLACK_BOT_TOKEN,
      signingSecret: e.SLACK_SIGNING_SECRET,
      appToken: e.SLACK_APP_TOKEN,
      apiUrl: e.SLACK_API_URL,
      mode,
    },
    port: e.PORT,
    service,
    approvalsChannel: e.CNGN_APPROVALS_CHANNEL,
    alertsChannel: e.CNGN_ALERTS_CHANNEL,
    alertRoutes: e.CNGN_ALERT_ROUTES,
    approvers: e.CNGN_APPROVERS ?? [],
    approverGroup: e.CNGN_APPROVER_GROUP,
    roles: settleRoles(e),
    approvalTiers: e.CNGN_APPROVAL_TIERS,
    approvalTtlMs: e.CNGN_APPROVAL_TTL,
    limitWindowMs: e.CNGN_LIMIT_WINDOW,
    dailyLimit: e.CNGN_DAILY_LIMIT,
    approvalReminders: e.CNGN_APPROVAL_REMINDERS,
    auditRetentionMs: e.CNGN_AUDIT_RETENTION,
    startFrozen: e.CNGN_START_FROZEN,
    auditArchiveDir: e.CNGN_AUDIT_ARCHIVE ?? defaultArchiveDir(e.STORE_URL),
    auditArchiveEveryMs: e.CNGN_AUDIT_ARCHIVE_EVERY,
    auditSigningKey: e.CNGN_AUDIT_SIGNING_KEY
      ? { pem: e.CNGN_AUDIT_SIGNING_KEY, origin: source('CNGN_AUDIT_SIGNING_KEY') }
      : undefined,
    approvalNotify: e.CNGN_APPROVAL_NOTIFY,
    report: { schedule: e.CNGN_REPORT_SCHEDULE, channel: e.CNGN_REPORT_CHANNEL ?? e.CNGN_ALERTS_CHANNEL },
    webhookSecret: e.CNGN_WEBHOOK_SECRET,
    webhookSecretPrevious: e.CNGN_WEBHOOK_SECRET_PREVIOUS,
    rateLimit: e.CNGN_RATE_LIMIT ?? parseRateLimit(undefined),
    publicUrl: e.PUBLIC_URL,
    signing: signingOf(e.CNGN_SIGNED_APPROVALS, e.CNGN_SIGNING_URL ?? e.PUBLIC_URL),
    storeUrl: e.STORE_URL,
    logLevel: e.LOG_LEVEL,
    admin,
    metricsListener,
  };
}

/** Every secret value in the configuration, so the logger can redact them wherever they appear. */
export function secretsOf(config: Config): string[] {
  const values = [
    config.slack.botToken,
    config.slack.signingSecret,
    config.slack.appToken,
    config.webhookSecret,
    config.webhookSecretPrevious,
  ];
  if (config.service.mode === 'service') {
    values.push(
      config.service.apiKey,
      config.service.encryptionKey,
      ...privateKeyForms(config.service.privateKey),
    );
  }
  if (config.auditSigningKey) values.push(...privateKeyForms(config.auditSigningKey.pem));
  values.push(...urlPasswordForms(config.storeUrl));
  return values.filter((v): v is string => Boolean(v));
}

/**
 * The private key as it may surface in text: whole (the variable's text or the file's contents), as
 * a one-line variable with literal `\n`, its body joined, and each body line (a fragment is a leak).
 */
function privateKeyForms(text: string): string[] {
  const whole = text.trim();
  const body = whole
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length >= 16 && !line.startsWith('-----'));
  return [whole, whole.replace(/\r?\n/g, '\\n'), body.join(''), ...body];
}

// docs/configuration.md, made from the configuration schema (src/config.ts): the variables in the
// schema's order, each default as the schema applies it, and the workbench's own values as start-up
// fills them in. The words for each variable are here; the type below makes a variable added to the
// schema without them, or described here but gone from it, a type error.
import { DEFAULT_RATE_LIMIT } from '../../src/cngn/limiter.js';
import { envSchema, FILE_SECRETS, LIVE_SERVICE_URL } from '../../src/config.js';
import { workbenchEnv } from '../../src/wiring/startup.js';
import { cell, table } from './markdown.js';

export const CONFIGURATION_PAGE = 'docs/configuration.md';

type Variable = keyof typeof envSchema.shape;

interface VariableText {
  /** What it sets, as an operator reads it (Markdown). */
  meaning: string;
  /** What happens when it is unset; only for a variable whose schema has no default. */
  unset?: string;
  /** The schema's default as people write it, when the schema holds it parsed (a duration in ms). */
  showDefault?: (value: unknown) => string;
}

const TEXT: Record<Variable, VariableText> = {
  SLACK_BOT_TOKEN: {
    meaning: 'The bot token `xoxb-…`, from **OAuth & Permissions** of the Slack app.',
    unset:
      'no Slack: with no other `SLACK_` variable either, the local [workbench](workbench.md), which makes its own',
  },
  SLACK_SIGNING_SECRET: {
    meaning:
      'HTTP mode: the secret Slack signs its requests with, from **Basic Information → App Credentials**.',
    unset: 'required in HTTP mode (the workbench makes its own); Socket Mode needs none',
  },
  SLACK_APP_TOKEN: {
    meaning:
      'The app-level token `xapp-…` (scope `connections:write`). Set: Socket Mode. Unset: HTTP mode, Slack calls `POST /slack/events`.',
    unset: 'HTTP mode',
  },
  SLACK_API_URL: {
    meaning:
      "Base URL of Slack's Web API, for tests and emulators. The bot token goes there: `https://`, or `http://` only to 127.0.0.1, ::1 or localhost.",
    unset: "Slack's own",
  },
  PORT: {
    meaning:
      'The public HTTP port: `POST /slack/events` (HTTP mode), `POST /webhooks/cngn`, `POST /callbacks/bridge/:token`, and the workbench when it runs. No probe and no metrics are served here (see `ADMIN_PORT`). `0` takes any free port.',
  },
  CNGN_API_KEY: {
    meaning:
      "The service's API key. `cngn_test_…` selects its test environment (answers say **TEST**), `cngn_live_…` the live one (**LIVE**). Spaces and line breaks around it are dropped; after its start it holds visible characters only (no space, line break or quote). The workbench refuses a live key.",
    unset: 'the embedded [sandbox](sandbox.md); answers say **SANDBOX**',
  },
  CNGN_ENCRYPTION_KEY: {
    meaning: 'The encryption key of the same environment as the API key; request bodies are sealed with it.',
    unset: 'required with `CNGN_API_KEY`',
  },
  CNGN_PRIVATE_KEY: {
    meaning:
      "The Ed25519 private key (OpenSSH, unencrypted) whose public half is uploaded in the service's dashboard; responses are sealed to it. As text: literal `\\n` is read as a line break; usually given as a file, `CNGN_PRIVATE_KEY_FILE`.",
    unset: 'required with `CNGN_API_KEY`',
  },
  CNGN_BASE_URL: {
    meaning:
      "The service's origin (its paths start with `/v1/api`); read only with `CNGN_API_KEY`, which goes there: `https://`, or `http://` only to 127.0.0.1, ::1 or localhost (a sandbox on this machine).",
    unset: `\`${LIVE_SERVICE_URL}\``,
  },
  CNGN_APPROVALS_CHANNEL: {
    meaning: 'Channel ID (`C…` or `G…`) where approval requests are posted.',
    unset: 'approvals are off: withdraw, redeem, bridge, whitelist add and settlement say so',
  },
  CNGN_ALERTS_CHANNEL: {
    meaning: 'Channel ID for webhook alerts, and for every alert no route of `CNGN_ALERT_ROUTES` takes.',
    unset: 'alerts wait in the outbox',
  },
  CNGN_ALERT_ROUTES: {
    meaning:
      'Channels per kind of event: `<event or prefix.*>:<channel ID>` pairs separated by commas, the first match wins, e.g. `deposit.*:C0DEPOSITS,transaction.failed:C0FAILURES`.',
    unset: 'every alert goes to `CNGN_ALERTS_CHANNEL`',
  },
  CNGN_APPROVERS: {
    meaning:
      'Slack user IDs of the approvers, separated by commas. The workbench sets its own only when `CNGN_APPROVER_GROUP` is unset too.',
    unset: 'none; this or `CNGN_APPROVER_GROUP` is required with an approvals channel',
  },
  CNGN_APPROVER_GROUP: {
    meaning:
      'A Slack user group ID (`S…`) whose members approve, alone or beside `CNGN_APPROVERS` (scope `usergroups:read`; members cached for two minutes, read again when Slack says they changed and every five minutes).',
    unset: 'none',
  },
  CNGN_READERS: {
    meaning:
      "Who may run the read commands (balance, tx, accounts, networks, banks, pending, policy, the dead-letter list) and see App Home's treasury figures: Slack user IDs (`U…`, `W…`) and user group IDs (`S…`), separated by commas. Approvers always may. See [roles](approvals.md#roles-and-approver-pools).",
    unset: 'every workspace member who is not a guest',
  },
  CNGN_REQUESTERS: {
    meaning:
      'Who may file money-moving and money-routing requests (withdraw, redeem, bridge, whitelist add, settlement): user and user group IDs, separated by commas.',
    unset: 'every member who is not a guest; start-up warns',
  },
  CNGN_AUDITORS: {
    meaning:
      'Who may run `/cngn audit`, `audit verify`, `audit export` and `audit archive`, read only (never approve): user and user group IDs, separated by commas. Approvers of any kind may too.',
    unset: 'nobody besides the approvers',
  },
  CNGN_APPROVERS_WITHDRAW: {
    meaning: poolMeaning('withdraw'),
    unset: 'the general pool: `CNGN_APPROVERS` and `CNGN_APPROVER_GROUP`',
  },
  CNGN_APPROVERS_REDEEM: {
    meaning: poolMeaning('redeem'),
    unset: 'the general pool: `CNGN_APPROVERS` and `CNGN_APPROVER_GROUP`',
  },
  CNGN_APPROVERS_BRIDGE: {
    meaning: poolMeaning('bridge'),
    unset: 'the general pool: `CNGN_APPROVERS` and `CNGN_APPROVER_GROUP`',
  },
  CNGN_APPROVERS_WHITELIST: {
    meaning: poolMeaning('whitelist'),
    unset: 'the general pool: `CNGN_APPROVERS` and `CNGN_APPROVER_GROUP`',
  },
  CNGN_APPROVERS_SETTLEMENT: {
    meaning: poolMeaning('settlement'),
    unset: 'the general pool: `CNGN_APPROVERS` and `CNGN_APPROVER_GROUP`',
  },
  CNGN_APPROVERS_DELEGATION: {
    meaning: poolMeaning('delegation'),
    unset: 'the general pool: `CNGN_APPROVERS` and `CNGN_APPROVER_GROUP`',
  },
  CNGN_APPROVERS_UNFREEZE: {
    meaning: poolMeaning('unfreeze'),
    unset: 'the general pool: `CNGN_APPROVERS` and `CNGN_APPROVER_GROUP`',
  },
  CNGN_APPROVERS_PASSKEY: {
    meaning: poolMeaning('passkey'),
    unset: 'the general pool: `CNGN_APPROVERS` and `CNGN_APPROVER_GROUP`',
  },
  CNGN_APPROVAL_TIERS: {
    meaning:
      "How many distinct approvals an amount needs: `amount:approvals` pairs, e.g. `0:1,1000000:2` (two from ₦1,000,000); an amount below the lowest tier needs one. A whitelist addition needs the lowest tier's count, a settlement-account change the top tier's.",
  },
  CNGN_APPROVAL_TTL: {
    meaning: 'How long a request waits for its approvals before it expires: `90s`, `30m`, `24h`, `2d`.',
    showDefault: (ms) => duration(ms as number),
  },
  CNGN_LIMIT_WINDOW: {
    meaning:
      "The window limits are counted over (`1m` to `31d`). A withdrawal, redemption or bridge needs the tier of the largest of its amount, its requester's total and its destination's total in the window, each including it; the daily limit is counted over it too ([approvals](approvals.md#limits-over-time)).",
    showDefault: (ms) => duration(ms as number),
  },
  CNGN_DAILY_LIMIT: {
    meaning:
      'The most the environment may send in any window (`5000000`, `₦5,000,000.50`). A withdrawal, redemption or bridge that would pass it is refused at filing and at its final approval, with the figures.',
    unset: 'no daily limit',
  },
  CNGN_APPROVAL_REMINDERS: {
    meaning:
      "Reminder points as shares of a pending request's lifetime, rising, e.g. `50%,90%`; `none` (or empty) turns reminders off.",
  },
  CNGN_AUDIT_RETENTION: {
    meaning:
      'How long audit entries are kept in the store (`400d`…). Only entries held by an archive segment that verifies are removed (an export in a DM does not count), and the log records the cut. At least twice `CNGN_APPROVAL_TTL` (a request may be extended once) and 7 days more, or the bot does not start: a request still waiting to be sent must stay on the audit log.',
    unset: 'every entry is kept',
  },
  CNGN_AUDIT_ARCHIVE: {
    meaning:
      'Where the signed audit archive is written, as a `file://` URL of a folder (`file://./data/audit-archive`, `file:///var/lib/cngn-desk/audit-archive`); other schemes are refused. Replicas must share it. See [audit.md](audit.md#the-signed-archive).',
    unset:
      '`file://./data/audit-archive`: the `audit-archive` folder beside the SQLite file (PostgreSQL, Redis: in `./data`); with `memory://`, no archive',
  },
  CNGN_AUDIT_ARCHIVE_EVERY: {
    meaning:
      'How often a segment of the audit chain is written to the archive (also at `/cngn audit archive` and at a clean shutdown).',
    showDefault: (ms) => duration(ms as number),
  },
  CNGN_AUDIT_SIGNING_KEY: {
    meaning:
      "The Ed25519 private key (PKCS#8 PEM: `openssl genpkey -algorithm ed25519`) that signs the audit chain's head and each archive segment; usually given as a file, `CNGN_AUDIT_SIGNING_KEY_FILE`. Never stored in the store. Every replica needs the same key.",
    unset:
      'with SQLite, one is made at first start and kept beside the file (`<name>.audit-signing-key.pem`); PostgreSQL, Redis and a live key need it given (a key made earlier in `./data` is still read); with `memory://`, nothing is signed',
  },
  CNGN_APPROVAL_NOTIFY: {
    meaning:
      'Where approvers are asked: `dm` (a DM each; the channel message keeps no Approve/Reject), `channel` (the channel message only) or `both`.',
  },
  CNGN_START_FROZEN: {
    meaning:
      '`1` (or `true`): start with every send frozen, before anything is sent, unless already frozen (audited, as `start-up (CNGN_START_FROZEN)`). Use it when restoring a backup of the store; another approver lifts it with `/cngn unfreeze`. See [freeze.md](freeze.md).',
    showDefault: () => '0',
  },
  CNGN_REPORT_SCHEDULE: {
    meaning:
      "When the treasury report is posted, in Lagos time: `daily 08:00` (yesterday's) or `weekly mon 08:00` (last Monday to Sunday). Posted once per period across replicas; a run missed while the bot was down is posted at its next start, saying so ([reports](reports.md)).",
    unset: 'no scheduled report; `/cngn report` still answers',
  },
  CNGN_REPORT_CHANNEL: {
    meaning: 'Channel ID (`C…` or `G…`) the scheduled report is posted to.',
    unset: '`CNGN_ALERTS_CHANNEL`',
  },
  CNGN_WEBHOOK_SECRET: {
    meaning: "The webhook signing secret from the service's dashboard.",
    unset: "every delivery is refused with 401; with the embedded sandbox, the sandbox's own secret",
  },
  CNGN_WEBHOOK_SECRET_PREVIOUS: {
    meaning:
      'The secret the service signed with before a rotation, accepted beside `CNGN_WEBHOOK_SECRET` until the service has switched; each delivery it verifies is logged with `verifiedBy: previous` ([rotation](rotation.md#the-webhook-secret)). Needs `CNGN_WEBHOOK_SECRET`.',
    unset: 'only `CNGN_WEBHOOK_SECRET` is accepted',
  },
  CNGN_RATE_LIMIT: {
    meaning:
      "The service's request budget per API key, `N/<seconds>s`. Lower it when something outside this bot's store uses the same key.",
    unset: `\`${DEFAULT_RATE_LIMIT.limit}/${DEFAULT_RATE_LIMIT.windowSeconds}s\`, the service's budget`,
  },
  PUBLIC_URL: {
    meaning: "The bot's public `https://` origin: each bridge then carries a callback URL under it.",
    unset: 'no callback; bridges are followed by webhooks and polls',
  },
  CNGN_SIGNING_URL: {
    meaning:
      "Where approvers' browsers reach the bot's passkey pages: the bot's HTTP port (`PORT`), directly or through a reverse proxy; an internal address is fine, in Socket Mode too. `https://`; plain `http://` only on `localhost`; a host name, never an IP address (browsers refuse one as a passkey's site). Its host is the passkeys' relying party: changing it later makes every registered passkey unusable. See [passkeys](passkeys.md).",
    unset: '`PUBLIC_URL`; with neither, `CNGN_SIGNED_APPROVALS` must be `off`',
  },
  CNGN_SIGNED_APPROVALS: {
    meaning:
      "Which approvals are signed with the approver's passkey: `off`, `all`, or `above:<amount>` (₦, e.g. `above:1000000`: withdrawals, redemptions and bridges above it). Unless `off`, whitelist, settlement, delegation, unfreeze and passkey approvals are always signed. Needs `CNGN_SIGNING_URL` (or `PUBLIC_URL`). See [passkeys](passkeys.md).",
    showDefault: () => 'off',
  },
  STORE_URL: {
    meaning:
      'Where state lives: `sqlite://path`, `postgres://user:pass@host:5432/db` (or `postgresql://`), `redis://…` (`rediss://` for TLS) or `memory://`. Several replicas need PostgreSQL or Redis.',
  },
  ADMIN_PORT: {
    meaning:
      "The admin port, for the operator only: `GET /livez`, `GET /readyz`, `GET /healthz` ([probes](operations.md#probes)) and `GET /metrics` ([metrics](metrics.md)). `0` turns the admin listener off: no probes and no `/metrics` on it (one info line at start-up says so); the image's health check then only asks whether the bot answers on `PORT`, and orchestrator probes have nothing to ask.",
    unset: '`9091`',
  },
  ADMIN_HOST: {
    meaning:
      'The address the admin port listens on. Loopback by default: `/healthz` shows the freeze, the audit trail and the store. `0.0.0.0` or `::` for every interface, e.g. in a container probed and scraped from outside; keep it off the public network.',
    unset: '`127.0.0.1`',
  },
  METRICS_PORT: {
    meaning:
      'A second listener serving `GET /metrics` alone (no probe), for a scraper kept apart from the probes; `/metrics` stays on `ADMIN_PORT` too. Set it to another port than `ADMIN_PORT`; works with `ADMIN_PORT=0`.',
    unset: 'off',
  },
  METRICS_HOST: {
    meaning: 'The address the `METRICS_PORT` listener listens on; without `METRICS_PORT` it opens nothing.',
    unset: '`127.0.0.1`',
  },
  LOG_LEVEL: {
    meaning: '`debug`, `info`, `warn`, `error` or `silent`. Logs are JSON lines on stderr.',
  },
};

/** The words for one kind's own approver pool. */
function poolMeaning(kind: string): string {
  return `Who approves ${kind} requests, in place of the general pool (it does not add to it): user and user group IDs, separated by commas. The tiers count within this pool.`;
}

/** `86400000` → `24h`: the largest unit that divides it, hours up to three days. */
function duration(ms: number): string {
  const units: Array<[string, number]> = [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1_000],
  ];
  for (const [unit, size] of units) {
    if (unit === 'd' && ms < 3 * 86_400_000) continue;
    if (ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}

/** The schema's own default, as written in the environment; undefined when it has none. */
function schemaDefault(name: Variable): string | undefined {
  const parsed = envSchema.shape[name].safeParse(undefined);
  const value: unknown = parsed.success ? parsed.data : undefined;
  if (value === undefined) return undefined;
  const show = TEXT[name].showDefault;
  if (show) return show(value);
  // Reminder points keep the text they were read from.
  if (Array.isArray(value)) return value.map((v) => (v as { label: string }).label).join(',');
  return String(value);
}

/** What each variable is when unset: the schema's default or the words above, plus the workbench's value. */
function whenUnset(name: Variable, workbench: Record<string, string | undefined>): string {
  const fallback = schemaDefault(name);
  const text = TEXT[name];
  const parts = [fallback === undefined ? (text.unset ?? '—') : `\`${fallback}\``];
  const own = workbench[name];
  if (own !== undefined && !name.startsWith('SLACK_')) parts.push(`workbench: \`${own}\``);
  return parts.join('; ');
}

export function configurationPage(): string {
  const names = Object.keys(envSchema.shape) as Variable[];
  const workbench = workbenchEnv({}, 'signing-secret', 'bot-token');
  const fromFile = new Set<string>(FILE_SECRETS);
  const rows = names.map((name) => [
    fromFile.has(name) ? `\`${name}\` or \`${name}_FILE\`` : `\`${name}\``,
    cell(TEXT[name].meaning),
    cell(whenUnset(name, workbench)),
  ]);
  return `<!-- Generated by \`npm run docs\` from src/config.ts and scripts/docs/configuration.ts: edit those, not this file. -->

# Configuration

Every setting is an environment variable, read once at start-up by [\`src/config.ts\`](../src/config.ts)
and checked with zod. When a value is wrong or missing, start-up stops with one list of everything to
fix, one JSON log line per problem (\`VARIABLE: reason\`), and exit status 1. The bot reads no \`.env\` file; to use one, load it in
your shell: \`set -a; . ./.env; set +a; npm start\`.

With no \`SLACK_\` variable at all, \`npm start\` runs the [workbench](workbench.md), which fills in
the values marked "workbench:" below unless you set your own.

## Variables

${table(['variable', 'meaning', 'when unset'], rows)}

## Secrets from files

Each secret can instead be read from a file, the Docker and Kubernetes way: \`<NAME>_FILE\` holds
the path, for ${FILE_SECRETS.map((name) => `\`${name}\``).join(', ')}. The line break at the end of the
file is dropped; the rest is read as the variable's value and checked the same way. Setting both
\`<NAME>\` and \`<NAME>_FILE\` is refused, naming the variable, and so is a file that cannot be read
or is empty; a problem names the variable and the path, never what the file holds. \`STORE_URL\`
is a secret when it carries a password (\`postgres://user:pass@…\`, \`redis://:pass@…\`).

## Rules across variables

Checked at start-up together with the values above, and reported in the same list:

- \`SLACK_BOT_TOKEN\` is required once any \`SLACK_\` variable is set, and with it either
  \`SLACK_APP_TOKEN\` (Socket Mode) or \`SLACK_SIGNING_SECRET\` (HTTP mode).
- \`CNGN_APPROVALS_CHANNEL\` and an approver (\`CNGN_APPROVERS\` or \`CNGN_APPROVER_GROUP\`) come
  together: either alone is refused.
- With a fixed \`CNGN_APPROVERS\` list and no group, the list must name at least as many people as
  the top tier of \`CNGN_APPROVAL_TIERS\` needs: settlement changes always need the top tier. The
  same holds for a \`CNGN_APPROVERS_<KIND>\` pool of people only (whitelist, delegation and unfreeze
  pools: the lowest tier's count).
- \`CNGN_API_KEY\` needs \`CNGN_ENCRYPTION_KEY\` and an unencrypted Ed25519 key in
  \`CNGN_PRIVATE_KEY\` (or its file).
- A secret is given once: as \`<NAME>\` or as \`<NAME>_FILE\`, not both.
- \`CNGN_ALERT_ROUTES\` needs \`CNGN_ALERTS_CHANNEL\`, for the events no route takes.
- \`METRICS_PORT\` may not be the admin listener's port (which serves \`/metrics\` already), whatever
  the hosts, and neither it nor \`ADMIN_PORT\` may be \`PORT\`.
- \`CNGN_SIGNED_APPROVALS\` other than \`off\` needs \`CNGN_SIGNING_URL\` or \`PUBLIC_URL\`: the
  address where approvers' browsers sign.
- \`CNGN_AUDIT_ARCHIVE\` on a \`memory://\` store needs \`CNGN_AUDIT_SIGNING_KEY\` (there is no folder
  beside the store to keep a key made by the bot).
- With approvals on, a \`postgres://\` or \`redis://\` store, or a live \`CNGN_API_KEY\`, needs
  \`CNGN_AUDIT_SIGNING_KEY\` (or its file) unless \`./data/audit-signing-key.pem\` is there from an
  earlier start: the bot makes no key of its own where one host's disk would hold it.

## Secrets

The Slack tokens and signing secret, the API key, the encryption key, the private key and the audit
signing key (whole and in parts), the webhook secret and the password in \`STORE_URL\` are redacted wherever they appear in a
log line, and never reach Slack, whether they came from a variable or a file.

Variables read only by the tests, the bench and the proof suite are in [testing.md](testing.md).
`;
}

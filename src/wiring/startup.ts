// Start-up wiring: settings → logger → bot, with Slack when SLACK_BOT_TOKEN is set, otherwise with the
// local workbench standing in for Slack. main.ts runs it for `npm start`; tests run it the same way.
// This is the only place that knows the workbench exists: the bot gets an ordinary HTTP-mode Slack
// configuration (a token, a signing secret, a Web API URL) and extra routes on its server.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { type AddressInfo, createServer } from 'node:net';
import { type Config, loadConfig, readSecretFiles, secretsOf } from '../config.js';
import { createLogger, type Logger } from '../log.js';
import type { ReportSource } from '../reports/types.js';
import { createStore, type Store } from '../store/index.js';
import { buildInfo } from '../version.js';
import type { Workbench } from '../workbench/index.js';
import { CHANNELS, DEMO_APPROVERS, DEMO_ROLES } from '../workbench/people.js';
import type { PasskeyRule } from '../workbench/protocol.js';
import { type Bot, type BotOptions, startBot } from './bot.js';

/** Start-up refused for a reason that is not a malformed setting (the live-key rule). */
export class StartupRefused extends Error {
  override name = 'StartupRefused';
  readonly code = 'startup_refused' as const;
}

export const LIVE_KEY_REFUSAL =
  'The local workbench will not start with a live service key (CNGN_API_KEY starts with cngn_live_): in the workbench anyone with the browser can act as any user, approvers included, so real money must never be reachable from it. Unset CNGN_API_KEY to use the embedded sandbox, use a cngn_test_ key, or set SLACK_BOT_TOKEN to run in Slack.';

const present = (value: string | undefined) => Boolean(value?.trim());

/**
 * No Slack credentials: `npm start` runs the workbench. Any SLACK_ setting (a secret's `_FILE` too)
 * means Slack was meant.
 */
export function wantsWorkbench(env: Record<string, string | undefined>): boolean {
  return !['SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET', 'SLACK_APP_TOKEN', 'SLACK_API_URL'].some(
    (name) => present(env[name]) || present(env[`${name}_FILE`]),
  );
}

/**
 * The environment the bot starts with under the workbench: HTTP mode with the workbench's token and
 * signing secret, and the demo workspace's approvals channel, alerts channel, approvers and roles
 * (readers, requesters, auditors) — unless the operator set their own, which win.
 */
export function workbenchEnv(
  env: Record<string, string | undefined>,
  signingSecret: string,
  botToken: string,
): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {
    ...env,
    SLACK_BOT_TOKEN: botToken,
    SLACK_SIGNING_SECRET: signingSecret,
  };
  if (!present(env.CNGN_APPROVALS_CHANNEL)) out.CNGN_APPROVALS_CHANNEL = CHANNELS.approvals.id;
  if (!present(env.CNGN_ALERTS_CHANNEL)) out.CNGN_ALERTS_CHANNEL = CHANNELS.alerts.id;
  if (!present(env.CNGN_APPROVERS) && !present(env.CNGN_APPROVER_GROUP)) {
    out.CNGN_APPROVERS = DEMO_APPROVERS.join(',');
  }
  for (const [name, users] of Object.entries(DEMO_ROLES)) {
    if (!present(env[name])) out[name] = users.join(',');
  }
  return out;
}

/** How many probed ports a workbench started on PORT=0 tries before it gives up. */
const PORT_ATTEMPTS = 5;

/** The bot's own port was taken (not the admin listener's, which is the operator's to free). */
const portTaken = (error: unknown, port: number) => {
  const taken = error as { code?: unknown; port?: unknown } | null;
  return taken?.code === 'EADDRINUSE' && taken.port === port;
};

/** A port free on loopback now, for a workbench started on PORT=0 whose signing URL needs its port first. */
async function freeLoopbackPort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/**
 * The workbench's passkey signing, present from the start so the sandbox panel can switch it: the rule
 * as set (off by default), switchable with the embedded sandbox only (no service key), and signed at
 * http://localhost:<port> unless CNGN_SIGNING_URL names another place (browsers refuse an IP address
 * as the relying party; the pages send 127.0.0.1 on to it).
 */
function workbenchSigning(
  settled: Config,
  env: Record<string, string | undefined>,
  port: number,
  sandboxed: boolean,
): NonNullable<Config['signing']> {
  const url = new URL(
    present(env.CNGN_SIGNING_URL) ? String(env.CNGN_SIGNING_URL) : `http://localhost:${port}`,
  );
  const rule = settled.signing?.rule ?? { mode: 'off' };
  return { rule, rpId: url.hostname, origin: url.origin, switchable: sandboxed };
}

/** The sandbox panel's "Require passkeys" over the running bot's signing rule (absent: approvals off). */
function passkeyRuleOf(bot: Bot): PasskeyRule | undefined {
  const engine = bot.approvals?.engine;
  if (!engine) return undefined;
  const side = engine.passkeys.signatures();
  return {
    required: () => (side.options?.rule.mode ?? 'off') !== 'off',
    require: (on) => engine.switchSigningRule(on ? { mode: 'all' } : { mode: 'off' }),
  };
}

export interface Started {
  config: Config;
  logger: Logger;
  bot: Bot;
  workbench: Workbench | undefined;
  /** The bot's HTTP server; the workbench page when the workbench runs. */
  url: string;
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Where the one plain line (`Workbench: open …`) goes; stdout by default. */
  print?: (line: string) => void;
  /** Default: JSON lines on stderr at LOG_LEVEL. */
  logger?: (config: Config) => Logger;
  /** Where treasury reports come from; unset: `/cngn report` says reports are not set up. */
  reportSource?: ReportSource;
  /** A free loopback port for a workbench on PORT=0 (default: one the system gives now). */
  freePort?: () => Promise<number>;
  /**
   * Tests only, never from the environment: the admin listener on any free loopback port, whatever
   * ADMIN_PORT says (ADMIN_PORT=0 is no admin listener at all).
   */
  adminOnAnyPort?: boolean;
  /** Tests only, never from the environment: App Home's debounce and the approvals sweep, short. */
  timings?: Pick<BotOptions, 'homeDebounceMs' | 'approvalSweepMs'>;
}

/** The settings with the admin listener where a test asked for it (StartOptions.adminOnAnyPort). */
const withTestAdmin = (config: Config, options: StartOptions): Config =>
  options.adminOnAnyPort ? { ...config, admin: { port: 0, host: '127.0.0.1' } } : config;

/** The logger of a bot started from `config`: JSON lines on stderr at its level, its secrets redacted. */
export const configuredLogger = (config: Config): Logger =>
  createLogger(config.logLevel, { secrets: secretsOf(config) });

/** Throws ConfigError (settings to fix) or StartupRefused (the live-key rule). */
export async function start(
  env: Record<string, string | undefined>,
  options: StartOptions = {},
): Promise<Started> {
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  const makeLogger = options.logger ?? configuredLogger;
  const reports = options.reportSource ? { reportSource: options.reportSource } : {};

  if (!wantsWorkbench(env)) {
    const config = withTestAdmin(loadConfig(env), options);
    const logger = makeLogger(config);
    const bot = await startBot({ config, logger, ...options.timings, ...reports });
    announce(logger, bot, config.slack.mode);
    return { config, logger, bot, workbench: undefined, url: bot.url, stop: () => bot.stop() };
  }

  // The key as the bot would read it, from CNGN_API_KEY_FILE too; loadConfig reports a file it cannot read.
  const apiKey = readSecretFiles(env).env.CNGN_API_KEY;
  if (apiKey?.trim().startsWith('cngn_live_')) throw new StartupRefused(LIVE_KEY_REFUSAL);
  // Loaded only here: a bot serving Slack never has the workbench's code in memory.
  const { newWorkbenchBotToken, startWorkbench } = await import('../workbench/index.js');
  // Both fresh at every start: a page elsewhere in the browser can guess neither.
  const signingSecret = randomBytes(32).toString('hex');
  const botToken = newWorkbenchBotToken();
  const settled = withTestAdmin(loadConfig(workbenchEnv(env, signingSecret, botToken)), options);
  const logger = makeLogger(settled);
  const store = await createStore(settled.storeUrl, { log: logger });
  let workbench: Workbench | undefined;
  try {
    workbench = await startWorkbench({ store, logger, signingSecret, botToken });
    const { config, bot } = await startWorkbenchBot(settled, workbench, {
      env,
      options,
      logger,
      store,
      sandboxed: !apiKey?.trim(),
    });
    workbench.attach({
      url: bot.url,
      environment: bot.client.environment,
      sandbox: bot.sandbox,
      passkeys: passkeyRuleOf(bot),
    });
    announce(logger, bot, 'workbench');
    print(`Workbench: open ${bot.url}`);
    const wb = workbench;
    let stopping: Promise<void> | undefined;
    return {
      config,
      logger,
      bot,
      workbench: wb,
      url: bot.url,
      stop: () => {
        stopping ??= (async () => {
          wb.endStreams(); // the server's close waits for open connections, and a page keeps one
          await bot.stop(); // answers still under way reach the workbench, which is still up
          await wb.stop();
          await store.close();
        })();
        return stopping;
      },
    };
  } catch (error) {
    await workbench?.stop();
    await store.close();
    throw error;
  }
}

/**
 * The bot behind the workbench, loopback only (anyone who reaches the page can act as any user). On
 * PORT=0 its port is probed first, since the signing URL names it; another process can take that port
 * before the bot listens on it, and then another is probed.
 */
async function startWorkbenchBot(
  settled: Config,
  workbench: Workbench,
  parts: {
    env: Record<string, string | undefined>;
    options: StartOptions;
    logger: Logger;
    store: Store;
    sandboxed: boolean;
  },
): Promise<{ config: Config; bot: Bot }> {
  const { env, options, logger, store, sandboxed } = parts;
  const freePort = options.freePort ?? freeLoopbackPort;
  const reports = options.reportSource ? { reportSource: options.reportSource } : {};
  for (let attempt = 1; ; attempt++) {
    const port = settled.port || (await freePort());
    const config: Config = {
      ...settled,
      port,
      signing: workbenchSigning(settled, env, port, sandboxed),
      slack: { ...settled.slack, apiUrl: workbench.apiUrl, appToken: undefined, mode: 'http' },
    };
    try {
      const bot = await startBot({
        config,
        logger,
        store,
        host: '127.0.0.1',
        routes: workbench.routes,
        responseHeaders: workbench.headers,
        ...options.timings,
        ...reports,
      });
      return { config, bot };
    } catch (error) {
      if (settled.port || attempt >= PORT_ATTEMPTS || !portTaken(error, port)) throw error;
      logger.warn('the probed port was taken before the bot listened on it; trying another', { port });
    }
  }
}

function announce(logger: Logger, bot: Bot, slack: string): void {
  const { version, commit, node } = buildInfo();
  logger.info('cngn-desk is running', {
    version,
    commit,
    node,
    url: bot.url,
    admin: bot.adminUrl ?? 'off (ADMIN_PORT=0)',
    ...(bot.metricsUrl ? { metrics: bot.metricsUrl } : {}),
    environment: bot.client.environment,
    slack,
    store: bot.config.storeUrl.split(':')[0],
  });
  if (!bot.config.admin) {
    logger.info('ADMIN_PORT=0: no admin listener, so no /livez, /readyz, /healthz and no /metrics on it', {
      metrics: bot.metricsUrl ?? 'off (METRICS_PORT unset)',
    });
  }
  if (!bot.approvals) {
    logger.warn(
      'approvals are off: set CNGN_APPROVALS_CHANNEL and CNGN_APPROVERS (or CNGN_APPROVER_GROUP) to enable withdraw, redeem, bridge, whitelist add and settlement',
    );
  }
  if (bot.approvals && !bot.config.roles?.requesters) {
    logger.warn('every member who is not a guest may file money requests: set CNGN_REQUESTERS');
  }
  if (bot.sandbox) {
    logger.info('embedded sandbox: no CNGN_API_KEY set, every answer says SANDBOX', {
      baseUrl: bot.sandbox.baseUrl,
    });
  }
}

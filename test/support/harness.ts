// The real bot (startBot: Bolt app over HTTP, real client, approvals, webhooks) against the embedded
// sandbox and a fake Slack on 127.0.0.1, with a known signing secret. Each call builds its own world.

import type { Config } from '../../src/config.js';
import { type Logger, silentLogger } from '../../src/log.js';
import type { ReportSource } from '../../src/reports/types.js';
import { type Sandbox, type SandboxOptions, startSandbox } from '../../src/sandbox/index.js';
import { createStore, type Store } from '../../src/store/index.js';
import { type Bot, startBot } from '../../src/wiring/bot.js';
import { FakeSlack } from './fake-slack.js';
import type { SlackSender } from './slack-requests.js';

export const SIGNING_SECRET = 'harness-signing-secret';
export const APPROVALS_CHANNEL = 'CAPPROVALS';
export const ALERTS_CHANNEL = 'CALERTS';

export interface HarnessOptions {
  sandboxOptions?: SandboxOptions;
  config?: Partial<Omit<Config, 'slack'>>;
  store?: Store;
  now?: () => Date;
  clientTimeouts?: { connectMs?: number; headersMs?: number; bodyMs?: number };
  /** The bot's logger (silent unless a test reads the lines). */
  logger?: Logger;
  /** Record the policy in the audit chain at start, as a real start does (off: other tests count entries and posts). */
  recordPolicy?: boolean;
  /** Where `/cngn report` and the schedule get reports (unset: reports are off). */
  reportSource?: ReportSource;
  /** A fake Slack set up before the bot starts (the test stops it); a new one when unset. */
  slack?: FakeSlack;
}

export interface Harness {
  bot: Bot;
  sandbox: Sandbox;
  slack: FakeSlack;
  store: Store;
  sender: SlackSender;
  config: Config;
  stop(): Promise<void>;
}

export function testConfig(slackApiUrl: string, overrides: Partial<Omit<Config, 'slack'>> = {}): Config {
  return {
    slack: {
      botToken: 'xoxb-test',
      signingSecret: SIGNING_SECRET,
      appToken: undefined,
      apiUrl: slackApiUrl,
      mode: 'http',
    },
    port: 0,
    admin: { port: 0, host: '127.0.0.1' },
    service: { mode: 'sandbox' },
    approvalsChannel: APPROVALS_CHANNEL,
    alertsChannel: ALERTS_CHANNEL,
    alertRoutes: undefined,
    approvers: ['UAPPROVERA', 'UAPPROVERB'],
    approverGroup: undefined,
    approvalTiers: '0:1',
    approvalTtlMs: 24 * 3_600_000,
    webhookSecret: undefined,
    rateLimit: { limit: 1000, windowSeconds: 60 },
    publicUrl: undefined,
    storeUrl: 'memory://',
    logLevel: 'silent',
    ...overrides,
  };
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const sandbox = await startSandbox({
    settleDelayMs: 3_600_000,
    rateLimit: false,
    ...options.sandboxOptions,
  });
  const slack = options.slack ?? (await FakeSlack.start());
  const store = options.store ?? (await createStore('memory://'));
  const config = testConfig(slack.apiUrl, { webhookSecret: sandbox.webhookSecret, ...options.config });
  const bot = await startBot({
    config,
    logger: options.logger ?? silentLogger,
    store,
    sandbox,
    ...(options.now ? { now: options.now } : {}),
    ...(options.reportSource ? { reportSource: options.reportSource } : {}),
    clientTimeouts: options.clientTimeouts ?? { headersMs: 5_000, bodyMs: 5_000 },
    recordPolicy: options.recordPolicy ?? false,
  });
  sandbox.setWebhookUrl(`${bot.url}/webhooks/cngn`);
  return {
    bot,
    sandbox,
    slack,
    store,
    config,
    sender: { baseUrl: bot.url, signingSecret: SIGNING_SECRET },
    async stop() {
      await bot.stop();
      await sandbox.stop();
      if (!options.slack) await slack.stop();
      if (!options.store) await store.close();
    },
  };
}

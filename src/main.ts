// Start-up only: config → logger → bot (store, service client or embedded sandbox, Slack app) → listen.
import { armCrashPoint } from './approvals/crash-points.js';
import { startBot } from './bot.js';
import { ConfigError, loadConfig, secretsOf } from './config.js';
import { createLogger } from './log.js';

async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\nSee README.md, "Configuration".\n`);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel, { secrets: secretsOf(config) });
  // Test-only (the proof suite's crash line): unset in any real deployment.
  armCrashPoint(process.env.CNGN_DESK_CRASH_AT);
  const bot = await startBot({ config, logger });
  logger.info('cngn-desk is running', {
    url: bot.url,
    environment: bot.client.environment,
    slack: config.slack.botToken ? config.slack.mode : 'not configured',
    store: config.storeUrl.split(':')[0],
  });
  if (!bot.approvals) {
    logger.warn(
      'approvals are off: set CNGN_APPROVALS_CHANNEL and CNGN_APPROVERS (or CNGN_APPROVER_GROUP) to enable withdraw, redeem, bridge, whitelist add and settlement',
    );
  }
  if (bot.sandbox) {
    logger.info('embedded sandbox: no CNGN_API_KEY set, every answer says SANDBOX', {
      baseUrl: bot.sandbox.baseUrl,
    });
  }

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal });
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    bot.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error('shutdown failed', { error: String(error) });
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  const logger = createLogger('error');
  logger.error('cngn-desk could not start', {
    error: error instanceof Error ? error.message : String(error),
  });
  process.exit(1);
});

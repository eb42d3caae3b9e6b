// Start-up only: config → logger → bot (store, service client or embedded sandbox, Slack app) → listen.
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
  const shutdown = (reason: string, exitCode: number) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { reason });
    // Bounded: a stop that hangs must not keep a broken process from its supervisor's restart.
    const force = setTimeout(() => process.exit(exitCode || 1), 15_000);
    force.unref();
    bot.stop().then(
      () => {
        logger.info('stopped', { reason });
        process.exit(exitCode);
      },
      (error: unknown) => {
        logger.error('shutdown failed', { error: String(error) });
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM', 0));
  process.on('SIGINT', () => shutdown('SIGINT', 0));
  // A promise nobody awaited failed: logged (redacted), and the bot keeps serving.
  process.on('unhandledRejection', (reason) => {
    logger.error('unhandled promise rejection', { error: describe(reason) });
  });
  // State may be broken after a throw nobody caught: stop taking work, let the store close, exit 1 for
  // the supervisor to restart (see README, "Running it").
  process.on('uncaughtException', (error) => {
    logger.error('uncaught exception: stopping so the supervisor restarts the bot', {
      error: describe(error),
    });
    shutdown('uncaughtException', 1);
  });
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

main().catch((error: unknown) => {
  const logger = createLogger('error');
  logger.error('cngn-desk could not start', {
    error: error instanceof Error ? error.message : String(error),
  });
  process.exit(1);
});

// `npm start`: start-up (startup.ts) with the process environment, then wait for a signal to stop.
import { ConfigError } from './config.js';
import { createLogger } from './log.js';
import { StartupRefused, start } from './startup.js';

async function main(): Promise<void> {
  let started: Awaited<ReturnType<typeof start>>;
  try {
    started = await start(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\nSee README.md, "Configuration".\n`);
      process.exit(1);
    }
    if (error instanceof StartupRefused) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const { logger } = started;

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal });
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    started.stop().then(
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

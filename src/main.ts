// `npm start`: start-up (wiring/startup.ts) with the process environment, then wait for a signal to stop.
import { armCrashPoint } from './approvals/crash-points.js';
import { ConfigError } from './config.js';
import { createLogger } from './log.js';
import { SlackCheckFailed } from './slack/runtime/startup-check.js';
import { StartupRefused, start } from './wiring/startup.js';

async function main(): Promise<void> {
  // Test-only (the proof suite's crash line): unset in any real deployment.
  armCrashPoint(process.env.CNGN_DESK_CRASH_AT);
  let started: Awaited<ReturnType<typeof start>>;
  try {
    started = await start(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\nSee docs/configuration.md.\n`);
      process.exit(1);
    }
    if (error instanceof StartupRefused) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    if (error instanceof SlackCheckFailed) {
      // One JSON line per problem the bot cannot run with, each naming its fix; warnings were logged.
      const logger = createLogger('error');
      for (const finding of error.findings) {
        if (finding.level === 'fatal') logger.error(finding.line, { check: 'slack' });
      }
      process.exit(1);
    }
    throw error;
  }
  const { logger } = started;

  let stopping = false;
  const shutdown = (reason: string, exitCode: number) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { reason });
    // Bounded: a stop that hangs must not keep a broken process from its supervisor's restart.
    const force = setTimeout(() => process.exit(exitCode || 1), 15_000);
    force.unref();
    started.stop().then(
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
  // the supervisor to restart (see docs/operations.md).
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

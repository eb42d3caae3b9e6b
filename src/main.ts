// `npm start`: start-up (wiring/startup.ts) with the process environment, then wait for a signal to stop.

import { PolicyNotRecorded } from './approvals/index.js';
import { ConfigError } from './config.js';
import { armCrashPoint } from './crash-points.js';
import { createLogger, type Logger } from './log.js';
import { SlackCheckFailed } from './slack/runtime/startup-check.js';
import { configuredLogger, StartupRefused, start } from './wiring/startup.js';

// Until start-up has read the level and the configured secrets, lines go through a logger at info
// (credential-shaped text is still redacted).
let logger: Logger = createLogger('info');
let shutdown: ((reason: string, exitCode: number) => void) | undefined;

// Installed first, so nothing that fails during start-up reaches Node's own printout (which quotes
// the minified line it failed on): each is one JSON line with its stack.
// A promise nobody awaited failed: logged, and a bot already serving keeps serving. During start-up
// there is nothing to keep serving: exit 1 for the supervisor.
process.on('unhandledRejection', (reason) => {
  logger.error('unhandled promise rejection', { error: reason });
  if (!shutdown) process.exit(1);
});
// State may be broken after a throw nobody caught: stop taking work, let the store close, exit 1 for
// the supervisor to restart (see docs/operations.md).
process.on('uncaughtException', (error) => {
  logger.error('uncaught exception: stopping so the supervisor restarts the bot', { error });
  if (shutdown) shutdown('uncaughtException', 1);
  else process.exit(1);
});

/** A stop that hangs must not keep a broken process from its supervisor's restart. */
const STOP_BOUND_MS = 15_000;

async function main(): Promise<void> {
  // Installed before anything starts: without a handler a signal during start-up ends the process
  // with no drain and no line, and as PID 1 in a container it is ignored until SIGKILL. A stop asked
  // for then waits for start-up to end, and stops the bot through the same path.
  let askedDuringStart: string | undefined;
  const onSignal = (signal: string) => {
    if (shutdown) return shutdown(signal, 0);
    if (askedDuringStart) return;
    askedDuringStart = signal;
    logger.info('stop asked during start-up: stopping once it ends', { reason: signal });
    setTimeout(() => process.exit(1), STOP_BOUND_MS).unref();
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));
  // Test-only (the proof suite's crash line): unset in any real deployment.
  armCrashPoint(process.env.CNGN_DESK_CRASH_AT);
  let started: Awaited<ReturnType<typeof start>>;
  try {
    started = await start(process.env, {
      // Taken as soon as the settings are read: a start that fails after that is reported, and a
      // stray rejection logged, with the configured secrets redacted.
      logger: (config) => {
        logger = configuredLogger(config);
        return logger;
      },
    });
  } catch (error) {
    const refused = refusedToStart(error);
    if (askedDuringStart) {
      if (!refused) logger.error('cngn-desk could not start', { error });
      logger.info('stopped', { reason: askedDuringStart });
      process.exit(0);
    }
    if (refused) process.exit(1);
    throw error;
  }
  logger = started.logger;

  let stopping = false;
  shutdown = (reason: string, exitCode: number) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { reason });
    const force = setTimeout(() => process.exit(exitCode || 1), STOP_BOUND_MS);
    force.unref();
    started.stop().then(
      () => {
        logger.info('stopped', { reason });
        process.exit(exitCode);
      },
      (error: unknown) => {
        logger.error('shutdown failed', { error });
        process.exit(1);
      },
    );
  };
  if (askedDuringStart) shutdown(askedDuringStart, 0);
}

/**
 * A start the bot refused (settings to fix, a start-up check, Slack's answers), written as one JSON line
 * per problem like every other line the bot writes; false for any other error.
 */
function refusedToStart(error: unknown): boolean {
  if (error instanceof ConfigError) {
    for (const problem of error.problems) logger.error(problem, { hint: 'See docs/configuration.md' });
    return true;
  }
  if (error instanceof StartupRefused || error instanceof PolicyNotRecorded) {
    logger.error(error.message);
    return true;
  }
  if (error instanceof SlackCheckFailed) {
    // Each names its fix; warnings were logged already.
    for (const finding of error.findings) {
      if (finding.level === 'fatal') logger.error(finding.line, { check: 'slack' });
    }
    return true;
  }
  return false;
}

main().catch((error: unknown) => {
  logger.error('cngn-desk could not start', { error });
  process.exit(1);
});

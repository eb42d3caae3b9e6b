// Bolt's log lines (and its Web API and receiver clients') through our logger, at the level Bolt is
// given for ours: one JSON object per line, secrets redacted, people's e-mail addresses left out.
import { type Logger as BoltLogger, LogLevel } from '@slack/bolt';
import type { Config } from '../../config.js';
import { type Logger, withoutEmails } from '../../log.js';

export const BOLT_LEVEL: Record<Config['logLevel'], LogLevel> = {
  debug: LogLevel.DEBUG,
  info: LogLevel.WARN, // Bolt's info lines are noise for operators; ours carry what matters
  warn: LogLevel.WARN,
  error: LogLevel.ERROR,
  silent: LogLevel.ERROR,
};

const BOLT_SEVERITY: Record<LogLevel, number> = {
  [LogLevel.DEBUG]: 10,
  [LogLevel.INFO]: 20,
  [LogLevel.WARN]: 30,
  [LogLevel.ERROR]: 40,
};

/**
 * Bolt's (and its Web API and receiver clients') log lines through our logger, so every line is one
 * JSON object with secrets redacted. Bolt sets the level; our logger's own level applies on top.
 */
export function boltLogger(logger: Logger, name = 'bolt'): BoltLogger {
  let level = LogLevel.INFO;
  let source = name;
  const at =
    (lvl: LogLevel) =>
    (...parts: unknown[]): void => {
      if (BOLT_SEVERITY[lvl] < BOLT_SEVERITY[level]) return;
      // At debug Bolt dumps whole requests and answers (users.info, users.profile.get): people's
      // e-mail addresses stay out of the log.
      const words = parts
        .filter((p) => typeof p === 'string' || typeof p === 'number')
        .map((p) => withoutEmails(String(p)));
      const error = parts.find((p) => p instanceof Error);
      const details = parts
        .filter((p) => typeof p !== 'string' && typeof p !== 'number' && p !== error)
        .map((p) => withoutEmails(p));
      const message = words.join(' ') || String(withoutEmails(error?.message ?? 'Bolt'));
      logger[lvl](message, {
        source,
        ...(error ? { error } : {}),
        ...(details.length ? { details } : {}),
      });
    };
  return {
    debug: at(LogLevel.DEBUG),
    info: at(LogLevel.INFO),
    warn: at(LogLevel.WARN),
    error: at(LogLevel.ERROR),
    setLevel: (next) => {
      level = next;
    },
    getLevel: () => level,
    setName: (next) => {
      source = next;
    },
  };
}

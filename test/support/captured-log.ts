// A real logger whose lines a test reads back: what the bot would have written to stderr, kept in order.
import { createLogger, type Logger, type LoggerOptions, type LogLevel } from '../../src/log.js';

export interface CapturedLog<Entry extends object = Record<string, unknown>> {
  logger: Logger;
  /** Each line as written: one JSON object, no newline. */
  lines: string[];
  /** The same lines parsed, kept as they arrive. */
  entries: Entry[];
}

/** A logger at `level` (redacting `secrets`, as the bot's does) whose lines are kept, not written. */
export function capturedLog<Entry extends object = Record<string, unknown>>(
  level: LogLevel,
  options: Pick<LoggerOptions, 'secrets'> = {},
): CapturedLog<Entry> {
  const lines: string[] = [];
  const entries: Entry[] = [];
  const logger = createLogger(level, {
    ...options,
    write: (line) => {
      lines.push(line);
      entries.push(JSON.parse(line) as Entry);
    },
  });
  return { logger, lines, entries };
}

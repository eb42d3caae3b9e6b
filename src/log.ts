// The logger, on pino: one JSON line per event on stderr (`level`, `time`, the fields, `message`),
// errors through pino's serializer (type, message, a stack that names the TypeScript source, mapped by
// Node's SourceMap when the line is written), secrets redacted, every line bounded. A child logger carries
// ids (a Slack request's, a webhook's) on each line it writes. On a terminal the same lines are printed
// for people by pino-pretty. Decision: docs/decisions/pino-for-logs.md.
import { createRequire } from 'node:module';
import pino from 'pino';
import { sourceMappedStack } from './source-maps.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
type LogFields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /** A logger whose every line also carries `bindings`. */
  child(bindings: LogFields): Logger;
}

// Fields named like this are written as [redacted], at any depth.
const SECRET_FIELD =
  /(secret|token|password|passphrase|private|encryption|api_?key|authori[sz]ation|signature|cookie|credential|pem)/i;
// Fields nested deeper than this are not walked, so they are never written either: they could hold
// anything (Bolt hands over the HTTP client's whole request).
const MAX_DEPTH = 4;
const MAX_TEXT = 4_000;
const MAX_ITEMS = 50;
const REDACTED = '[redacted]';

// Values that look like credentials wherever they appear in text.
const SECRET_TEXT = [
  /xox[abposr]-[A-Za-z0-9-]+/g,
  /xapp-[A-Za-z0-9-]+/g,
  /cngn_(test|live)_[A-Za-z0-9_-]+/g,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)/g,
  /Bearer\s+[A-Za-z0-9._~+/=-]+/g,
  // Only as an Authorization header's value: "Basic Information" (a Slack app's page) is words.
  /(?<=authorization["']?\s*[:=]\s*["']?)Basic\s+[A-Za-z0-9+/=]+/gi,
];

// The user and password of a URL (`redis://user:pass@host`): after `//`, a user alone up to its `@`,
// or, once a `user:` is seen, everything up to the last `@` before a space: a password written
// unencoded may hold a `/`, an `@`, a quote, or start with digits as a port does. So a path or query
// with an `@` after a port (`https://host:8443/@scope`) is hidden too: hiding more than a password is
// harmless, showing one is not. Each part bounded, so a long text of near-misses costs linear time.
const URL_USERINFO = /\/\/(?:[^\s/?#@:]{0,256}:\S{0,1024}|[^\s/?#@]{0,256})@/g;

/** `text` with the user and password of every URL in it replaced: for text that leaves the process. */
export function withoutUrlCredentials(text: string): string {
  return text.replace(URL_USERINFO, `//${REDACTED}@`);
}

/**
 * The configured secrets as they may surface in text: as given, percent-encoded, base64 and base64url
 * (a header, a query, a dump), each at least 6 characters, longest first, so that a form inside a
 * longer one never leaves the rest of it behind.
 */
function secretForms(secrets: readonly string[]): string[] {
  const forms = new Set<string>();
  for (const secret of secrets) {
    const bytes = Buffer.from(secret, 'utf8');
    for (const form of [
      secret,
      encodeURIComponent(secret),
      bytes.toString('base64'),
      bytes.toString('base64url'),
    ]) {
      if (form.length >= 6) forms.add(form);
    }
  }
  return [...forms].sort((a, b) => b.length - a.length);
}

/**
 * `text` with every configured secret (in each form of `forms`) taken out first, whole, then what
 * looks like a credential: the patterns would cut a secret holding a `+`, `/` or `@` short and leave
 * its tail for the exact pass to miss.
 */
function redactText(text: string, forms: readonly string[] = []): string {
  let out = text;
  for (const form of forms) out = out.split(form).join(REDACTED);
  out = withoutUrlCredentials(out);
  for (const pattern of SECRET_TEXT) out = out.replace(pattern, REDACTED);
  return out;
}

/** Redacted first, then cut: a secret cut in two would no longer be recognised. */
function boundedText(text: string, secrets: readonly string[]): string {
  const out = redactText(text, secrets);
  return out.length > MAX_TEXT
    ? `${out.slice(0, MAX_TEXT)}… (${out.length - MAX_TEXT} more characters)`
    : out;
}

/**
 * What a line may hold of `value`: fields named like secrets and text that holds one redacted, text
 * cut, errors through pino's serializer, at most MAX_DEPTH levels and MAX_ITEMS items of a list.
 */
function bounded(value: unknown, secrets: readonly string[], depth = 0): unknown {
  if (typeof value === 'string') return boundedText(value, secrets);
  if (value === null || typeof value !== 'object') return value;
  const bytes = binaryLength(value);
  if (bytes !== undefined) return `[binary ${bytes} bytes]`;
  if (depth > MAX_DEPTH) return '[truncated]';
  const shown = value instanceof Error ? serializedError(value) : value;
  if (Array.isArray(shown)) return boundedList(shown, secrets, depth);
  if (!(value instanceof Error) && typeof (shown as { toJSON?: unknown }).toJSON === 'function') {
    try {
      return bounded((shown as { toJSON(): unknown }).toJSON(), secrets, depth);
    } catch {
      return '[unserializable]'; // a log line never throws into the code that writes it
    }
  }
  // No prototype: a field named `__proto__` (JSON.parse makes it an own key) is written as a field.
  const out = Object.create(null) as LogFields;
  for (const [key, inner] of Object.entries(shown)) {
    out[key] = SECRET_FIELD.test(key) ? REDACTED : bounded(inner, secrets, depth + 1);
  }
  return out;
}

/** At most MAX_ITEMS items of a list, each bounded, and how many more there were. */
function boundedList(list: unknown[], secrets: readonly string[], depth: number): unknown[] {
  const items = list.slice(0, MAX_ITEMS).map((item) => bounded(item, secrets, depth + 1));
  if (list.length > MAX_ITEMS) items.push(`… (${list.length - MAX_ITEMS} more items)`);
  return items;
}

/** Bytes say nothing to a reader and may be a secret's (a Buffer's toJSON lists them one by one). */
function binaryLength(value: object): number | undefined {
  return ArrayBuffer.isView(value) || value instanceof ArrayBuffer ? value.byteLength : undefined;
}

/** pino's serializer (type, message, stack, causes, own fields), the stack naming the source files. */
function serializedError(error: Error): LogFields {
  const serialized = pino.stdSerializers.err(error);
  if (typeof serialized.stack === 'string') serialized.stack = sourceMappedStack(serialized.stack);
  return serialized;
}

// An address as people write it; an id, a token or a URL has no `@` between such parts.
const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;
const EMAIL_FIELD = /e-?mail/i;

/**
 * `value` with every e-mail address left out (text that holds one, and fields named like one): for
 * what other code hands the logger whole, such as Bolt's dumps of Slack's answers about people.
 */
export function withoutEmails(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return value.replace(EMAIL, '[email]');
  if (value === null || typeof value !== 'object' || value instanceof Error) return value;
  if (depth > MAX_DEPTH) return '[truncated]';
  if (Array.isArray(value)) return value.slice(0, MAX_ITEMS).map((item) => withoutEmails(item, depth + 1));
  const out = Object.create(null) as LogFields;
  for (const [key, inner] of Object.entries(value)) {
    out[key] = EMAIL_FIELD.test(key) && inner !== undefined ? '[email]' : withoutEmails(inner, depth + 1);
  }
  return out;
}

export interface LoggerOptions {
  /** Values redacted wherever they appear (the configured tokens, keys, passwords). */
  secrets?: readonly string[];
  /** Where each line goes, without its newline; stderr (written synchronously) when absent. */
  write?: (line: string) => void;
  /** Lines for people (pino-pretty) instead of JSON; default: when stderr is a terminal. */
  pretty?: boolean;
}

/**
 * `write` fed pino-pretty's lines for people instead of JSON. pino-pretty is loaded only when asked
 * for (at a terminal): a bot in a container never loads it. Not bundled: the release has it in
 * node_modules.
 */
function prettyLines(write: (line: string) => void): { write(line: string): void } {
  const load = createRequire(import.meta.url);
  const { prettyFactory } = load('pino-pretty') as {
    prettyFactory(options: Record<string, unknown>): (line: string) => string;
  };
  const format = prettyFactory({ messageKey: 'message', translateTime: 'SYS:HH:MM:ss.l' });
  return { write: (line) => write(format(line)) };
}

export function createLogger(level: LogLevel = 'info', options: LoggerOptions = {}): Logger {
  const secrets = secretForms(options.secrets ?? []);
  const { write } = options;
  // process.stderr writes synchronously on Linux (files, pipes, terminals): a line written just
  // before process.exit() is not lost, and lines keep their order with anything else on stderr.
  const pretty = options.pretty ?? (!write && process.stderr.isTTY === true);
  const lines = write
    ? { write: (line: string) => write(line.endsWith('\n') ? line.slice(0, -1) : line) }
    : process.stderr;
  const destination = pretty ? prettyLines((line) => lines.write(line)) : lines;
  const root = pino(
    {
      level,
      base: null,
      messageKey: 'message',
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: {
        level: (label) => ({ level: label }),
        log: (fields) => bounded(fields ?? {}, secrets) as LogFields,
      },
    },
    destination,
  );
  return wrap(root, secrets);
}

function wrap(target: pino.Logger, secrets: readonly string[]): Logger {
  const at =
    (lvl: 'debug' | 'info' | 'warn' | 'error') =>
    (message: string, fields?: LogFields): void => {
      if (!target.isLevelEnabled(lvl)) return;
      target[lvl](fields ?? {}, boundedText(message, secrets));
    };
  return {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    // pino calls the bindings' own hasOwnProperty: an object with a prototype.
    child: (bindings) => wrap(target.child({ ...(bounded(bindings, secrets) as LogFields) }), secrets),
  };
}

export const silentLogger: Logger = createLogger('silent', { write: () => {} });

// A small structured logger: one JSON line per event on stderr, secrets redacted before writing.
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };
const SECRET_FIELD = /(secret|token|password|private|encryption|api_?key|authorization|signature)/i;
// Values that look like credentials wherever they appear in text.
const SECRET_TEXT = [
  /xox[abposr]-[A-Za-z0-9-]+/g,
  /xapp-[A-Za-z0-9-]+/g,
  /cngn_(test|live)_[A-Za-z0-9_-]+/g,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
  /Bearer\s+[A-Za-z0-9._-]+/g,
];

export function redactText(text: string, extraSecrets: readonly string[] = []): string {
  let out = text;
  for (const pattern of SECRET_TEXT) out = out.replace(pattern, '[redacted]');
  for (const secret of extraSecrets) if (secret.length >= 6) out = out.split(secret).join('[redacted]');
  return out;
}

function redact(value: unknown, extraSecrets: readonly string[], depth = 0): unknown {
  if (typeof value === 'string') return redactText(value, extraSecrets);
  if (value instanceof Error) return redactText(`${value.name}: ${value.message}`, extraSecrets);
  if (value === null || typeof value !== 'object') return value;
  // Deeper than this is never walked, so it is never written either: it could hold anything.
  if (depth > 4) return '[truncated]';
  if (Array.isArray(value)) return value.map((item) => redact(item, extraSecrets, depth + 1));
  // No prototype: a field named `__proto__` (JSON.parse makes it an own key) is written as a field.
  const out = Object.create(null) as Record<string, unknown>;
  for (const [key, inner] of Object.entries(value)) {
    out[key] = SECRET_FIELD.test(key) ? '[redacted]' : redact(inner, extraSecrets, depth + 1);
  }
  return out;
}

export function createLogger(
  level: LogLevel = 'info',
  options: { secrets?: readonly string[]; write?: (line: string) => void } = {},
): Logger {
  const threshold = ORDER[level];
  const secrets = options.secrets ?? [];
  const write = options.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const at =
    (lvl: Exclude<LogLevel, 'silent'>) =>
    (message: string, fields?: Record<string, unknown>): void => {
      if (ORDER[lvl] < threshold) return;
      const entry = { time: new Date().toISOString(), level: lvl, message: redactText(message, secrets) };
      write(JSON.stringify(fields ? { ...entry, ...(redact(fields, secrets) as object) } : entry));
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

export const silentLogger: Logger = createLogger('silent');

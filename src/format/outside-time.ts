// One reading of a time written by someone else (the service's webhooks and transaction list), so what
// the bot judges a time by and what it shows for it are the same instant on every replica.

/**
 * A time from outside as epoch milliseconds: epoch seconds or milliseconds written as digits (10 to 13
 * of them), or an ISO date and time, read as UTC when it names no zone (`Date.parse` would take the
 * process's own zone, and replicas in different zones would read one text as different times). Anything
 * else is no time, NaN (`Date.parse` reads "12" as the year 2001).
 */
export function outsideTime(value: unknown): number {
  if (typeof value !== 'string') return Number.NaN;
  if (/^\d{10,13}$/.test(value)) return value.length > 10 ? Number(value) : Number(value) * 1000;
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value)) return Number.NaN;
  return Date.parse(/(?:Z|[+-]\d{2}(?::?\d{2})?)$/i.test(value) ? value : `${value}Z`);
}

/** The same time as ISO text in UTC, or undefined when the text is no time. */
export function outsideTimeIso(value: unknown): string | undefined {
  const at = outsideTime(value);
  return Number.isFinite(at) ? new Date(at).toISOString() : undefined;
}

/**
 * An event's time among the fields that may carry it, first to last (its own time, then its envelope's):
 * the first that reads as a time, or, when none does, the first given, to be shown as sent.
 */
export function firstTime(...values: Array<string | null | undefined>): string | undefined {
  return values.find((value) => Number.isFinite(outsideTime(value))) ?? values.find(Boolean) ?? undefined;
}

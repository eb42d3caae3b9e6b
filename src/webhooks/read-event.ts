// Reading a signed delivery liberally: once the sender is verified and the body is JSON naming an
// event, the event is kept. Fields of another type than documented are coerced where the meaning is
// plain (a numeric reference, an epoch time); a field that still cannot be read is left out and named,
// and the alert for it is posted generically. Only a body that is not JSON, names no event or nests
// beyond any documented shape (it could not even be stored) is refused.
import { type WebhookEvent, webhookEventSchema } from '../cngn/schemas.js';
import { nestsDeeperThan } from '../format/json-depth.js';
import { numberSourceAt } from '../format/json-source.js';

/** Documented events nest four levels (body → data → receiver → bank); this leaves ample room. */
const WEBHOOK_MAX_DEPTH = 32;

export type ReadEvent =
  | { ok: true; event: WebhookEvent; unreadable: string[] }
  | { ok: false; error: string };

// Identifiers and words: a number here means the same digits as text.
const TEXT_FIELDS = [
  'transactionId',
  'trx_ref',
  'businessId',
  'initiatorId',
  'status',
  'trx_type',
  'network',
  'base_trx_hash',
  'extl_trx_hash',
  'explorer_link',
  'asset_symbol',
  'reason',
];
const RECEIVER_TEXT_FIELDS = ['address', 'accountNumber', 'accountName'];
const TEXT_FIELD_SET = new Set(TEXT_FIELDS);

/**
 * `text` is the body as it came (when known): a numeric amount is read from it as written, since the
 * parsed number may have lost it (1e309 parses as Infinity).
 */
export function readWebhookEvent(
  body: unknown,
  openSealed?: (sealed: string) => string,
  text?: string,
): ReadEvent {
  if (!isRecord(body) || typeof body.event !== 'string' || body.event.trim() === '') {
    return { ok: false, error: 'event: the body must be a JSON object with the event name in "event"' };
  }
  if (nestsDeeperThan(body, WEBHOOK_MAX_DEPTH)) return tooDeep();
  const unreadable: string[] = [];
  const sealed = typeof body.data === 'string' ? openText(body.data, openSealed) : undefined;
  const opened = typeof body.data === 'string' ? parseOpened(sealed) : body.data;
  // Data that came in the body was walked with it (one level deeper, so within the limit too): only
  // what a sealed string opened into is new, and walked here.
  if (sealed !== undefined && nestsDeeperThan(opened, WEBHOOK_MAX_DEPTH)) return tooDeep();
  const amountSource = () =>
    sealed !== undefined
      ? numberSourceAt(sealed, ['amount'])
      : text !== undefined
        ? numberSourceAt(text, ['data', 'amount'])
        : undefined;
  const data = readData(body.data, opened, unreadable, amountSource);
  const candidate: Record<string, unknown> = { ...body, data };
  if (body.timestamp !== undefined) candidate.timestamp = asTime(body.timestamp);
  const strict = webhookEventSchema.safeParse(candidate);
  if (strict.success) return { ok: true, event: strict.data, unreadable };
  leaveOutRefused(strict.error.issues, candidate, data, unreadable);
  const lenient = webhookEventSchema.safeParse(candidate);
  if (lenient.success) return { ok: true, event: lenient.data, unreadable: [...new Set(unreadable)] };
  return { ok: true, event: { event: body.event, data: { transactionId: undefined } }, unreadable: ['data'] };
}

/** Leave out each field the schema refuses (so the rest can be read), naming it in `unreadable`. */
function leaveOutRefused(
  issues: ReadonlyArray<{ path: PropertyKey[] }>,
  candidate: Record<string, unknown>,
  data: Record<string, unknown>,
  unreadable: string[],
): void {
  for (const issue of issues) {
    const [top, field] = issue.path;
    if (top === 'data' && typeof field === 'string' && field in data) {
      delete data[field];
      unreadable.push(field);
    } else if (typeof top === 'string' && top !== 'event' && top !== 'data' && top in candidate) {
      delete candidate[top];
      unreadable.push(top);
    }
  }
}

const tooDeep = (): ReadEvent => ({
  ok: false,
  error: `the body nests deeper than ${WEBHOOK_MAX_DEPTH} levels`,
});

/** `value` as it came, `data` the same opened when it arrived sealed. */
function readData(
  value: unknown,
  data: unknown,
  unreadable: string[],
  amountSource: () => string | undefined,
): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  if (!isRecord(data)) {
    unreadable.push('data');
    return {};
  }
  // Built field by field, never with a field added and then deleted: an object that loses a field
  // turns into a slow dictionary for every later read of it (schema checks, serialization).
  const out: Record<string, unknown> = {};
  for (const field of Object.keys(data)) {
    if (field === '__proto__') continue; // assigned, it would become the object's prototype
    // An amount sent as null is no amount, which is not the same as none: named like one of another type.
    if (field === 'amount' && data[field] === null) {
      unreadable.push(field);
      continue;
    }
    const value = readField(field, data[field], amountSource);
    if (value !== undefined) out[field] = value;
  }
  return out;
}

function readField(field: string, value: unknown, amountSource: () => string | undefined): unknown {
  if (TEXT_FIELD_SET.has(field)) return asText(value);
  if (field === 'amount') return asAmount(value, amountSource);
  if (field === 'occurredAt') return asTime(value);
  if (field === 'receiver') return readReceiver(value);
  return value;
}

function readReceiver(receiver: unknown): unknown {
  if (typeof receiver === 'number') return String(receiver);
  if (!isRecord(receiver)) return receiver;
  const out: Record<string, unknown> = {};
  for (const field of Object.keys(receiver)) {
    if (field === '__proto__') continue;
    const value = RECEIVER_TEXT_FIELDS.includes(field)
      ? asText(receiver[field])
      : field === 'bank'
        ? readBank(receiver.bank)
        : receiver[field];
    if (value !== undefined) out[field] = value;
  }
  return out;
}

function readBank(bank: unknown): unknown {
  if (typeof bank === 'number') return String(bank);
  if (!isRecord(bank)) return bank;
  const out: Record<string, unknown> = { ...bank };
  if ('code' in bank) out.code = asText(bank.code);
  if ('name' in bank) out.name = asText(bank.name);
  return out;
}

function openText(sealed: string, open: ((sealed: string) => string) | undefined): string | undefined {
  if (!open) return undefined;
  try {
    return open(sealed);
  } catch {
    return undefined;
  }
}

function parseOpened(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** An amount as text, a number as its sender wrote it; whether it is an amount is decided later. */
function asAmount(value: unknown, source: () => string | undefined): unknown {
  if (typeof value === 'number') return source() ?? String(value);
  return typeof value === 'boolean' ? String(value) : value;
}

function asText(value: unknown): unknown {
  return typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean'
    ? String(value)
    : value;
}

/** An epoch time (seconds or milliseconds) as ISO text; anything else as it came. */
function asTime(value: unknown): unknown {
  if (typeof value !== 'number' || !Number.isFinite(value)) return value;
  const date = new Date(value < 1e12 ? value * 1000 : value);
  return Number.isNaN(date.getTime()) ? String(value) : date.toISOString();
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

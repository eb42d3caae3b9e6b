// Reading the service's answers: both error envelopes (numeric status, or `false` with HTTP 403),
// older `{error}` bodies and non-JSON pages from proxies, then opening sealed `data` and checking its
// shape with the endpoint's schema.
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { z } from 'zod';
import { type CallEffect, CngnResponseError } from './errors.js';
import type { RawResponse } from './http.js';
import type { SealedOpener } from './opener.js';
import { envelopeSchema } from './schemas.js';
import { WireError } from './wire.js';

export type Envelope =
  | { ok: true; data: unknown }
  | { ok: false; httpStatus: number; message: string; notJson: boolean };

/**
 * Only an envelope that says so is a success. Without `status`, a body carrying `data` (and no
 * `error`) is one; `{error}` or `{message}` alone (an older shape) or `{}` is a refusal even with
 * HTTP 200, so it can never pass for an empty list.
 */
function saysSuccess(body: z.infer<typeof envelopeSchema>): boolean {
  const { status } = body;
  if (status === undefined) return 'data' in body && body.error === undefined;
  if (status === true) return true;
  if (typeof status === 'number') return status === 200;
  if (typeof status === 'string') return status === '200' || status.toLowerCase() === 'success';
  return false; // `false`
}

/** A short readable line from a body that is not JSON (e.g. an HTML 403 page from a proxy). */
function textLine(raw: string): string {
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(raw)?.[1];
  const text = (title ?? raw.replace(/<[^>]*>/g, ' ')).replace(/\s+/g, ' ').trim();
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** The service's own message is kept up to this many characters: it becomes a stored failure reason. */
const SERVICE_MESSAGE_CHARS = 300;

/** A service message cut to SERVICE_MESSAGE_CHARS, saying that it was cut. */
function capped(message: string): string {
  if (message.length <= SERVICE_MESSAGE_CHARS) return message;
  // Never between the two halves of a character outside the basic plane (an emoji).
  const last = message.charCodeAt(SERVICE_MESSAGE_CHARS - 1);
  const end = last >= 0xd800 && last <= 0xdbff ? SERVICE_MESSAGE_CHARS - 1 : SERVICE_MESSAGE_CHARS;
  return `${message.slice(0, end)}… (cut, ${message.length} characters)`;
}

function messageOf(body: z.infer<typeof envelopeSchema>): string | undefined {
  for (const candidate of [body.message, body.error]) {
    if (typeof candidate === 'string' && candidate.trim()) return capped(candidate);
  }
  for (const candidate of [body.message, body.error]) {
    if (candidate !== undefined && candidate !== null) return JSON.stringify(candidate).slice(0, 200);
  }
  return undefined;
}

export function readEnvelope(raw: RawResponse): Envelope {
  const httpOk = raw.httpStatus >= 200 && raw.httpStatus < 300;
  let json: unknown;
  try {
    json = JSON.parse(raw.text);
  } catch {
    return {
      ok: false,
      httpStatus: raw.httpStatus,
      message: textLine(raw.text) || `HTTP ${raw.httpStatus} with an empty body`,
      notJson: true,
    };
  }
  const parsed = envelopeSchema.safeParse(json);
  if (!parsed.success) {
    // A bare array or scalar: not an envelope at all.
    return { ok: false, httpStatus: raw.httpStatus, message: 'The answer is not an envelope', notJson: true };
  }
  const body = parsed.data;
  if (httpOk && saysSuccess(body)) return { ok: true, data: body.data };
  // HTTP 200 carrying `{status: 400}` reports 400; otherwise the HTTP status is the truth.
  const status = httpOk && typeof body.status === 'number' ? body.status : raw.httpStatus;
  return {
    ok: false,
    httpStatus: status,
    message:
      messageOf(body) ??
      (httpOk ? `HTTP ${raw.httpStatus} without a success status` : `HTTP ${raw.httpStatus}`),
    notJson: false,
  };
}

/**
 * Sealed string → JSON value; object/array as is; null/absent/"" → undefined. A large answer is opened
 * off the main thread (opener.ts).
 */
export async function openData(
  data: unknown,
  opener: SealedOpener,
  endpoint: string,
  effect: CallEffect = 'none',
): Promise<unknown> {
  if (data === null || data === undefined || data === '') return undefined;
  if (typeof data !== 'string') return data;
  let text: string;
  try {
    text = await opener.open(data);
  } catch (error) {
    const reason = error instanceof WireError ? error.message : 'it could not be opened';
    throw new CngnResponseError(reason, endpoint, effect);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new CngnResponseError('the opened response data is not JSON', endpoint, effect);
  }
}

/** Check the shape; a mismatch names the first offending field, never the data itself. */
export function parseData<S extends z.ZodType>(
  schema: S,
  value: unknown,
  endpoint: string,
  effect: CallEffect = 'none',
  /** Where `value` sits in the answer (`data.12`), when it is a part of it. */
  at?: string,
): z.output<S> {
  if (value === undefined) throw new CngnResponseError('the answer carried no data', endpoint, effect);
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const inside = issue?.path.length ? issue.path.join('.') : undefined;
  const where = at ? [at, inside].filter(Boolean).join('.') : (inside ?? 'data');
  throw new CngnResponseError(
    `unexpected response shape at ${where}: ${issue?.message ?? 'invalid'}`,
    endpoint,
    effect,
  );
}

/** Items checked in one turn of the event loop: a page of 1,000 transactions takes ten. */
const ITEMS_A_TURN = 100;

/**
 * A page of a list: its frame checked by `frame`, then its items by `item` a slice at a time, with a
 * turn of the event loop between two, so a page of 1,000 never holds it long. A mismatch names the
 * first offending field as parseData does.
 */
export async function parseListInTurns<F extends z.ZodType, I extends z.ZodType>(
  schemas: { frame: F; item: I },
  value: unknown,
  items: (frame: z.output<F>) => { list: readonly unknown[]; path: string },
  endpoint: string,
): Promise<{ frame: z.output<F>; items: z.output<I>[] }> {
  const frame = parseData(schemas.frame, value, endpoint);
  const { list, path } = items(frame);
  const parsed: z.output<I>[] = [];
  for (let start = 0; start < list.length; start += ITEMS_A_TURN) {
    // The first slice too: the turn that brought the page has parsed its JSON already.
    await nextTurn();
    list.slice(start, start + ITEMS_A_TURN).forEach((item, i) => {
      parsed.push(parseData(schemas.item, item, endpoint, 'none', `${path}${start + i}`));
    });
  }
  return { frame, items: parsed };
}

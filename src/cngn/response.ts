// Reading the service's answers: both error envelopes (numeric status, or `false` with HTTP 403),
// older `{error}` bodies and non-JSON pages from proxies, then opening sealed `data` and checking its
// shape with the endpoint's schema.
import type { z } from 'zod';
import { type CallEffect, CngnResponseError } from './errors.js';
import type { RawResponse } from './http.js';
import { envelopeSchema } from './schemas.js';
import { openResponseData, WireError } from './wire.js';

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

function messageOf(body: z.infer<typeof envelopeSchema>): string | undefined {
  for (const candidate of [body.message, body.error]) {
    if (typeof candidate === 'string' && candidate.trim()) return candidate;
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

/** Sealed string → JSON value; object/array as is; null/absent/"" → undefined. */
export function openData(
  data: unknown,
  curveSecretKey: Uint8Array,
  endpoint: string,
  effect: CallEffect = 'none',
): unknown {
  if (data === null || data === undefined || data === '') return undefined;
  if (typeof data !== 'string') return data;
  let text: string;
  try {
    text = openResponseData(data, curveSecretKey);
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
): z.output<S> {
  if (value === undefined) throw new CngnResponseError('the answer carried no data', endpoint, effect);
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = issue?.path.length ? issue.path.join('.') : 'data';
  throw new CngnResponseError(
    `unexpected response shape at ${where}: ${issue?.message ?? 'invalid'}`,
    endpoint,
    effect,
  );
}

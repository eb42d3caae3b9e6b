// Property-based: signed deliveries to POST /webhooks/cngn of the real bot with any body — any JSON,
// event-shaped bodies with fields of any type, deep nesting, text that is not JSON, oversized bodies.
// Each gets 200 (stored), 400 (with the reason) or 413, never a 5xx; the alerts it stored are posted
// without a failure; nothing goes unhandled; the bot still answers /healthz.
import fc from 'fast-check';
import { request } from 'undici';
import { describe, expect } from 'vitest';
import { signatureFor } from '../../src/webhooks/index.js';
import { test as base } from '../support/fixtures.js';
import {
  ANY_CHARACTER,
  assertFuzz,
  FUZZ_TIMEOUT_MS,
  type FuzzBot,
  jsonValue,
  OBJECT_MEMBER_NAMES,
  runs,
  startFuzzBot,
  text,
} from '../support/fuzz.js';

interface Fuzzed {
  bot: FuzzBot;
  secret: string;
  /** How many deliveries got each status, over the whole file (the last test reads them). */
  answers: Map<number, number>;
}

/** One bot for the whole file: the last test checks what the deliveries of the others left behind. */
const test = base
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('fuzz', { scope: 'file' }, async ({}, { onCleanup }): Promise<Fuzzed> => {
    const bot = await startFuzzBot();
    onCleanup(() => bot.stop());
    return { bot, secret: bot.h.config.webhookSecret ?? '', answers: new Map<number, number>() };
  });

async function deliver({ bot, secret, answers }: Fuzzed, raw: string): Promise<void> {
  const response = await request(`${bot.h.bot.url}/webhooks/cngn`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-cngn-signature': signatureFor(raw, secret) },
    body: raw,
  });
  const text = await response.body.text();
  answers.set(response.statusCode, (answers.get(response.statusCode) ?? 0) + 1);
  expect([200, 400, 413], `${response.statusCode} ${text} for ${raw.slice(0, 300)}`).toContain(
    response.statusCode,
  );
  if (response.statusCode !== 413) {
    const body = JSON.parse(text) as { ok?: unknown; error?: unknown };
    expect(body.ok).toBe(response.statusCode === 200);
    if (response.statusCode === 400) expect(typeof body.error).toBe('string');
  }
}

const anyJson = jsonValue(4);
const EVENTS = [
  'deposit.received',
  'deposit.completed',
  'withdrawal.completed',
  'redemption.completed',
  'bridge.completed',
  'transaction.failed',
];
const FIELDS = [
  'transactionId',
  'trx_ref',
  'status',
  'trx_type',
  'amount',
  'fee',
  'network',
  'receiver',
  'base_trx_hash',
  'extl_trx_hash',
  'explorer_link',
  'asset_symbol',
  'reason',
  'occurredAt',
  'businessId',
  'initiatorId',
];

/** A value nested `depth` levels, as arrays or objects. */
const nested = fc
  .tuple(fc.integer({ min: 0, max: 80 }), fc.boolean(), anyJson)
  .map(([depth, arrays, leaf]) => {
    let value: unknown = leaf;
    for (let i = 0; i < depth; i++) value = arrays ? [value] : { v: value };
    return value;
  });

const fieldValue = fc.oneof(
  { weight: 3, arbitrary: anyJson },
  { weight: 2, arbitrary: text({ unit: ANY_CHARACTER, maxLength: 80 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '058:0123456789:ADA <!channel> OBI',
      '0x52908400098527886E0F7030069857D2E4169EE7',
      ...OBJECT_MEMBER_NAMES,
      ...OBJECT_MEMBER_NAMES.map((name) => `058:0123456789:${name}`),
    ),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      address: anyJson,
      accountNumber: anyJson,
      accountName: anyJson,
      bank: fc.oneof(anyJson, fc.record({ code: anyJson, name: anyJson })),
    }),
  },
  { weight: 1, arbitrary: nested },
);

const data = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.dictionary(fc.constantFrom(...FIELDS, ...OBJECT_MEMBER_NAMES), fieldValue, { maxKeys: 10 }),
  },
  { weight: 1, arbitrary: anyJson },
  { weight: 1, arbitrary: text() },
  { weight: 1, arbitrary: nested },
);

const eventBody = fc.record(
  {
    event: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...EVENTS) },
      { weight: 1, arbitrary: fc.constantFrom(...OBJECT_MEMBER_NAMES) },
      { weight: 1, arbitrary: anyJson },
    ),
    data,
    timestamp: fc.oneof(
      fc.integer(),
      fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
      anyJson,
    ),
    extra: anyJson,
  },
  { requiredKeys: ['event'] },
);

describe('fuzzed webhook deliveries', { timeout: FUZZ_TIMEOUT_MS }, () => {
  test('answers every event-shaped body with 200 or a clear 400', async ({ fuzz }) => {
    await assertFuzz(
      fc.asyncProperty(eventBody, (body) => deliver(fuzz, JSON.stringify(body))),
      runs(1_300),
    );
  });

  test('answers any JSON, any text, deep nesting and oversized bodies with 200, 400 or 413', async ({
    fuzz,
  }) => {
    const raw = fc.oneof(
      anyJson.map((v) => JSON.stringify(v)),
      text({ unit: ANY_CHARACTER, maxLength: 200 }),
      fc
        .integer({ min: 0, max: 40_000 })
        .map((depth) => `{"event":"deposit.completed","data":${'['.repeat(depth)}${']'.repeat(depth)}}`),
      fc
        .integer({ min: 60_000, max: 200_000 })
        .map((size) => JSON.stringify({ event: 'x', data: { pad: 'x'.repeat(size) } })),
    );
    await assertFuzz(
      fc.asyncProperty(raw, (body) => deliver(fuzz, body)),
      runs(800),
    );
  });

  test('posted what it stored without a failure, left nothing unhandled, and the bot still answers', async ({
    fuzz,
  }) => {
    const { bot, answers } = fuzz;
    expect(answers.get(200) ?? 0).toBeGreaterThan(0);
    expect(answers.get(400) ?? 0).toBeGreaterThan(0);
    expect(await bot.healthz()).toBe(200);
    await bot.h.bot.stop();
    expect(bot.h.slack.callsTo('chat.postMessage').length).toBeGreaterThan(0);
    const errors = bot.lines.filter((l) => l.level === 'error').map((l) => String(l.message));
    expect(errors).toEqual([]);
    expect(bot.faults).toEqual([]);
  });
});

// A time from outside that names no zone ("2026-11-23T08:05:00") is one instant, read as UTC, wherever
// it becomes a time: the age a delivery is judged by, the time its alert shows, the record /cngn tx
// lists and the reconciler's window. The host's own zone (set here per test) changes none of them.
import { describe, expect } from 'vitest';
import type { Transaction } from '../../src/cngn/schemas.js';
import { webhookEventSchema } from '../../src/cngn/schemas.js';
import { webhookMessage } from '../../src/slack/alerts/message-blocks.js';
import { signedEventTime } from '../../src/webhooks/event-age.js';
import { hostZoneFixture } from '../support/host-zone.js';
import { oneTransactionList, webhookBody } from '../support/webhook-rig.js';
import { webhooksTest } from '../support/webhooks.js';

const test = webhooksTest.extend('hostZone', hostZoneFixture);

/** Zones on both sides of UTC, and Lagos's own (one hour ahead). */
const ZONES = ['Africa/Lagos', 'America/New_York', 'Asia/Tokyo'];

/** 08:05 UTC, written with no zone; 09:05 in Lagos. */
const ZONELESS = '2026-11-23T08:05:00';
const SHOWN = 'Mon 23 Nov 2026, 09:05 WAT';

describe('a time that names no zone', () => {
  test.for(ZONES)(
    'is shown in an alert as the instant the bot judged it by, on a host in %s',
    (zone, { hostZone }) => {
      hostZone(zone);
      const event = webhookEventSchema.parse({
        event: 'deposit.completed',
        data: { transactionId: 'tx-1', trx_ref: 'REF-1', amount: '10', occurredAt: ZONELESS },
      });
      expect(new Date(signedEventTime(event) ?? 0).toISOString()).toBe(`${ZONELESS}.000Z`);
      const message = webhookMessage({ event, origin: 'webhook', environment: 'sandbox' });
      expect(JSON.stringify(message.blocks)).toContain(SHOWN);
    },
  );

  test("is taken from the envelope when the event's own time is no time, in the alert as on App Home", () => {
    const event = webhookEventSchema.parse({
      event: 'deposit.completed',
      data: { transactionId: 'tx-1', trx_ref: 'REF-1', amount: '10', occurredAt: 'soon' },
      timestamp: ZONELESS,
    });
    const blocks = JSON.stringify(
      webhookMessage({ event, origin: 'webhook', environment: 'sandbox' }).blocks,
    );
    expect(blocks).toContain(SHOWN);
    expect(blocks).not.toContain('soon');
  });

  test('is recorded for /cngn tx as that instant, on a host in Tokyo', async ({ hostZone, startRig }) => {
    hostZone('Asia/Tokyo');
    const now = Date.parse(`${ZONELESS}Z`);
    const rig = await startRig({ now: () => now, digests: false });
    const body = webhookBody('deposit.completed', { trx_ref: 'REF-ZONELESS', occurredAt: ZONELESS });
    expect((await rig.send({ ...body, timestamp: ZONELESS })).status).toBe(200);
    const post = await rig.fake.waitFor('chat.postMessage', (c) =>
      JSON.stringify(c.body).includes('REF-ZONELESS'),
    );
    expect(JSON.stringify(post.body.blocks)).toContain(SHOWN);
    const [placement] = await rig.webhooks.placements(['REF-ZONELESS']);
    expect(placement?.recorded?.at).toBe(`${ZONELESS}.000Z`);
  });

  test('puts a transaction in the reconciler’s window by that instant, on a host in Tokyo', async ({
    hostZone,
    startRig,
  }) => {
    hostZone('Asia/Tokyo');
    // Updated half an hour after the bot started, an hour before this run: inside the window as UTC,
    // nine hours before the bot started as Tokyo time.
    let clock = Date.parse('2026-01-10T08:00:00.000Z');
    const at = new Date(clock + 30 * 60_000).toISOString().slice(0, -1);
    const tx: Transaction = {
      id: 'tx-zoneless',
      trx_ref: 'REF-ZONELESS-TX',
      trx_type: 'fiat_buy',
      status: 'completed',
      amount: '4200.00',
      createdAt: at,
      updatedAt: at,
    };
    const transactions = oneTransactionList(tx);
    const rig = await startRig({ transactions, now: () => clock });
    clock += 3_600_000;
    expect((await rig.webhooks.reconciler?.runOnce())?.queued).toBe(1);
    const post = await rig.fake.waitFor('chat.postMessage', (c) =>
      JSON.stringify(c.body).includes('REF-ZONELESS-TX'),
    );
    expect(JSON.stringify(post.body.blocks)).toContain('Sat 10 Jan 2026, 09:30 WAT');
  });
});

// The outbox's own records of an entry: its order (seq) and the time it was accepted name one moment.
import { describe, expect, it } from 'vitest';
import { createStore } from '../../src/store/index.js';
import { Outbox } from '../../src/webhooks/outbox.js';

describe('Outbox', () => {
  it("stamps an entry's order and its accepted time from one reading of the clock", async () => {
    const store = await createStore('memory://');
    // A clock that moves on at each reading, as a busy process's would between two of them.
    let clock = Date.parse('2026-11-23T08:00:00.000Z');
    const outbox = new Outbox(store, undefined, () => clock++);
    const event = { event: 'deposit.completed', data: { transactionId: 'T-1', trx_ref: 'R-1' } };
    const created = await outbox.enqueue({
      id: 'a1b2c3',
      origin: 'webhook',
      environment: 'sandbox',
      event,
      orderKey: 'R-1',
    });
    expect(created).toBe(true);
    const entry = await outbox.get('a1b2c3');
    expect(Math.floor((entry?.seq ?? 0) / 1000)).toBe(Date.parse(entry?.enqueuedAt ?? ''));
    await store.close();
  });
});

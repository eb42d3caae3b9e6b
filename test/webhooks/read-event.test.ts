// Reading a signed delivery: a field named __proto__ is data like any other unknown field, never the
// prototype of what is read (which would make its contents look like the event's own fields).
import { describe, expect, it } from 'vitest';
import { readWebhookEvent } from '../../src/webhooks/read-event.js';

describe('readWebhookEvent', () => {
  it('does not take fields from a __proto__ key in data or in the receiver', () => {
    const body = JSON.parse(
      '{"event":"redemption.completed","data":{"__proto__":{"transactionId":"T-1","status":"completed","amount":"5"},' +
        '"trx_ref":"R-1","receiver":{"__proto__":{"accountNumber":"0123456789"},"accountName":"Ada"}}}',
    ) as unknown;
    const read = readWebhookEvent(body);
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.event.data.transactionId).toBeUndefined();
    expect(read.event.data.status).toBeUndefined();
    expect(read.event.data.amount).toBeUndefined();
    expect(read.event.data.trx_ref).toBe('R-1');
    expect(read.event.data.receiver).toEqual({ accountName: 'Ada' });
  });

  it('reads numbers in text fields as their digits and keeps the rest as sent', () => {
    const read = readWebhookEvent({
      event: 'deposit.completed',
      data: { transactionId: 42, trx_ref: 'R-2', amount: '10.00', receiver: { accountNumber: 123 } },
    });
    expect(read.ok && read.event.data).toMatchObject({
      transactionId: '42',
      trx_ref: 'R-2',
      amount: '10.00',
      receiver: { accountNumber: '123' },
    });
  });
});

// Reading a signed delivery: a field named __proto__ is data like any other unknown field, never the
// prototype of what is read (which would make its contents look like the event's own fields).
import { describe, expect, it } from 'vitest';
import { custodyReport } from '../../src/cngn/custody-gateway.js';
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

  it('keeps a numeric amount as its sender wrote it, in the body or in sealed data', () => {
    const text = '{"event":"deposit.completed","data":{"trx_ref":"R-3","amount":1e309}}';
    const plain = readWebhookEvent(JSON.parse(text), undefined, text);
    expect(plain.ok && plain.event.data.amount).toBe('1e309');
    const sealedText = '{"event":"deposit.completed","data":"SEALED"}';
    const opened = '{"trx_ref":"R-4","amount":12.5e400}';
    const sealed = readWebhookEvent(JSON.parse(sealedText), () => opened, sealedText);
    expect(sealed.ok && sealed.event.data.amount).toBe('12.5e400');
    // A plain amount sent as a number is the figure it says.
    const figure = '{"event":"deposit.completed","data":{"amount":1500.5}}';
    const read = readWebhookEvent(JSON.parse(figure), undefined, figure);
    expect(read.ok && read.event.data.amount).toBe('1500.50');
  });

  it('names an amount of any type that is no amount as unreadable, so it settles nothing; an absent one is none', () => {
    for (const amount of [null, { value: '1600.00' }, ['1600.00'], {}]) {
      const read = readWebhookEvent({
        event: 'withdrawal.completed',
        data: { trx_ref: 'R-5', status: 'completed', amount },
      });
      expect(read.ok).toBe(true);
      if (!read.ok) continue;
      expect(read.unreadable, JSON.stringify(amount)).toContain('amount');
      expect(read.event.data.trx_ref).toBe('R-5');
      expect(custodyReport(read.event, read.unreadable)).toMatchObject({ amountInvalid: true });
    }
    // Text or a number that is no amount is kept as sent and marked the same way.
    for (const amount of [true, 'NaN', '']) {
      const read = readWebhookEvent({ event: 'withdrawal.completed', data: { trx_ref: 'R-6', amount } });
      expect(read.ok && custodyReport(read.event, read.unreadable).amountInvalid).toBe(true);
    }
    const absent = readWebhookEvent({
      event: 'withdrawal.completed',
      data: { trx_ref: 'R-7', status: 'completed' },
    });
    expect(absent.ok && absent.unreadable).toEqual([]);
    if (!absent.ok) return;
    const report = custodyReport(absent.event, absent.unreadable);
    expect(report.amountInvalid).toBeUndefined();
    expect(report.result).toBe('completed');
  });

  it('refuses data nested past the limit whether it came in the body or sealed, and keeps it at the limit', () => {
    /** An object `levels` deep: {a:{a:…{}}}. */
    const deep = (levels: number): unknown => (levels <= 1 ? {} : { a: deep(levels - 1) });
    // The body counts one level more than its data: data 31 deep is a body 32 deep, the most kept.
    expect(readWebhookEvent({ event: 'deposit.completed', data: deep(31) }).ok).toBe(true);
    expect(readWebhookEvent({ event: 'deposit.completed', data: deep(32) }).ok).toBe(false);
    // Sealed data is counted from its own top once opened: 32 deep is kept, 33 refused.
    const opening = (levels: number) => () => JSON.stringify(deep(levels));
    expect(readWebhookEvent({ event: 'deposit.completed', data: 'SEALED' }, opening(32)).ok).toBe(true);
    const refused = readWebhookEvent({ event: 'deposit.completed', data: 'SEALED' }, opening(33));
    expect(refused.ok ? 'kept' : refused.error).toContain('nests deeper');
  });
});

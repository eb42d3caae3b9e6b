// Strict sending: each body carries its documented fields only, amounts exact as JSON numbers.
import { describe, expect, it } from 'vitest';
import { requestBodies, wireJson } from '../../src/cngn/request-body.js';
import { Money } from '../../src/format/money.js';

describe('request bodies', () => {
  it('sends amounts as exact JSON numbers', () => {
    for (const [typed, wire] of [
      ['1500.50', '1500.5'],
      ['0.10', '0.1'],
      ['1,234,567.89', '1234567.89'],
      ['100000000.01', '100000000.01'],
      ['100', '100'],
    ] as const) {
      const body = requestBodies.withdraw({ amount: Money.parse(typed), address: '0xabc', networkId: 'n' });
      expect(body).toBe(`{"amount":${wire},"address":"0xabc","networkId":"n"}`);
    }
  });

  it('leaves out absent and blank optional fields', () => {
    const body = requestBodies.temporaryAccount({
      amount: Money.parse('100'),
      customer: { email: 'a@example.com', name: ' ' },
      accountName: '',
    });
    expect(JSON.parse(body)).toEqual({ amount: 100, customer: { email: 'a@example.com' } });
    expect(JSON.parse(requestBodies.resolveAccount({ accountNumber: '0123456789' }))).toEqual({
      accountNumber: '0123456789',
    });
  });

  it('refuses a zero or negative amount before anything is sent', () => {
    expect(() =>
      requestBodies.redeem({ amount: Money.parse('0'), accountNumber: '0123456789', bankCode: '011' }),
    ).toThrow(/more than zero/);
  });

  it('never sends null', () => {
    expect(() => wireJson({ a: null as unknown as undefined })).toThrow(/a must not be null/);
  });
});

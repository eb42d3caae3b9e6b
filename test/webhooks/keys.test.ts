import { describe, expect, it } from 'vitest';
import { transactionSchema } from '../../src/cngn/schemas.js';
import { eventForTransaction } from '../../src/webhooks/keys.js';
import { OBJECT_MEMBER_NAMES } from '../support/fuzz.js';

const completed = (trxType: string) =>
  transactionSchema.parse({
    id: 'tx-1',
    trx_ref: 'REF-1',
    status: 'completed',
    trx_type: trxType,
    amount: '10',
  });

describe('the event a settled transaction stands for', () => {
  it('names the completion of its type', () => {
    expect(eventForTransaction(completed('withdraw'))?.name).toBe('withdrawal.completed');
    expect(eventForTransaction(completed('FIAT_REDEEM'))?.name).toBe('redemption.completed');
  });

  it('reads a type named like an Object member as an unknown type, never as that member', () => {
    for (const name of OBJECT_MEMBER_NAMES) {
      expect(eventForTransaction(completed(name))?.name).toBe('transaction.completed');
    }
  });
});

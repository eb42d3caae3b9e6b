import { describe, expect, it } from 'vitest';
import {
  classifyStatus,
  dedicatedAccountsSchema,
  networkSchema,
  redeemResultSchema,
  resolvedAccountSchema,
  transactionPageSchema,
  transactionSchema,
  webhookEventSchema,
} from '../../src/cngn/schemas.js';

const tx = {
  id: 'b0f7',
  from: '0xabc',
  receiver: { bank: 'First Bank', accountNumber: '3069839406' },
  amount: '5000.00',
  description: 'Redemption',
  createdAt: '2026-08-14T09:30:00.000Z',
  trx_ref: 'RDM-1',
  trx_type: 'fiat_redeem',
  network: 'xbn',
  asset_type: 'wrapped',
  asset_symbol: 'cNGN',
  base_trx_hash: null,
  extl_trx_hash: null,
  explorer_link: null,
  status: 'pending',
  requires_multi_sig: false,
};

describe('tolerant parsing of every documented shape', () => {
  it('reads a network whatever its blockchain metadata looks like', () => {
    const base = { id: 'n1', name: 'Base', short_name: 'base', isDisabled: false };
    for (const blockchain of [null, undefined, { id: 8453, name: 'Base' }, 'base-mainnet', 8453, ['x']]) {
      const parsed = networkSchema.parse({ ...base, blockchain });
      expect(parsed).toMatchObject(base);
      expect(parsed.blockchain).toEqual(blockchain);
    }
  });

  it('accepts dedicated virtual accounts as an array or as one object', () => {
    const one = { accountNumber: '1234567890', accountName: 'Acme', bankName: 'Wema', bankCode: '035' };
    expect(dedicatedAccountsSchema.parse([one])).toHaveLength(1);
    expect(dedicatedAccountsSchema.parse(one)).toEqual([one]);
  });

  it('reads account resolution in camelCase and snake_case alike', () => {
    const camel = resolvedAccountSchema.parse({
      accountNumber: '3069839406',
      accountName: 'ADA OBI',
      bankCode: '011',
    });
    const snake = resolvedAccountSchema.parse({
      account_number: '3069839406',
      account_name: 'ADA OBI',
      bank_code: '011',
      bank_name: 'First Bank',
    });
    expect(camel).toMatchObject({ accountNumber: '3069839406', accountName: 'ADA OBI', bankCode: '011' });
    expect(snake).toMatchObject({ accountNumber: '3069839406', accountName: 'ADA OBI', bankCode: '011' });
    expect(resolvedAccountSchema.safeParse({ bankCode: '011' }).success).toBe(false);
  });

  it('takes the redemption reference from {trxRef,address} or from a full transaction', () => {
    expect(redeemResultSchema.parse({ trxRef: 'R1', address: '0x1' })).toMatchObject({
      trxRef: 'R1',
      address: '0x1',
    });
    const full = redeemResultSchema.parse(tx);
    expect(full.trxRef).toBe('RDM-1');
    expect(full.transaction?.status).toBe('pending');
    expect(redeemResultSchema.safeParse({ address: '0x1' }).success).toBe(false);
  });

  it('reads receivers as strings, addresses, or banks given as text or objects', () => {
    expect(transactionSchema.parse({ ...tx, receiver: '011:1234567890' }).receiver).toBe('011:1234567890');
    expect(transactionSchema.parse({ ...tx, receiver: { address: '0xdef' } }).receiver).toEqual({
      address: '0xdef',
    });
    const bankObject = { name: 'First Bank', code: '011', slug: 'firstbank' };
    expect(
      transactionSchema.parse({ ...tx, receiver: { bank: bankObject, accountNumber: '1' } }).receiver,
    ).toMatchObject({
      bank: bankObject,
    });
  });

  it('reads the transaction list paged or as a bare array', () => {
    const paged = transactionPageSchema.parse({
      data: [tx],
      pagination: { count: 1, pages: 1, isLastPage: true, nextPage: null, previousPage: null },
    });
    expect(paged.data).toHaveLength(1);
    expect(paged.pagination?.isLastPage).toBe(true);
    const bare = transactionPageSchema.parse([tx]);
    expect(bare).toMatchObject({ data: [{ trx_ref: 'RDM-1' }], pagination: null });
  });

  it('keeps amounts decimal-exact, as text', () => {
    expect(transactionSchema.parse({ ...tx, amount: 1500.5 }).amount).toBe('1500.50');
    expect(transactionSchema.parse({ ...tx, amount: '1000000' }).amount).toBe('1000000.00');
    expect(transactionSchema.parse({ ...tx, amount: '0.000001' }).amount).toBe('0.000001');
  });

  it('reads webhook events with a string receiver and keeps unknown fields', () => {
    const event = webhookEventSchema.parse({
      event: 'transaction.failed',
      data: {
        trx_ref: 'R',
        status: 'failed',
        receiver: '011:3069839406:ADA OBI',
        reason: 'Provider failed to process payout',
        extra: 1,
      },
      timestamp: '2026-08-14T09:30:00.000Z',
    });
    expect(event.data.receiver).toBe('011:3069839406:ADA OBI');
    expect((event.data as Record<string, unknown>).extra).toBe(1);
  });
});

describe('status vocabulary', () => {
  it('treats completed and success alike as final-good, and maps the rest', () => {
    expect(classifyStatus('completed')).toBe('succeeded');
    expect(classifyStatus('success')).toBe('succeeded');
    expect(classifyStatus('SUCCESS')).toBe('succeeded');
    expect(classifyStatus('failed')).toBe('failed');
    expect(classifyStatus('rejected')).toBe('failed');
    expect(classifyStatus('pending_redeem')).toBe('pending');
    expect(classifyStatus('processing')).toBe('pending');
    expect(classifyStatus('mystery')).toBe('unknown');
    expect(classifyStatus(null)).toBe('unknown');
  });
});

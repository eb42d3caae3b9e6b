// The service's transactions and webhook events as the approval engine reads them: which request
// kind a transaction is, where it went, how it stands, and what a webhook says happened.
import { describe, expect, it } from 'vitest';
import { custodyGateway, custodyReport, custodyTransaction } from '../../src/cngn/custody-gateway.js';
import { RateBudgetError } from '../../src/cngn/errors.js';
import { transactionSchema, webhookEventSchema } from '../../src/cngn/schemas.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { clientFor } from '../support/cngn-client.js';

const tx = (fields: Record<string, unknown>) =>
  custodyTransaction(
    transactionSchema.parse({ trx_ref: 'TRX-1', amount: '640', status: 'completed', ...fields }),
  );

describe('a listed transaction', () => {
  it('knows the request kind from either vocabulary of trx_type, and no kind from another', () => {
    expect(tx({ trx_type: 'Withdrawal' }).kind).toBe('withdraw');
    expect(tx({ trx_type: 'withdraw' }).kind).toBe('withdraw');
    expect(tx({ trx_type: 'fiat_redeem' }).kind).toBe('redeem');
    expect(tx({ trx_type: 'enaira_redeem' }).kind).toBe('redeem');
    expect(tx({ trx_type: 'swap' }).kind).toBe('bridge');
    expect(tx({ trx_type: 'deposit' }).kind).toBeUndefined();
    expect(tx({ trx_type: 'toString' }).kind).toBeUndefined();
    expect(tx({}).kind).toBeUndefined();
  });

  it('reads the destination from a bare bank:account string or a receiver object', () => {
    expect(tx({ receiver: '011:1234567890' }).destination).toEqual({
      address: '011:1234567890',
      accountNumber: '1234567890',
      bankCode: '011',
    });
    expect(tx({ receiver: { address: '0xdef' } }).destination).toEqual({ address: '0xdef' });
    expect(tx({ receiver: { accountNumber: '1234567890', bank: '011' } }).destination).toEqual({
      accountNumber: '1234567890',
      bankCode: '011',
    });
    expect(
      tx({ receiver: { accountNumber: '1234567890', bank: { name: 'GTBank', code: '058' } } }).destination,
    ).toEqual({ accountNumber: '1234567890', bankCode: '058' });
    expect(tx({ receiver: { accountNumber: '1234567890', bank: 'First Bank' } }).destination).toEqual({
      accountNumber: '1234567890',
    });
    expect(tx({}).destination).toEqual({});
  });

  it('says how it stands whatever word the service used, and keeps the word', () => {
    expect(tx({ status: 'successful' })).toMatchObject({ status: 'successful', result: 'succeeded' });
    expect(tx({ status: 'reversed' }).result).toBe('failed');
    expect(tx({ status: 'processing' }).result).toBe('pending');
    expect(tx({ status: null })).toMatchObject({ status: 'unknown', result: 'unknown' });
  });

  it('prefers the external chain hash, and keeps the explorer link', () => {
    expect(
      tx({ base_trx_hash: '0xbase', extl_trx_hash: '0xextl', explorer_link: 'https://x.test/tx' }),
    ).toMatchObject({
      hash: '0xextl',
      explorerLink: 'https://x.test/tx',
    });
    expect(tx({ base_trx_hash: '0xbase' }).hash).toBe('0xbase');
    expect(tx({}).hash).toBeUndefined();
  });
});

const report = (event: string, data: Record<string, unknown>) =>
  custodyReport(webhookEventSchema.parse({ event, data }));

describe('a webhook report', () => {
  it('takes the final result from the event name first, then from the status', () => {
    expect(report('withdrawal.completed', { trx_ref: 'TRX-1', status: 'processing' }).result).toBe(
      'completed',
    );
    expect(report('transaction.failed', { trx_ref: 'TRX-1' }).result).toBe('failed');
    expect(report('transaction.updated', { trx_ref: 'TRX-1', status: 'success' }).result).toBe('completed');
    expect(report('transaction.updated', { trx_ref: 'TRX-1', status: 'declined' }).result).toBe('failed');
    expect(report('transaction.updated', { trx_ref: 'TRX-1', status: 'pending' }).result).toBeUndefined();
  });

  it('settles nothing when its name and its own status disagree, and says so', () => {
    const completedButFailed = report('withdrawal.completed', {
      trx_ref: 'TRX-1',
      status: 'failed',
      reason: 'Provider failed',
      amount: '1600.00',
    });
    expect(completedButFailed.result).toBeUndefined();
    expect(completedButFailed.contradictsItself).toBe(true);
    expect(completedButFailed).toMatchObject({
      status: 'failed',
      reason: 'Provider failed',
      amount: '1600.00',
    });
    for (const status of ['completed', 'success', 'COMPLETED']) {
      const failedButCompleted = report('transaction.failed', { trx_ref: 'TRX-1', status });
      expect(failedButCompleted.result).toBeUndefined();
      expect(failedButCompleted.contradictsItself).toBe(true);
    }
    expect(report('redemption.completed', { trx_ref: 'TRX-1', status: 'rejected' }).contradictsItself).toBe(
      true,
    );
    // An own status that agrees, says nothing final, or is absent: the name decides, as it always did.
    for (const status of ['completed', 'success', 'pending', undefined]) {
      const agrees = report('withdrawal.completed', { trx_ref: 'TRX-1', ...(status ? { status } : {}) });
      expect(agrees.result).toBe('completed');
      expect(agrees.contradictsItself).toBeUndefined();
    }
    expect(report('transaction.failed', { trx_ref: 'TRX-1', status: 'rejected' }).result).toBe('failed');
  });

  it('marks an amount that reading left out as no amount, and an absent one as none', () => {
    const event = webhookEventSchema.parse({ event: 'withdrawal.completed', data: { trx_ref: 'TRX-1' } });
    expect(custodyReport(event, ['amount']).amountInvalid).toBe(true);
    expect(custodyReport(event, ['receiver']).amountInvalid).toBeUndefined();
    expect(custodyReport(event).amountInvalid).toBeUndefined();
  });

  it('carries a plain amount, and marks one that is no amount', () => {
    expect(report('withdrawal.completed', { trx_ref: 'TRX-1', amount: '1600.00' }).amount).toBe('1600.00');
    const invalid = report('withdrawal.completed', { trx_ref: 'TRX-1', amount: '1e309' });
    expect(invalid.amountInvalid).toBe(true);
    expect(invalid.amount).toBeUndefined();
  });

  it('names every reference it was given, and what it said', () => {
    expect(
      report('bridge.completed', {
        trx_ref: 'TRX-1',
        transactionId: 'TX-9',
        status: 'completed',
        reason: 'done',
        explorer_link: 'https://x.test/tx',
        base_trx_hash: '0xbase',
      }),
    ).toEqual({
      name: 'bridge.completed',
      key: 'bridge.completed|TX-9|TRX-1|completed|',
      references: ['TRX-1', 'TX-9'],
      result: 'completed',
      status: 'completed',
      reason: 'done',
      explorerLink: 'https://x.test/tx',
      hash: '0xbase',
    });
    expect(report('transaction.failed', { transactionId: 'TX-9' })).toEqual({
      name: 'transaction.failed',
      key: 'transaction.failed|TX-9|||',
      references: ['TX-9'],
      result: 'failed',
    });
  });
});

describe('the reads before a late send', () => {
  it('wait for the budget as a money call does, where a tracking read is turned away', async () => {
    const sandbox = await startSandbox({ rateLimit: false });
    // 5 a window: the last one is kept from background work.
    const { client, store } = await clientFor(sandbox, { rateLimit: { limit: 5, windowSeconds: 60 } });
    try {
      const gateway = custodyGateway(client);
      for (let i = 0; i < 4; i++) await gateway.transactions(1, 10);
      await expect(gateway.transactions(1, 10)).rejects.toBeInstanceOf(RateBudgetError);
      await expect(gateway.whitelist()).rejects.toBeInstanceOf(RateBudgetError);
      const page = await gateway.transactions(1, 10, { beforeSending: true });
      expect(page.transactions.length).toBeGreaterThan(0);
      expect(sandbox.count('GET', '/v1/api/transactions')).toBe(5);
    } finally {
      await client.close();
      await store.close();
      await sandbox.stop();
    }
  });
});

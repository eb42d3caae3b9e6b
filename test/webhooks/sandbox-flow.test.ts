// The sandbox's signed deliveries flow end to end into the alerts channel: outgoing transfers that
// complete or fail, and on-chain deposits, each as one readable message.
import { describe, expect } from 'vitest';
import { Money } from '../../src/format/money.js';
import {
  FAILING_PAYOUT_ACCOUNT,
  FAILING_WITHDRAWAL_ADDRESS,
  PAYOUT_FAILED,
  startSandbox,
} from '../../src/sandbox/index.js';
import { bankNamesFrom } from '../../src/webhooks/index.js';
import { clientFor } from '../support/cngn-client.js';
import { SECRET } from '../support/webhook-rig.js';
import { webhooksTest } from '../support/webhooks.js';

/** A sandbox delivering its webhooks to a rig that reads transactions through a client on it. */
const test = webhooksTest.extend('flow', async ({ startRig, defer }) => {
  const sandbox = await startSandbox({ webhookSecret: SECRET, settleDelayMs: 60_000 });
  defer(() => sandbox.stop());
  const { client, store } = await clientFor(sandbox, { environment: 'sandbox' });
  defer(() => store.close());
  const rig = await startRig({
    transactions: client,
    alertsChannel: 'CALERTS',
    bankName: bankNamesFrom(client),
  });
  sandbox.setWebhookUrl(rig.url);
  return { sandbox, client, rig };
});

const text = (c: { body: Record<string, unknown> }) =>
  `${String(c.body.text)} ${JSON.stringify(c.body.blocks)}`;

describe('sandbox webhooks into the channel', () => {
  test('posts a failed redemption saying the token went back to the balance, with the reason', async ({
    flow,
  }) => {
    const { sandbox: sb, client, rig: r } = flow;
    const result = await client.redeem({
      amount: Money.parse('20000'),
      accountNumber: FAILING_PAYOUT_ACCOUNT,
      bankCode: '044',
    });
    await sb.settleAll();
    const post = await r.fake.waitFor('chat.postMessage', (c) => text(c).includes(result.trxRef));
    expect(post.body.text).toContain('Redemption failed: ₦20,000.00 went back to the balance');
    expect(text(post)).toContain(PAYOUT_FAILED);
    expect(text(post)).toContain('••••9999');
  });

  test('posts a completed redemption and a failed withdrawal', async ({ flow }) => {
    const { sandbox: sb, client, rig: r } = flow;
    const paid = await client.redeem({
      amount: Money.parse('15000'),
      accountNumber: '0123456789',
      bankCode: '044',
    });
    const networks = await client.getNetworks();
    const base = networks.find((n) => n.short_name === 'base')!;
    const failed = await client.withdraw({
      amount: Money.parse('100'),
      address: FAILING_WITHDRAWAL_ADDRESS,
      networkId: base.id,
      shouldSaveAddress: true,
    });
    await sb.settleAll();
    const redemption = await r.fake.waitFor('chat.postMessage', (c) => text(c).includes(paid.trxRef));
    expect(redemption.body.text).toContain('Redemption paid out: ₦15,000.00');
    expect(text(redemption)).toContain('Access Bank');
    const withdrawal = await r.fake.waitFor('chat.postMessage', (c) => text(c).includes(failed.trxRef));
    expect(withdrawal.body.text).toContain('Withdrawal failed: ₦100.00');
  });

  test('posts an on-chain deposit with both hashes linked', async ({ flow }) => {
    const { sandbox: sb, rig: r } = flow;
    const { trx_ref } = await sb.simulateCryptoDeposit({ amount: '3000', network: 'base' });
    const post = await r.fake.waitFor('chat.postMessage', (c) => text(c).includes(trx_ref));
    expect(post.body.text).toContain('On-chain deposit credited: ₦3,000.00');
    expect(
      text(post).match(/https:\/\/sepolia\.basescan\.org\/tx\/0x[0-9a-f]+/g)?.length,
    ).toBeGreaterThanOrEqual(2);
    expect((await r.webhooks.reconciler!.runOnce()).queued).toBe(0);
  });
});

// Each event kind becomes one readable message: amounts in naira, times in Lagos, hashes linked,
// accounts masked, the environment marked. Pure builders: no server needed.
import { describe, expect, it } from 'vitest';
import { webhookEventSchema } from '../../src/cngn/schemas.js';
import { webhookMessage } from '../../src/slack/alerts/message-blocks.js';
import type { AlertInput } from '../../src/webhooks/types.js';

const MINT = '0x1111111111111111111111111111111111111111111111111111111111111111';
const SOURCE = '0x2222222222222222222222222222222222222222222222222222222222222222';

function render(
  event: string,
  data: Record<string, unknown>,
  extra: Partial<AlertInput> = {},
  timestamp = '2026-11-23T08:05:01Z',
) {
  const parsed = webhookEventSchema.parse({
    event,
    data: {
      transactionId: 'tx-1',
      trx_ref: 'REF-1',
      amount: '1500000.5',
      occurredAt: '2026-11-23T08:05:00Z',
      ...data,
    },
    timestamp,
  });
  const message = webhookMessage({ event: parsed, origin: 'webhook', environment: 'sandbox', ...extra });
  return { ...message, all: `${message.text}\n${JSON.stringify(message.blocks)}` };
}

describe('webhook messages', () => {
  it('says a received deposit is not credited yet', () => {
    const m = render('deposit.received', { trx_type: 'fiat_buy', status: 'pending' });
    expect(m.text).toContain('Deposit received: ₦1,500,000.50 (not credited yet)');
    expect(m.all).toContain('not yet credited');
    expect(m.all).toContain('23 Nov 2026, 09:05 WAT');
    expect(m.text).toContain('[SANDBOX]');
    expect(m.all).toContain('REF-1');
  });

  it('shows a completed fiat deposit as credited', () => {
    const m = render('deposit.completed', { trx_type: 'fiat_buy' });
    expect(m.text).toContain('Deposit credited: ₦1,500,000.50');
    expect(m.all).toContain('Fiat deposit');
  });

  it('shows an on-chain deposit with its network, source hash and mint hash linked to the explorer', () => {
    const m = render('deposit.completed', {
      trx_type: 'crypto_deposit',
      network: 'base',
      base_trx_hash: MINT,
      extl_trx_hash: SOURCE,
      explorer_link: `https://sepolia.basescan.org/tx/${MINT}`,
      receiver: 'Wrap CBDC',
    });
    expect(m.text).toContain('On-chain deposit credited');
    expect(m.all).toContain('on base');
    expect(m.all).toContain(`<https://sepolia.basescan.org/tx/${MINT}|0x1111…1111>`);
    expect(m.all).toContain(`<https://sepolia.basescan.org/tx/${SOURCE}|0x2222…2222>`);
    expect(m.all).toContain('Source-network hash');
    expect(m.all).toContain('Mint hash');
  });

  it('links hashes to the live explorer in live mode', () => {
    const m = render(
      'withdrawal.completed',
      {
        trx_type: 'withdraw',
        network: 'bsc',
        base_trx_hash: MINT,
        receiver: '0xabcdefabcdefabcdefabcdefabcdefabcdefabcd',
      },
      { environment: 'live' },
    );
    expect(m.text).toContain('[LIVE] Withdrawal completed: ₦1,500,000.50');
    expect(m.all).toContain(`https://bscscan.com/tx/${MINT}`);
    expect(m.all).toContain('0xabcdefabcdefabcdefabcdefabcdefabcdefabcd');
  });

  it('shows a completed bridge with both hashes', () => {
    const m = render(
      'bridge.completed',
      { trx_type: 'swap', network: 'polygon', base_trx_hash: MINT, extl_trx_hash: SOURCE },
      { environment: 'test' },
    );
    expect(m.text).toContain('[TEST] Bridge completed');
    expect(m.all).toContain('Destination hash');
    expect(m.all).toContain(`https://amoy.polygonscan.com/tx/${SOURCE}`);
  });

  it('shows a redemption with amount, bank and a masked account from the receiver string', () => {
    const m = render('redemption.completed', { trx_type: 'fiat_redeem', receiver: '058:0123456789:ADA OBI' });
    expect(m.text).toContain('Redemption paid out: ₦1,500,000.50');
    expect(m.all).toContain('••••6789');
    expect(m.all).not.toContain('0123456789');
    expect(m.all).toContain('Bank code 058');
    expect(m.all).toContain('ADA OBI');
  });

  it('names the bank when the receiver is an object or a lookup is given', () => {
    const parsed = webhookEventSchema.parse({
      event: 'redemption.completed',
      data: { amount: '10', receiver: '058:0123456789:ADA OBI' },
    });
    const named = webhookMessage(
      { event: parsed, origin: 'webhook', environment: 'sandbox' },
      { bankName: (code) => (code === '058' ? 'GTBank' : undefined) },
    );
    expect(JSON.stringify(named.blocks)).toContain('GTBank');
    const object = render('redemption.completed', {
      receiver: { bank: { name: 'Access Bank', code: '044' }, accountNumber: '9876543210', accountName: 'X' },
    });
    expect(object.all).toContain('Access Bank');
    expect(object.all).toContain('••••3210');
  });

  it('says a failed redemption went back to the balance, with the reason', () => {
    const m = render('transaction.failed', {
      trx_type: 'fiat_redeem',
      status: 'failed',
      receiver: '058:0123456789:ADA OBI',
      reason: 'Provider failed to process payout',
    });
    expect(m.text).toContain('Redemption failed: ₦1,500,000.50 went back to the balance');
    expect(m.all).toContain('went back to the balance. Reason: *Provider failed to process payout*');
    expect(m.all).toContain('••••6789');
  });

  it('says which outgoing transfer failed and why', () => {
    const w = render('transaction.failed', { trx_type: 'withdraw', reason: 'Transaction reverted on chain' });
    expect(w.text).toContain('Withdrawal failed: ₦1,500,000.50 — Transaction reverted on chain');
    const b = render('transaction.failed', { trx_type: 'swap', reason: 'Bridge route unavailable' });
    expect(b.text).toContain('Bridge failed');
    expect(b.all).toContain('Bridge route unavailable');
    const none = render('transaction.failed', { trx_type: 'withdraw' });
    expect(none.all).toContain('no reason given');
  });

  it('posts an unknown event generically with its key fields', () => {
    const m = render('transaction.reversed', {
      trx_type: 'withdraw',
      status: 'reversed',
      reason: 'chargeback',
    });
    expect(m.text).toContain('cNGN event transaction.reversed: ₦1,500,000.50');
    expect(m.all).toContain('reversed');
    expect(m.all).toContain('chargeback');
    expect(m.all).toContain('REF-1');
    expect(m.all).toContain('tx-1');
  });

  it('shows an event with unreadable fields generically and names what was left out', () => {
    const m = render('deposit.completed', { trx_type: 'fiat_buy' }, { unreadable: ['receiver', '<x>'] });
    expect(m.text).toContain('cNGN event deposit.completed: ₦1,500,000.50');
    expect(m.all).toContain('Some fields could not be read and are left out: `receiver`, `&lt;x&gt;`.');
    expect(m.all).toContain('REF-1');
  });

  it('marks what the reconciler found', () => {
    const m = render('deposit.completed', { trx_type: 'fiat_buy' }, { origin: 'reconciler' });
    expect(m.all).toContain('Seen by reconciliation — no webhook arrived');
    expect(m.text).toContain('(seen by reconciliation)');
  });

  it('escapes text that came from outside', () => {
    const m = render('transaction.failed', { trx_type: 'withdraw', reason: '<!channel> & co' });
    expect(m.all).toContain('&lt;!channel&gt; &amp; co');
    expect(m.all).not.toContain('<!channel>');
  });

  it('never lets a network, status, amount or time from outside ping the channel', () => {
    const ping = '<!channel>';
    const cases = [
      render('deposit.completed', { trx_type: 'crypto_deposit', network: ping }),
      render('withdrawal.completed', { trx_type: 'withdraw', network: ping }),
      render('bridge.completed', { trx_type: 'swap', network: ping }),
      render('transaction.failed', { trx_type: 'withdraw', network: ping }),
      render('transaction.reversed', { network: ping, status: ping }),
      render('deposit.completed', { trx_type: 'fiat_buy', amount: ping }),
      render('transaction.reversed', { occurredAt: ping }, {}, ping),
    ];
    for (const m of cases) {
      expect(m.all).not.toContain(ping);
      expect(m.all).toContain('&lt;!channel&gt;');
    }
  });

  it('escapes an unknown event name once, not twice', () => {
    const m = render('odd.<event>&', {});
    expect(m.all).toContain('cNGN event `odd.&lt;event&gt;&amp;`');
    expect(m.all).not.toContain('&amp;lt;');
  });

  it('recognises an on-chain deposit whatever the case of its type', () => {
    const m = render('deposit.completed', {
      trx_type: 'CRYPTO_DEPOSIT',
      network: 'base',
      base_trx_hash: MINT,
    });
    expect(m.text).toContain('On-chain deposit credited');
    expect(m.all).toContain('Mint hash');
  });
});

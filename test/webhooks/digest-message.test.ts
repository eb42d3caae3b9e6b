// The digest message itself: what it lists, how it adds up, and that nothing from outside is live
// markup in it. Pure builders: no server needed.
import { describe, expect, it } from 'vitest';
import { webhookEventSchema } from '../../src/cngn/schemas.js';
import { alertDigestMessage, alertDigestPlaceholder } from '../../src/slack/alerts/digest-blocks.js';
import { alertWhereaboutsBlock } from '../../src/slack/reads/alert-whereabouts.js';
import { fitsSlack } from '../../src/webhooks/digest.js';
import type { AlertInput, DigestInput } from '../../src/webhooks/types.js';

const HASH = '0x3333333333333333333333333333333333333333333333333333333333333333';

function alert(event: string, data: Record<string, unknown>): AlertInput {
  return {
    event: webhookEventSchema.parse({ event, data: { transactionId: 'tx', ...data }, timestamp: 'x' }),
    origin: 'webhook',
    environment: 'sandbox',
  };
}

function digest(alerts: AlertInput[], extra: Partial<DigestInput> = {}): DigestInput {
  return { alerts, environment: 'sandbox', part: 1, more: false, ...extra };
}

describe('alert digest message', () => {
  it('lists each event with its amount, reference and a checked explorer link', () => {
    const m = alertDigestMessage(
      digest([
        alert('withdrawal.completed', {
          trx_ref: 'REF-W1',
          amount: '250',
          base_trx_hash: HASH,
          network: 'base',
        }),
      ]),
    );
    const all = JSON.stringify(m.blocks);
    expect(all).toContain('• ₦250.00 · Ref `REF-W1` · <https://sepolia.basescan.org/tx/');
    expect(all).toContain('|0x3333…3333>');
  });

  it('escapes references and links from outside: no mention, no foreign link', () => {
    const m = alertDigestMessage(
      digest([
        alert('deposit.completed', {
          trx_ref: '<!channel> <https://evil.example|pay here>',
          amount: '10',
          explorer_link: 'https://evil.example/tx/1',
        }),
        alert('deposit.completed', { trx_ref: 'R&D', amount: '5' }),
      ]),
    );
    const all = `${m.text}${JSON.stringify(m.blocks)}`;
    expect(all).not.toContain('<!channel>');
    expect(all).not.toContain('<https://evil.example');
    expect(all).toContain('&lt;!channel&gt;');
    expect(all).toContain('R&amp;D');
  });

  it('adds up exactly and says which amounts it could not add', () => {
    const m = alertDigestMessage(
      digest([
        alert('deposit.completed', { trx_ref: 'A', amount: '0.1' }),
        alert('deposit.completed', { trx_ref: 'B', amount: '0.2' }),
        alert('deposit.completed', { trx_ref: 'C', amount: '1.005' }),
      ]),
    );
    expect(JSON.stringify(m.blocks)).toContain(
      '*3 deposits completed · ₦0.30 (1 without an exact amount, not in the total)*',
    );
  });

  it('splits a long list over sections within Slack limits and says when more follow', () => {
    const alerts = Array.from({ length: 100 }, (_, i) =>
      alert('deposit.completed', { trx_ref: `REF-LONG-REFERENCE-${i}-${'x'.repeat(20)}`, amount: '1' }),
    );
    const m = alertDigestMessage(digest(alerts, { part: 3, more: true }));
    expect(fitsSlack(m)).toBe(true);
    expect(m.blocks.length).toBeGreaterThan(4);
    expect(JSON.stringify(m.blocks)).toContain('Alert digest, continued (part 3): 100 events');
    expect(JSON.stringify(m.blocks)).toContain('More events follow in the next digest message');
    expect(m.text).toBe('[SANDBOX] Alert digest: 100 deposits completed · ₦100.00');
  });

  it('names no event in its placeholder', () => {
    const p = alertDigestPlaceholder(digest([alert('deposit.completed', { trx_ref: 'REF-P', amount: '7' })]));
    expect(`${p.text}${JSON.stringify(p.blocks)}`).not.toMatch(/REF-P|₦/);
  });

  it('links only a Slack permalink for an alert; anything else shows the channel and ts', () => {
    const block = alertWhereaboutsBlock([
      {
        event: 'deposit.completed',
        state: 'posted',
        channel: 'CALERTS',
        ts: '1.000001',
        digestPart: 2,
        permalink: 'https://acme.slack.com/archives/CALERTS/p1000001',
      },
      {
        event: 'redemption.completed',
        state: 'posted',
        channel: 'CALERTS',
        ts: '1.000002',
        permalink: 'https://evil.example/archives/CALERTS/p1000002',
      },
      { event: 'transaction.failed', state: 'set-aside' },
    ]);
    const text = JSON.stringify(block);
    expect(text).toContain('<https://acme.slack.com/archives/CALERTS/p1000001|the alert digest, part 2>');
    expect(text).not.toContain('evil.example');
    expect(text).toContain('in the alert in <#CALERTS>, message ts `1.000002`');
    expect(text).toContain('set aside in the dead-letter list');
  });
});

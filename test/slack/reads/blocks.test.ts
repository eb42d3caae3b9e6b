import type { KnownBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import type { Network, Transaction, WhitelistedAddress } from '../../../src/cngn/schemas.js';
import {
  balanceMessage,
  banksMessage,
  txListMessage,
  whitelistMessage,
} from '../../../src/slack/reads/blocks.js';
import { withEnvironment } from '../../../src/slack/ui/messages.js';

/** Every mrkdwn/plain text inside a message's blocks. */
function texts(blocks: KnownBlock[]): string[] {
  const out: string[] = [];
  const walk = (value: unknown) => {
    if (Array.isArray(value)) for (const v of value) walk(v);
    else if (value && typeof value === 'object') {
      const o = value as Record<string, unknown>;
      if (typeof o.text === 'string') out.push(o.text);
      for (const v of Object.values(o)) walk(v);
    }
  };
  walk(blocks);
  return out;
}

function withinLimits(blocks: KnownBlock[]) {
  expect(blocks.length).toBeLessThanOrEqual(50);
  for (const text of texts(blocks)) expect(text.length).toBeLessThanOrEqual(3000);
}

describe('read answers stay inside Block Kit limits', () => {
  it('cuts a long bank list and says how many were left out', () => {
    const banks = Array.from({ length: 600 }, (_, i) => ({
      name: `Bank number ${i} with a fairly long registered name Plc`,
      code: String(100000 + i),
    }));
    const message = withEnvironment(banksMessage(banks, undefined, banks.length), 'sandbox');
    withinLimits(message.blocks as KnownBlock[]);
    const all = texts(message.blocks as KnownBlock[]).join('\n');
    const hidden = /…and (\d+) more banks/.exec(all);
    expect(hidden).not.toBeNull();
    const shown = (all.match(/code `\d+`/g) ?? []).length;
    expect(shown + Number(hidden?.[1])).toBe(600);
    expect(all).toContain('SANDBOX');
  });

  it('cuts a long whitelist the same way', () => {
    const networks: Network[] = [
      { id: 'n1', name: 'Base', short_name: 'base', isDisabled: false, blockchain: null },
    ];
    const addresses: WhitelistedAddress[] = Array.from({ length: 300 }, (_, i) => ({
      id: `w${i}`,
      networkId: 'n1',
      publicKey: `0x${i.toString(16).padStart(40, '0')}`,
    }));
    const message = whitelistMessage(addresses, networks);
    withinLimits(message.blocks as KnownBlock[]);
    expect(texts(message.blocks as KnownBlock[]).join('\n')).toMatch(/more/);
  });

  it('pages transactions with buttons only where there is a page to go to, times from the given now', () => {
    const now = new Date('2026-03-01T12:00:00Z');
    const tx: Transaction = {
      trx_ref: 'WDR-1',
      amount: '1500.5',
      status: 'pending',
      trx_type: 'withdraw',
      createdAt: '2026-03-01T11:31:00Z',
    } as Transaction;
    const first = txListMessage([tx], { count: 25, pages: 3, isLastPage: false, nextPage: 2 }, 1, now);
    const actions = (first.blocks as KnownBlock[]).filter((b) => b.type === 'actions');
    expect(JSON.stringify(actions)).toContain('Next');
    expect(JSON.stringify(actions)).not.toContain('Previous');
    const text = texts(first.blocks as KnownBlock[]).join('\n');
    expect(text).toContain('₦1,500.50');
    expect(text).toMatch(/29 minutes ago/);
    const last = txListMessage([tx], { count: 25, pages: 3, isLastPage: true, previousPage: 2 }, 3, now);
    expect(JSON.stringify(last.blocks)).not.toContain('Next');
    expect(JSON.stringify(last.blocks)).toContain('Previous');
  });

  it('says when the balance was read, in Lagos time', () => {
    const message = balanceMessage(
      [{ asset_code: 'cngn', balance: '1250000' }],
      new Date('2026-03-01T08:05:00Z'),
    );
    expect(texts(message.blocks as KnownBlock[]).join('\n')).toMatch(/as of .*09:05/);
  });
});

// The pure builders behind /cngn read answers, fed edge cases the sandbox does not produce.
import type { KnownBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import type {
  DedicatedAccount,
  Network,
  Transaction,
  WhitelistedAddress,
} from '../../../src/cngn/schemas.js';
import {
  accountsMessage,
  balanceMessage,
  txDetailMessage,
  whitelistMessage,
} from '../../../src/slack/reads/blocks.js';

const textOf = (blocks: unknown) => JSON.stringify(blocks);
const ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';
const networks: Network[] = [
  { id: 'n-base', name: 'Base', short_name: 'base', isDisabled: false, blockchain: null },
  { id: 'n-sol', name: 'Solana', short_name: 'sol', isDisabled: false, blockchain: null },
];

describe('balance "as of"', () => {
  const entries = [{ asset_code: 'cngn', balance: '1250000' }];

  it('shows only the time when the balance was read earlier the same Lagos day', () => {
    const message = balanceMessage(
      entries,
      new Date('2026-03-01T09:26:00Z'),
      new Date('2026-03-01T22:59:00Z'),
    );
    expect(textOf(message.blocks)).toContain('as of 10:26 WAT');
  });

  it('shows the date too when the read was on another Lagos day', () => {
    // 23:30 UTC is already the next day in Lagos (UTC+1).
    const message = balanceMessage(
      entries,
      new Date('2026-03-01T22:30:00Z'),
      new Date('2026-03-01T23:30:00Z'),
    );
    expect(textOf(message.blocks)).toContain('as of Sun 1 Mar 2026, 23:30 WAT');
  });
});

describe('accounts list', () => {
  it('cuts a long list at a whole account with an exact count of the rest', () => {
    const accounts: DedicatedAccount[] = Array.from({ length: 120 }, (_, i) => ({
      accountNumber: String(1_000_000_000 + i),
      accountName: `TREASURY COLLECTIONS ACCOUNT NUMBER ${i} OF A RATHER LONG BUSINESS NAME LTD`,
      bankName: 'Wema Bank',
      bankCode: '035',
    }));
    const blocks = accountsMessage(accounts).blocks as KnownBlock[];
    const text = (blocks[0] as { text: { text: string } }).text.text;
    expect(text.length).toBeLessThanOrEqual(3000);
    expect(text).not.toMatch(/…$/);
    const hidden = Number(/_…and (\d+) more accounts_$/.exec(text)?.[1]);
    const shown = (text.match(/\*1\d{9}\* · Wema Bank \(035\)\nTREASURY [^\n]+ LTD/g) ?? []).length;
    expect(shown).toBeGreaterThan(0);
    expect(shown + hidden).toBe(120);
  });
});

describe('transaction detail', () => {
  const tx = {
    trx_ref: 'CNGN-WD-1',
    trx_type: 'withdraw',
    status: 'completed',
    amount: '1500',
    network: 'BASE',
    receiver: { address: ADDRESS },
    base_trx_hash: `0x${'a'.repeat(64)}`,
    extl_trx_hash: null,
    explorer_link: null,
  } as unknown as Transaction;

  it('names the network from the list, and links the shortened receiver with the whole address below', () => {
    const text = textOf(txDetailMessage(tx, 'live', networks).blocks);
    expect(text).toContain('*Network*\\nBase');
    expect(text).toContain(`<https://basescan.org/address/${ADDRESS}|0x5290…9EE7>`);
    expect(text).toContain(`Receiver address \`${ADDRESS}\``);
    expect(text).toContain(`<https://basescan.org/tx/0x${'a'.repeat(64)}|0xaaaa…aaaa>`);
  });

  it('falls back to the network code, and to the whole address when no explorer is known', () => {
    const text = textOf(txDetailMessage({ ...tx, network: 'xbn' }, 'live', networks).blocks);
    expect(text).toContain('*Network*\\nxbn');
    expect(text).toContain(`*Receiver*\\n\`${ADDRESS}\``);
    expect(text).not.toContain('Receiver address');
  });
});

describe('whitelist', () => {
  it('links addresses on networks with an explorer, and shows others whole', () => {
    const solana = '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV';
    const text = textOf(
      whitelistMessage(
        [
          { id: 'w1', networkId: 'n-base', publicKey: ADDRESS },
          { id: 'w2', networkId: 'n-sol', publicKey: solana },
        ] as WhitelistedAddress[],
        networks,
        'test',
      ).blocks,
    );
    expect(text).toContain(`*Base* · <https://sepolia.basescan.org/address/${ADDRESS}|0x5290…9EE7>`);
    expect(text).toContain(`\`${ADDRESS}\``);
    expect(text).toContain(`\`${solana}\` on *Solana*`);
  });
});

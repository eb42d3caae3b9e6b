// Withdraw, bridge and whitelist forms check an address by the rules of the network it is for: the
// service lists Solana, Tron and XBN next to the EVM chains, and an EVM-only check would refuse them all.
import { describe, expect, it } from 'vitest';
import { bridgeModal, whitelistModal, withdrawModal } from '../../../src/slack/approvals/blocks/modals.js';
import { parseBridge, parseWhitelist, parseWithdraw } from '../../../src/slack/approvals/views/forms.js';
import { readMetadata, type ViewValues } from '../../../src/slack/ui/view-values.js';

const networks = [
  { id: 'n-base', name: 'Base', shortName: 'base' },
  { id: 'n-sol', name: 'Solana', shortName: 'sol' },
  { id: 'n-xbn', name: 'Bantu', shortName: 'xbn' },
  { id: 'n-tron', name: 'Tron', shortName: 'trx' },
];
const EVM = '0x52908400098527886E0F7030069857D2E4169EE7';
const SOLANA = '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV';
const XBN = `G${'A'.repeat(55)}`;
const TRON = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';

const text = (id: string, value: string) => ({ [id]: { [id]: { type: 'plain_text_input', value } } });
const select = (id: string, value: string) => ({
  [id]: { [id]: { type: 'static_select', selected_option: { value } } },
});
const form = (...parts: object[]) => Object.assign({}, ...parts) as ViewValues;

describe('approval form addresses by network family', () => {
  const withdrawMeta = readMetadata(
    withdrawModal({ networks, whitelist: [], environment: 'SANDBOX' }).private_metadata,
  );

  it('carries the family of each non-EVM network offered', () => {
    expect(withdrawMeta).toEqual({
      networks: ['n-base', 'n-sol', 'n-xbn', 'n-tron'],
      families: { 'n-sol': 'solana', 'n-xbn': 'stellar', 'n-tron': 'tron' },
    });
  });

  it('withdraw: a Solana address to Solana passes; an EVM address to Solana is refused with the reason', () => {
    const withdraw = (network: string, address: string) =>
      parseWithdraw(
        form(
          text('withdraw.amount', '1500'),
          select('withdraw.network', network),
          text('withdraw.address', address),
          text('withdraw.purpose', 'Supplier payout INV-2231'),
        ),
        withdrawMeta.networks ?? [],
        withdrawMeta.families,
      );
    expect(withdraw('n-sol', SOLANA)).toMatchObject({ ok: true, value: { address: SOLANA } });
    expect(withdraw('n-base', EVM)).toMatchObject({ ok: true, value: { address: EVM } });
    expect(withdraw('n-sol', EVM)).toEqual({
      ok: false,
      errors: { 'withdraw.address': expect.stringMatching(/^Address: must be a Solana address/) },
    });
    expect(withdraw('n-base', SOLANA)).toMatchObject({ ok: false });
  });

  it('withdraw: a mistyped Tron or mixed-case EVM address is refused, a character was mistyped', () => {
    const withdraw = (network: string, address: string) =>
      parseWithdraw(
        form(
          text('withdraw.amount', '1500'),
          select('withdraw.network', network),
          text('withdraw.address', address),
          text('withdraw.purpose', 'Supplier payout INV-2231'),
        ),
        withdrawMeta.networks ?? [],
        withdrawMeta.families,
      );
    expect(withdraw('n-tron', TRON)).toMatchObject({ ok: true, value: { address: TRON } });
    expect(withdraw('n-tron', `${TRON.slice(0, -1)}u`)).toEqual({
      ok: false,
      errors: { 'withdraw.address': 'Address: a character was mistyped: the checksum does not match' },
    });
    expect(withdraw('n-base', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD')).toEqual({
      ok: false,
      errors: { 'withdraw.address': expect.stringMatching(/^Address: a character was mistyped: /) },
    });
    // No checksum to check in all-lower: accepted, and carried on checksummed.
    expect(withdraw('n-base', '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed')).toMatchObject({
      ok: true,
      value: { address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' },
    });
  });

  it('bridge: the destination address follows the destination network, the sender the origin', () => {
    const meta = readMetadata(bridgeModal({ networks, environment: 'SANDBOX' }).private_metadata);
    const bridge = (origin: string, destination: string, address: string, sender?: string) =>
      parseBridge(
        form(
          text('bridge.amount', '1500'),
          select('bridge.origin', origin),
          select('bridge.destination', destination),
          text('bridge.address', address),
          ...(sender ? [text('bridge.sender', sender)] : []),
          text('bridge.purpose', 'Liquidity for the other chain'),
        ),
        meta.networks ?? [],
        meta.families,
      );
    expect(bridge('n-base', 'n-xbn', XBN, EVM)).toMatchObject({ ok: true });
    expect(bridge('n-base', 'n-xbn', EVM)).toMatchObject({
      ok: false,
      errors: { 'bridge.address': expect.stringMatching(/^Destination address: must be an XBN address/) },
    });
    expect(bridge('n-base', 'n-sol', SOLANA, SOLANA)).toMatchObject({
      ok: false,
      errors: { 'bridge.sender': expect.stringMatching(/^Sender address:/) },
    });
  });

  it('whitelist: checked by the chosen network; unknown families in metadata are checked as EVM', () => {
    const meta = readMetadata(whitelistModal({ networks, environment: 'SANDBOX' }).private_metadata);
    const add = (network: string, address: string, families = meta.families) =>
      parseWhitelist(
        form(select('whitelist.network', network), text('whitelist.address', address)),
        meta.networks ?? [],
        families,
      );
    expect(add('n-sol', SOLANA)).toMatchObject({ ok: true });
    expect(add('n-sol', SOLANA, { 'n-sol': 'cobol' as never })).toMatchObject({ ok: false });
  });
});

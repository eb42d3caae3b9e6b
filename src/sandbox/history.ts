// The seeded past: a page-able history of mixed transactions over the last days and the whitelist.
// Built from a fixed pseudo-random sequence so every start shows the same story (dates relative to now).
import { Money } from '../format/money.js';
import { BANKS, KNOWN_DESTINATION, type NetworkRecord, stableUuid } from './catalog.js';
import { accountHolderName } from './names.js';
import type { TransactionRecord, TxStatus, TxType, WhitelistRecord } from './types.js';

/** mulberry32: tiny deterministic PRNG, good enough for seed data. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hex(random: () => number, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += Math.floor(random() * 16).toString(16);
  return out;
}

const HOUR = 3_600_000;

export interface SeedIdentity {
  businessId: string;
  initiatorId: string;
  businessAddress: string;
}

export function seedWhitelist(networks: NetworkRecord[], now: number): WhitelistRecord[] {
  const random = prng(7);
  const created = new Date(now - 9 * 24 * HOUR).toISOString();
  const picks = networks.filter((n) => !n.isDisabled).slice(0, 3);
  return picks.map((network, i) => {
    const drawn = `0x${hex(random, 40)}`;
    return {
      id: stableUuid(`whitelist:${network.id}`),
      networkId: network.id,
      publicKey: i === 0 ? KNOWN_DESTINATION : drawn,
      internalPublicKey: `0x${hex(random, 40)}`,
      created_at: created,
      updated_at: created,
    };
  });
}

const PLAN: Array<[TxType, TxStatus]> = [
  ['fiat_buy', 'completed'],
  ['withdraw', 'completed'],
  ['fiat_redeem', 'completed'],
  ['crypto_deposit', 'completed'],
  ['swap', 'completed'],
  ['fiat_buy', 'completed'],
  ['withdraw', 'completed'],
];

export function seedHistory(
  networks: NetworkRecord[],
  whitelist: WhitelistRecord[],
  identity: SeedIdentity,
  now: number,
  count = 36,
): TransactionRecord[] {
  const random = prng(42);
  const live = networks.filter((n) => !n.isDisabled);
  const records: TransactionRecord[] = [];
  let at = now - 2 * HOUR;
  for (let i = 0; i < count; i++) {
    at -= Math.floor((2 + random() * 7) * HOUR);
    const [type, planned] = PLAN[i % PLAN.length] as [TxType, TxStatus];
    // A few failures spread through the history, as a real account has.
    const status: TxStatus = i === 9 || i === 22 ? 'failed' : planned;
    const network = live[Math.floor(random() * live.length)] as NetworkRecord;
    const kobo =
      BigInt(Math.floor(5_000 + random() * 995_000)) * 100n + BigInt(Math.floor(random() * 2)) * 50n;
    const created = new Date(at).toISOString();
    const settled = new Date(at + 90_000 + Math.floor(random() * 600_000)).toISOString();
    const base = {
      id: stableUuid(`history:tx:${i}`),
      amount: Money.fromKobo(kobo).toString(),
      createdAt: created,
      updatedAt: settled,
      trx_ref: `CNGN-${type === 'fiat_redeem' ? 'RD' : type === 'withdraw' ? 'WD' : type === 'swap' ? 'BR' : 'DP'}-${hex(random, 16).toUpperCase()}`,
      trx_type: type,
      asset_type: 'wrapped',
      asset_symbol: 'CNGN',
      status,
      initiatorId: identity.initiatorId,
      businessId: identity.businessId,
      requires_multi_sig: false,
      total_sigs_required: 0,
      callback_url: null,
    };
    const hash = () => `0x${hex(random, 64)}`;
    if (type === 'withdraw' || type === 'swap') {
      const destination =
        whitelist[Math.floor(random() * whitelist.length)]?.publicKey ?? `0x${hex(random, 40)}`;
      const txHash = status === 'completed' ? hash() : null;
      records.push({
        ...base,
        from: identity.businessAddress,
        receiver: { address: destination },
        description: type === 'swap' ? `Bridge to ${network.name}` : `Withdrawal to ${destination}`,
        network: network.short_name,
        base_trx_hash: txHash,
        extl_trx_hash: type === 'swap' && txHash ? hash() : null,
        explorer_link: txHash ? `${network.explorerTx}${txHash}` : null,
      });
    } else if (type === 'fiat_redeem') {
      const bank = BANKS[Math.floor(random() * BANKS.length)] ?? BANKS[0];
      const accountNumber = String(Math.floor(1_000_000_000 + random() * 8_999_999_999));
      records.push({
        ...base,
        from: identity.businessAddress,
        receiver: {
          bank: bank!,
          accountNumber,
          accountName: accountHolderName(bank!.code, accountNumber),
        },
        description: `Redemption to ${bank!.name} ${accountNumber}`,
        network: 'xbn',
        base_trx_hash: hash(),
        extl_trx_hash: null,
        explorer_link: null,
      });
    } else if (type === 'crypto_deposit') {
      const mint = hash();
      records.push({
        ...base,
        from: `0x${hex(random, 40)}`,
        receiver: { address: identity.businessAddress },
        description: `On-chain deposit on ${network.name}`,
        network: network.short_name,
        base_trx_hash: mint,
        extl_trx_hash: hash(),
        explorer_link: `${network.explorerTx}${mint}`,
      });
    } else {
      records.push({
        ...base,
        from: 'Virtual account deposit',
        receiver: { address: identity.businessAddress },
        description: 'Naira deposit via virtual account',
        network: 'xbn',
        base_trx_hash: hash(),
        extl_trx_hash: null,
        explorer_link: null,
      });
    }
  }
  return records; // newest first
}

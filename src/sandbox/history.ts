// The seeded past: a page-able history of mixed transactions over the last days and the whitelist.
// Built from a fixed pseudo-random sequence so every start shows the same story (dates relative to now).
import { Money } from '../format/money.js';
import { BANKS, type BankRecord, KNOWN_DESTINATION, type NetworkRecord, stableUuid } from './catalog.js';
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

/** How much history to seed (the sandbox's `history` option). */
export interface HistoryShape {
  /** Transactions seeded (default 36, a few days' worth, 2 to 9 hours apart). */
  count?: number;
  /**
   * Epoch ms: the transactions are spread evenly (with jitter) from here to two minutes before now,
   * however many there are, e.g. 10,000 over a month. Without it they are 2 to 9 hours apart.
   */
  from?: number;
}

/** What every seeded record draws on. */
interface SeedContext {
  random: () => number;
  live: NetworkRecord[];
  whitelist: WhitelistRecord[];
  identity: SeedIdentity;
}

type BaseRecord = Omit<
  TransactionRecord,
  'from' | 'receiver' | 'description' | 'network' | 'base_trx_hash' | 'extl_trx_hash' | 'explorer_link'
>;

const REFERENCE_PREFIX: Record<TxType, string> = {
  fiat_redeem: 'RD',
  withdraw: 'WD',
  swap: 'BR',
  fiat_buy: 'DP',
  crypto_deposit: 'DP',
};

/** When each transaction happened, newest first: a draw of `random` per transaction. */
function timesOf(random: () => number, now: number, count: number, from?: number): () => number {
  if (from === undefined) {
    let at = now - 2 * HOUR;
    return () => {
      at -= Math.floor((2 + random() * 7) * HOUR);
      return at;
    };
  }
  const newest = now - 2 * 60_000;
  const step = Math.max(newest - from, 0) / Math.max(count, 1);
  let i = 0;
  return () => newest - Math.floor((i++ + random()) * step);
}

export function seedHistory(
  networks: NetworkRecord[],
  whitelist: WhitelistRecord[],
  identity: SeedIdentity,
  now: number,
  shape: HistoryShape = {},
): TransactionRecord[] {
  const count = shape.count ?? 36;
  const random = prng(42);
  const context: SeedContext = {
    random,
    live: networks.filter((n) => !n.isDisabled),
    whitelist,
    identity,
  };
  const nextAt = timesOf(random, now, count, shape.from);
  const records: TransactionRecord[] = [];
  for (let i = 0; i < count; i++) records.push(seededRecord(context, i, nextAt()));
  return records; // newest first
}

function seededRecord(context: SeedContext, i: number, at: number): TransactionRecord {
  const { random, live, identity } = context;
  const [type, planned] = PLAN[i % PLAN.length] as [TxType, TxStatus];
  // A few failures spread through the history, as a real account has.
  const status: TxStatus = i === 9 || i === 22 ? 'failed' : planned;
  const network = live[Math.floor(random() * live.length)] as NetworkRecord;
  const kobo = BigInt(Math.floor(5_000 + random() * 995_000)) * 100n + BigInt(Math.floor(random() * 2)) * 50n;
  const base: BaseRecord = {
    id: stableUuid(`history:tx:${i}`),
    amount: Money.fromKobo(kobo).toString(),
    createdAt: new Date(at).toISOString(),
    updatedAt: new Date(at + 90_000 + Math.floor(random() * 600_000)).toISOString(),
    trx_ref: `CNGN-${REFERENCE_PREFIX[type]}-${hex(random, 16).toUpperCase()}`,
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
  if (type === 'withdraw' || type === 'swap') return outgoing(context, base, network);
  if (type === 'fiat_redeem') return redemption(context, base);
  if (type === 'crypto_deposit') return cryptoDeposit(context, base, network);
  return fiatDeposit(context, base);
}

const hashOf = (random: () => number) => `0x${hex(random, 64)}`;

function outgoing(context: SeedContext, base: BaseRecord, network: NetworkRecord): TransactionRecord {
  const { random, whitelist, identity } = context;
  const destination = whitelist[Math.floor(random() * whitelist.length)]?.publicKey ?? `0x${hex(random, 40)}`;
  const txHash = base.status === 'completed' ? hashOf(random) : null;
  const bridge = base.trx_type === 'swap';
  return {
    ...base,
    from: identity.businessAddress,
    receiver: { address: destination },
    description: bridge ? `Bridge to ${network.name}` : `Withdrawal to ${destination}`,
    network: network.short_name,
    base_trx_hash: txHash,
    extl_trx_hash: bridge && txHash ? hashOf(random) : null,
    explorer_link: txHash ? `${network.explorerTx}${txHash}` : null,
  };
}

function redemption(context: SeedContext, base: BaseRecord): TransactionRecord {
  const { random, identity } = context;
  const bank = (BANKS[Math.floor(random() * BANKS.length)] ?? BANKS[0]) as BankRecord;
  const accountNumber = String(Math.floor(1_000_000_000 + random() * 8_999_999_999));
  return {
    ...base,
    from: identity.businessAddress,
    receiver: { bank, accountNumber, accountName: accountHolderName(bank.code, accountNumber) },
    description: `Redemption to ${bank.name} ${accountNumber}`,
    network: 'xbn',
    base_trx_hash: hashOf(random),
    extl_trx_hash: null,
    explorer_link: null,
  };
}

function cryptoDeposit(context: SeedContext, base: BaseRecord, network: NetworkRecord): TransactionRecord {
  const { random, identity } = context;
  const mint = hashOf(random);
  return {
    ...base,
    from: `0x${hex(random, 40)}`,
    receiver: { address: identity.businessAddress },
    description: `On-chain deposit on ${network.name}`,
    network: network.short_name,
    base_trx_hash: mint,
    extl_trx_hash: hashOf(random),
    explorer_link: `${network.explorerTx}${mint}`,
  };
}

function fiatDeposit(context: SeedContext, base: BaseRecord): TransactionRecord {
  const { random, identity } = context;
  return {
    ...base,
    from: 'Virtual account deposit',
    receiver: { address: identity.businessAddress },
    description: 'Naira deposit via virtual account',
    network: 'xbn',
    base_trx_hash: hashOf(random),
    extl_trx_hash: null,
    explorer_link: null,
  };
}

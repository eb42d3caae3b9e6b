// Static reference data of the sandbox: networks (IDs per environment), Nigerian banks, the
// business's dedicated account. Deterministic so demos and tests see the same world every start.
import { createHash } from 'node:crypto';

export type SandboxMode = 'test' | 'live';

export interface NetworkRecord {
  id: string;
  name: string;
  short_name: string;
  isDisabled: boolean;
  blockchain: { id: string; name: string; created_at: string; updated_at: string };
  explorerTx: string;
  /** Fee charged on the destination chain by a bridge, in kobo (quotes). */
  networkFeeKobo: bigint;
}

interface NetworkSeed {
  name: string;
  short: string;
  disabled?: boolean;
  chain: { test: string; live: string };
  explorer: { test: string; live: string };
  feeKobo: bigint;
}

const NETWORK_SEEDS: NetworkSeed[] = [
  {
    name: 'Base',
    short: 'base',
    chain: { test: 'base-sepolia', live: 'base-mainnet' },
    explorer: { test: 'https://sepolia.basescan.org/tx/', live: 'https://basescan.org/tx/' },
    feeKobo: 1_500n,
  },
  {
    name: 'BNB Smart Chain',
    short: 'bsc',
    chain: { test: 'bsc-testnet', live: 'bsc-mainnet' },
    explorer: { test: 'https://testnet.bscscan.com/tx/', live: 'https://bscscan.com/tx/' },
    feeKobo: 500n,
  },
  {
    name: 'Polygon',
    short: 'polygon',
    chain: { test: 'polygon-amoy', live: 'polygon-mainnet' },
    explorer: { test: 'https://amoy.polygonscan.com/tx/', live: 'https://polygonscan.com/tx/' },
    feeKobo: 1_000n,
  },
  {
    name: 'Ethereum',
    short: 'eth',
    chain: { test: 'ethereum-sepolia', live: 'ethereum-mainnet' },
    explorer: { test: 'https://sepolia.etherscan.io/tx/', live: 'https://etherscan.io/tx/' },
    feeKobo: 25_000n,
  },
  {
    name: 'Celo',
    short: 'celo',
    chain: { test: 'celo-alfajores', live: 'celo-mainnet' },
    explorer: { test: 'https://alfajores.celoscan.io/tx/', live: 'https://celoscan.io/tx/' },
    feeKobo: 300n,
  },
  {
    name: 'Asset Chain',
    short: 'assetchain',
    disabled: true,
    chain: { test: 'assetchain-testnet', live: 'assetchain-mainnet' },
    explorer: { test: 'https://scan-testnet.assetchain.org/tx/', live: 'https://scan.assetchain.org/tx/' },
    feeKobo: 200n,
  },
];

/** A stable UUID (version-4 layout) derived from a label, so IDs differ per mode but never per start. */
export function stableUuid(label: string): string {
  const hex = createHash('sha256').update(`cngn-sandbox:${label}`).digest('hex');
  const variant = ((Number.parseInt(hex[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const CATALOG_DATE = '2025-03-14T09:21:07.412Z';

export function networksFor(mode: SandboxMode): NetworkRecord[] {
  return NETWORK_SEEDS.map((seed) => ({
    id: stableUuid(`${mode}:network:${seed.short}`),
    name: seed.name,
    short_name: seed.short,
    isDisabled: seed.disabled === true,
    blockchain: {
      id: stableUuid(`${mode}:blockchain:${seed.short}`),
      name: seed.chain[mode],
      created_at: CATALOG_DATE,
      updated_at: CATALOG_DATE,
    },
    explorerTx: seed.explorer[mode],
    networkFeeKobo: seed.feeKobo,
  }));
}

/** The wire form of a network (`blockchain` only when asked for). */
export function networkView(network: NetworkRecord, includeBlockchain: boolean) {
  return {
    id: network.id,
    name: network.name,
    short_name: network.short_name,
    isDisabled: network.isDisabled,
    blockchain: includeBlockchain ? { ...network.blockchain } : null,
  };
}

export interface BankRecord {
  name: string;
  slug: string;
  code: string;
  country: 'NG';
  nibss_bank_code: string;
}

const BANK_ROWS: Array<[name: string, slug: string, code: string, nibss: string]> = [
  ['Access Bank', 'access-bank', '044', '000014'],
  ['Citibank Nigeria', 'citibank-nigeria', '023', '000009'],
  ['Ecobank Nigeria', 'ecobank-nigeria', '050', '000010'],
  ['Fidelity Bank', 'fidelity-bank', '070', '000007'],
  ['First Bank of Nigeria', 'firstbank', '011', '000016'],
  ['First City Monument Bank', 'fcmb', '214', '000003'],
  ['Globus Bank', 'globus-bank', '00103', '000027'],
  ['Guaranty Trust Bank', 'guaranty-trust-bank', '058', '000013'],
  ['Heritage Bank', 'heritage-bank', '030', '000020'],
  ['Jaiz Bank', 'jaiz-bank', '301', '000006'],
  ['Keystone Bank', 'keystone-bank', '082', '000002'],
  ['Kuda Bank', 'kuda-bank', '50211', '090267'],
  ['Lotus Bank', 'lotus-bank', '303', '000029'],
  ['Moniepoint MFB', 'moniepoint-mfb-ng', '50515', '090405'],
  ['OPay Digital Services Limited (OPay)', 'paycom', '999992', '100004'],
  ['PalmPay', 'palmpay', '999991', '100033'],
  ['Polaris Bank', 'polaris-bank', '076', '000008'],
  ['PremiumTrust Bank', 'premiumtrust-bank-ng', '105', '000031'],
  ['Providus Bank', 'providus-bank', '101', '000023'],
  ['Stanbic IBTC Bank', 'stanbic-ibtc-bank', '221', '000012'],
  ['Standard Chartered Bank', 'standard-chartered-bank', '068', '000021'],
  ['Sterling Bank', 'sterling-bank', '232', '000001'],
  ['Suntrust Bank', 'suntrust-bank', '100', '000022'],
  ['TAJ Bank', 'taj-bank', '302', '000026'],
  ['Titan Trust Bank', 'titan-trust-bank-ng', '102', '000025'],
  ['Union Bank of Nigeria', 'union-bank-of-nigeria', '032', '000018'],
  ['United Bank For Africa', 'united-bank-for-africa', '033', '000004'],
  ['Unity Bank', 'unity-bank', '215', '000011'],
  ['Wema Bank', 'wema-bank', '035', '000017'],
  ['Zenith Bank', 'zenith-bank', '057', '000015'],
];

export const BANKS: readonly BankRecord[] = BANK_ROWS.map(([name, slug, code, nibss]) => ({
  name,
  slug,
  code,
  country: 'NG',
  nibss_bank_code: nibss,
}));

export function bankByCode(code: string): BankRecord | undefined {
  return BANKS.find((bank) => bank.code === code);
}

export function bankByName(name: string): BankRecord | undefined {
  const wanted = name.trim().toLowerCase();
  return BANKS.find((bank) => bank.name.toLowerCase() === wanted || bank.slug === wanted);
}

export const BUSINESS_NAME = 'ADAORA FOODS LIMITED';

export const DEDICATED_ACCOUNTS = [
  {
    accountNumber: '9912345678',
    accountName: `CNGN/${BUSINESS_NAME}`,
    bankName: 'Providus Bank',
    bankCode: '101',
  },
];

/** Where temporary (one-time) virtual accounts are hosted. */
export const TEMPORARY_ACCOUNT_BANK = { bankName: 'Wema Bank', bankCode: '035' };

/** Redemptions to this account fail at the payout provider (token returned, transaction.failed). */
export const FAILING_PAYOUT_ACCOUNT = '9999999999';
/** This account number never resolves at any bank. */
export const UNRESOLVABLE_ACCOUNT = '0000000000';
/** Withdrawals to this address fail on chain (token returned, transaction.failed). */
export const FAILING_WITHDRAWAL_ADDRESS = '0x000000000000000000000000000000000000dEaD';

/**
 * The first whitelisted address (on the first enabled network, Base), paid in the seeded history too:
 * a destination the business knows, so a look-alike of it can be tried.
 */
export const KNOWN_DESTINATION = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

// Wallet addresses by network family. The service lists non-EVM networks too (Solana, Tron, Bantu/XBN),
// so an address is checked by the rules of the network it is for: EVM in full (hex, EIP-55 checksum);
// the others by their format (alphabet and length).
import { checkEvmAddress, type EvmAddressCheck } from './evm-address.js';

export const ADDRESS_FAMILIES = ['evm', 'solana', 'tron', 'stellar'] as const;
export type AddressFamily = (typeof ADDRESS_FAMILIES)[number];

const FAMILY_WORDS: Array<[AddressFamily, RegExp]> = [
  ['solana', /^(sol|solana)$/],
  ['tron', /^(tron|trx)$/],
  ['stellar', /^(xbn|bantu|stellar|xlm)$/],
];

/** The family of a network, from its short code or name; the rest are EVM chains (the spec's default). */
export function addressFamily(network: { name: string; shortName: string }): AddressFamily {
  const words = [network.shortName, network.name].map((w) => w.trim().toLowerCase());
  return FAMILY_WORDS.find(([, pattern]) => words.some((w) => pattern.test(w)))?.[0] ?? 'evm';
}

const BASE58 = '[1-9A-HJ-NP-Za-km-z]';
const FORMATS: Record<Exclude<AddressFamily, 'evm'>, { pattern: RegExp; reason: string }> = {
  solana: {
    pattern: new RegExp(`^${BASE58}{32,44}$`),
    reason: 'must be a Solana address: 32 to 44 base58 characters (no 0, O, I or l)',
  },
  tron: {
    pattern: new RegExp(`^T${BASE58}{33}$`),
    reason: 'must be a Tron address: T followed by 33 base58 characters',
  },
  stellar: {
    pattern: /^G[A-Z2-7]{55}$/,
    reason: 'must be an XBN address: G followed by 55 characters A–Z or 2–7',
  },
};

/**
 * The family a network id maps to, or undefined. The ids are the service's and the map comes back
 * from Slack metadata: only the map's own entries count, never a member of Object (`constructor`).
 */
export function familyOf(
  families: Readonly<Record<string, AddressFamily>>,
  networkId: string,
): AddressFamily | undefined {
  return Object.hasOwn(families, networkId) ? families[networkId] : undefined;
}

/** Check an address for a network family; the address is returned trimmed. */
export function checkWalletAddress(family: AddressFamily, input: string): EvmAddressCheck {
  // Families come back from Slack metadata too: anything unknown is checked as EVM, the strictest.
  const format = family !== 'evm' && Object.hasOwn(FORMATS, family) ? FORMATS[family] : undefined;
  if (!format) return checkEvmAddress(input);
  const address = input.trim();
  return format.pattern.test(address) ? { ok: true, address } : { ok: false, reason: format.reason };
}

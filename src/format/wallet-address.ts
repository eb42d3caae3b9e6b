// Wallet addresses by network family. The service lists non-EVM networks too (Solana, Tron, Bantu/XBN),
// so an address is checked by the rules of the network it is for: EVM in full (hex, EIP-55 checksum),
// Tron in full (Base58Check: version byte 0x41, a 4-byte double-SHA-256 checksum); the others by their
// format (alphabet and length).
import { sha256 } from '@noble/hashes/sha2.js';
import { createBase58check } from '@scure/base';
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

const tronBase58check = createBase58check(sha256);
/** A Tron account: the version byte 0x41, then the 20 bytes of the account. */
const TRON_VERSION = 0x41;
const TRON_PAYLOAD_BYTES = 21;

/** A Tron address already of the right form: its checksum and the account it encodes. */
function checkTronChecksum(address: string): EvmAddressCheck {
  let payload: Uint8Array;
  try {
    payload = tronBase58check.decode(address);
  } catch {
    return { ok: false, reason: 'a character was mistyped: the checksum does not match' };
  }
  return payload.length === TRON_PAYLOAD_BYTES && payload[0] === TRON_VERSION
    ? { ok: true, address }
    : { ok: false, reason: 'is not a Tron account address (it encodes something else)' };
}

function formOf(family: AddressFamily) {
  // Families come back from Slack metadata too: anything unknown is checked as EVM, the strictest.
  return family !== 'evm' && Object.hasOwn(FORMATS, family) ? FORMATS[family] : undefined;
}

/** Whether the text has the form of an address of the family (no checksum checked): for guessing. */
export function hasAddressForm(family: Exclude<AddressFamily, 'evm'>, input: string): boolean {
  return formOf(family)?.pattern.test(input.trim()) ?? false;
}

/** Check an address for a network family; the address is returned trimmed (an EVM one checksummed). */
export function checkWalletAddress(family: AddressFamily, input: string): EvmAddressCheck {
  const format = formOf(family);
  if (!format) return checkEvmAddress(input);
  const address = input.trim();
  if (!format.pattern.test(address)) return { ok: false, reason: format.reason };
  return family === 'tron' ? checkTronChecksum(address) : { ok: true, address };
}

// EVM addresses as people paste them: `0x` + 40 hex digits; when mixed-case, the case is an EIP-55
// checksum and must match (a wrong case means a mistyped address). All-lower or all-upper carries no
// checksum: accepted, and from then on written checksummed, so whoever reads it can check it.
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

export type EvmAddressCheck = { ok: true; address: string } | { ok: false; reason: string };

/** The EIP-55 mixed-case form of a 40-hex-digit address. */
export function toChecksumAddress(address: string): string {
  const hex = address.replace(/^0x/i, '').toLowerCase();
  const hash = bytesToHex(keccak_256(utf8ToBytes(hex)));
  let out = '0x';
  for (let i = 0; i < hex.length; i += 1) {
    const char = hex[i] as string;
    out += Number.parseInt(hash[i] as string, 16) >= 8 ? char.toUpperCase() : char;
  }
  return out;
}

/** Check form and (when mixed-case) checksum; the address is returned trimmed and checksummed. */
export function checkEvmAddress(input: string): EvmAddressCheck {
  const address = input.trim();
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) {
    return { ok: false, reason: 'must be 0x followed by 40 hexadecimal characters' };
  }
  const body = address.slice(2);
  // Valid in form, but no one holds its key: tokens sent there are gone for good.
  if (/^0+$/.test(body)) {
    return {
      ok: false,
      reason: 'is the zero address (0x000…000), which no one can spend from: tokens sent there are lost',
    };
  }
  const checksummed = toChecksumAddress(address);
  const mixed = body !== body.toLowerCase() && body !== body.toUpperCase();
  if (mixed && checksummed !== address) {
    return {
      ok: false,
      reason: 'a character was mistyped: the checksum (its mix of upper and lower case) does not match',
    };
  }
  return { ok: true, address: checksummed };
}

/** `0x5290…9EE7` for tight spaces. */
export function shortAddress(address: string): string {
  return address.length > 14 ? `${address.slice(0, 6)}…${address.slice(-4)}` : address;
}

// Destinations this business has paid: wallets (network + address) and bank accounts (bank + account
// number). The bot's own record is a set in the store per environment, added to when a request reaches
// sent or completed; the service's transaction list (its first pages, cached) adds what was paid from
// elsewhere. Addresses are compared in one form: an EVM address by its EIP-55 checksummed spelling, so
// case never makes two addresses of one. One key holder is one destination: an EVM address is the same
// destination on every EVM network, a Tron address on every Tron network (walletIdentity).
import { toChecksumAddress } from '../format/evm-address.js';
import { checkWalletAddress } from '../format/wallet-address.js';
import type { Store } from '../store/index.js';
import type { CustodyNetwork, CustodyTransaction, ServiceEnvironment } from './ports.js';
import { type ApprovalRequest, MONEY_KINDS } from './types.js';

/** Any network: a transaction the service lists without a network we can name. */
const ANY_NETWORK = '*';

export type Destination =
  | { kind: 'wallet'; networkId: string; address: string }
  | { kind: 'bank'; bankCode: string; accountNumber: string };

/** The one spelling an address is compared and shown in: EIP-55 for EVM, as given otherwise. */
export function canonicalAddress(address: string): string {
  return /^0x[0-9a-fA-F]{40}$/.test(address) ? toChecksumAddress(address) : address;
}

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/**
 * Who holds a wallet, as one key: `evm:` and the address in lower case for an EVM address, `tron:`
 * and the address for a Tron one (Base58Check-valid), whatever network each is for: one private key
 * holds it on every network of its family. Any other address (Solana, XBN) stays `network:address`.
 * Idempotent on its own keys' parts, so keys stored per network read the same (destinationKey).
 */
export function walletIdentity(networkId: string, address: string): string {
  if (EVM_ADDRESS.test(address)) return `evm:${address.toLowerCase()}`;
  if (checkWalletAddress('tron', address).ok) return `tron:${address}`;
  return `${networkId}:${address}`;
}

/** Where a request pays, or undefined for what pays nobody (settlement, delegation). */
export function destinationOf(
  request: Pick<ApprovalRequest, 'kind' | 'payload'> | { kind: string; payload: unknown },
): Destination | undefined {
  const r = request as ApprovalRequest;
  switch (r.kind) {
    case 'withdraw':
    case 'whitelist':
      return { kind: 'wallet', networkId: r.payload.networkId, address: canonicalAddress(r.payload.address) };
    case 'bridge':
      return {
        kind: 'wallet',
        networkId: r.payload.destinationNetworkId,
        address: canonicalAddress(r.payload.destinationAddress),
      };
    case 'redeem':
      return { kind: 'bank', bankCode: r.payload.bankCode, accountNumber: r.payload.accountNumber };
    default:
      return undefined;
  }
}

const memberOf = (d: Destination) =>
  d.kind === 'wallet' ? `wallet|${d.networkId}|${d.address}` : `bank|${d.bankCode}|${d.accountNumber}`;

function destinationFromMember(member: string): Destination | undefined {
  const [kind, where = '', what = ''] = member.split('|');
  if (kind === 'wallet') return { kind, networkId: where, address: what };
  if (kind === 'bank') return { kind, bankCode: where, accountNumber: what };
  return undefined;
}

/**
 * The same destination, a network or bank the service did not name matching any; a wallet by its key
 * holder (an EVM address on Base and on BNB Smart Chain is one destination).
 */
export function sameDestination(a: Destination, b: Destination): boolean {
  if (a.kind === 'wallet' && b.kind === 'wallet') {
    if (a.networkId === ANY_NETWORK || b.networkId === ANY_NETWORK) return a.address === b.address;
    // Stored members name the network they were paid on; the key holder is what matches.
    return walletIdentity(a.networkId, a.address) === walletIdentity(b.networkId, b.address);
  }
  if (a.kind === 'bank' && b.kind === 'bank') {
    const bank = a.bankCode === b.bankCode || a.bankCode === ANY_NETWORK || b.bankCode === ANY_NETWORK;
    return bank && a.accountNumber === b.accountNumber;
  }
  return false;
}

/** States at which a request's destination counts as paid by this business. */
const PAID_STATES: ReadonlySet<ApprovalRequest['state']> = new Set(['sent', 'completed']);

/** The bot's own record of where it has paid, per environment (one store set, one member a destination). */
export class PaidDestinations {
  constructor(
    private readonly store: Store,
    private readonly environment: ServiceEnvironment,
  ) {}

  private get key(): string {
    return `approvals:paid-destinations:${this.environment}`;
  }

  /** Called on every persisted change: a payment that reached sent or completed is remembered. */
  async record(request: ApprovalRequest): Promise<void> {
    if (!MONEY_KINDS.has(request.kind) || !PAID_STATES.has(request.state)) return;
    const destination = destinationOf(request);
    if (destination) await this.store.addToSet(this.key, memberOf(destination));
  }

  async all(): Promise<Destination[]> {
    const members = await this.store.setMembers(this.key);
    return members.map(destinationFromMember).filter((d): d is Destination => d !== undefined);
  }
}

/** The network id a transaction's network text names (id, short code or name), else any network. */
function networkIdOf(text: string | undefined, networks: readonly CustodyNetwork[]): string {
  const wanted = text?.trim().toLowerCase();
  if (!wanted) return ANY_NETWORK;
  const found = networks.find((n) =>
    [n.id, n.shortName, n.name].some((word) => word.trim().toLowerCase() === wanted),
  );
  return found?.id ?? ANY_NETWORK;
}

/** Where the listed transactions paid: withdrawals and bridges to wallets, redemptions to bank accounts. */
export function paidInList(
  transactions: readonly CustodyTransaction[],
  networks: readonly CustodyNetwork[],
): Destination[] {
  const paid: Destination[] = [];
  for (const tx of transactions) {
    if (tx.result !== 'succeeded' && tx.result !== 'pending') continue;
    const { address, accountNumber, bankCode } = tx.destination;
    if ((tx.kind === 'withdraw' || tx.kind === 'bridge') && address) {
      paid.push({
        kind: 'wallet',
        networkId: networkIdOf(tx.network, networks),
        address: canonicalAddress(address),
      });
    } else if (tx.kind === 'redeem' && accountNumber) {
      paid.push({ kind: 'bank', bankCode: bankCode ?? ANY_NETWORK, accountNumber });
    }
  }
  return paid;
}

// What the bot checks before money moves, without moving any: the balance against what is already
// committed, the network, the address, the whitelist, and whether the destination was ever paid or
// looks like one that was. Reads come from the shared caches (the service's budget is 20 requests a
// minute); a check that cannot be read is said to be unread, never guessed.
import { naira } from '../format/display.js';
import { Money } from '../format/money.js';
import { addressFamily } from '../format/wallet-address.js';
import {
  canonicalAddress,
  type Destination,
  destinationOf,
  type PaidDestinations,
  paidInList,
  sameDestination,
} from './destinations.js';
import { movesAmount } from './limits.js';
import { findLookAlike } from './look-alike.js';
import type { BalanceFigure, CustodyGateway, CustodyNetwork } from './ports.js';
import type { ApprovalRepository } from './repository.js';
import { earlierRequests } from './same-request.js';
import type {
  ApprovalRequest,
  BalanceCheck,
  EngineLog,
  LookAlikeMark,
  RequestChecks,
  RequestDraft,
  RequestKind,
} from './types.js';

/** How old a cached whitelist, and a cached page of the transaction list, may be for a check. */
const WHITELIST_MAX_AGE_MS = 60_000;
const LIST_MAX_AGE_MS = 5 * 60_000;
/** The first pages of the transaction list read for destinations paid from elsewhere. */
const LIST_PAGES = 2;
const LIST_PAGE_SIZE = 50;
/** A stored balance older than this is too old to refuse an approval on. */
const BALANCE_TRUSTED_MS = 10 * 60_000;

/**
 * The kinds paid out of the custody balance. A bridge is not: the quoted amount is sent on-chain to
 * the deposit address the service gives, from whichever wallet sends it.
 */
export const BALANCE_KINDS: ReadonlySet<RequestKind> = new Set<RequestKind>(['withdraw', 'redeem']);

const COMMITTED_STATES: ReadonlySet<ApprovalRequest['state']> = new Set([
  'approved',
  'executing',
  'sent',
  'outcome-unknown',
]);

/**
 * When the service answered the request's call, or the call was given up: from then on a balance read
 * shows what the service did with it (the service takes the token when it accepts a payment, and
 * gives it back if the payment fails).
 */
function answeredAt(request: ApprovalRequest): number | undefined {
  const step = request.history.find((h) => h.state === 'sent' || h.state === 'outcome-unknown');
  return step ? Date.parse(step.at) : undefined;
}

/**
 * What approved or sent withdrawals and redemptions commit that a balance read at `asOf` does not
 * show yet: approved and executing ones always, sent ones (and those whose outcome is unknown) when
 * the balance was read before the service answered.
 */
export function committedAgainst(
  open: readonly ApprovalRequest[],
  asOf: string,
  excludeId?: string,
): { total: Money; count: number } {
  let total = Money.zero();
  let count = 0;
  const readAt = Date.parse(asOf);
  for (const request of open) {
    if (request.id === excludeId || !BALANCE_KINDS.has(request.kind) || !request.amount) continue;
    if (!COMMITTED_STATES.has(request.state)) continue;
    const answered = answeredAt(request);
    if (answered !== undefined && answered < readAt) continue;
    total = total.plus(Money.parseDecimal(request.amount));
    count += 1;
  }
  return { total, count };
}

function balanceCheck(
  figure: BalanceFigure,
  amount: string,
  committed: { total: Money; count: number },
): BalanceCheck {
  const after = Money.parseDecimal(figure.amount).minus(committed.total).minus(Money.parseDecimal(amount));
  return {
    balance: figure.amount,
    asOf: figure.asOf,
    committed: committed.total.toString(),
    committedCount: committed.count,
    amount: Money.parseDecimal(amount).toString(),
    after: after.toString(),
    enough: after.compare(Money.zero()) >= 0,
  };
}

export interface FileOptions {
  /** The checks made before filing (Preflight.check), to store on the request and act on. */
  preflight?: RequestChecks;
}

/** What in the checks made before filing refuses it (nothing filed). */
export type PreflightRefusal =
  /** The balance, less what is committed, does not cover the amount. */
  | { kind: 'balance'; balance: BalanceCheck }
  /** The destination looks like a known one, and the requester did not confirm comparing it. */
  | { kind: 'look-alike'; lookAlike: LookAlikeMark };

/**
 * The one place the balance and the look-alike are judged: what refuses filing with these checks, the
 * balance first (file-checked.ts returns them as problems, filing.ts refuses with the first).
 */
export function preflightRefusals(checks: RequestChecks): PreflightRefusal[] {
  const refusals: PreflightRefusal[] = [];
  const balance = checks.balance;
  if (balance && !balance.enough) refusals.push({ kind: 'balance', balance });
  const lookAlike = checks.lookAlike;
  if (lookAlike && !lookAlike.compared) refusals.push({ kind: 'look-alike', lookAlike });
  return refusals;
}

/** Why checks made before filing refuse it, or undefined (the first of preflightRefusals, in words). */
export function preflightProblem(checks: RequestChecks): string | undefined {
  const [refusal] = preflightRefusals(checks);
  if (refusal?.kind === 'balance') {
    const b = refusal.balance;
    return `amount: ${naira(b.amount)} is more than the balance (${naira(b.balance)}) less what is committed (${naira(b.committed)})`;
  }
  if (refusal?.kind === 'look-alike') {
    return 'address: it looks like a known address; compare the whole address and confirm';
  }
  return undefined;
}

/** The filing step's note for a look-alike destination (kept in the audit log). */
export function lookAlikeNote(mark: LookAlikeMark): string {
  const known = mark.knownAs === 'paid' ? 'an address paid before' : 'a whitelisted address';
  return `destination ${mark.candidate} looks like ${known}, ${mark.known}; the requester confirmed comparing the whole address; one more approver needed`;
}

export interface PreflightDeps {
  custody: CustodyGateway;
  repo: ApprovalRepository;
  paid: PaidDestinations;
  /** The requests of the limit window (LimitIndex.requests), where the same payment filed before is. */
  recent?: () => Promise<ApprovalRequest[]>;
  now: () => Date;
  log?: EngineLog;
}

/** What is known of where money went: paid destinations (the bot's and the service's) and the whitelist. */
interface Known {
  paid: Destination[];
  whitelist: Array<{ networkId: string; address: string }>;
}

type Read<T> = { ok: true; value: T } | { ok: false };

export class Preflight {
  constructor(private readonly deps: PreflightDeps) {}

  /**
   * The balance check of a withdrawal or redemption (undefined for other kinds): read through the
   * cache, or with `stored` from the store only, when undefined no figure was read yet. `id`: the
   * request itself, never counted as committed against its own amount.
   */
  async balanceFor(
    request: { id?: string; kind: RequestKind; amount?: string },
    options: { stored?: boolean; maxAgeMs?: number } = {},
  ): Promise<BalanceCheck | undefined> {
    if (!BALANCE_KINDS.has(request.kind) || !request.amount) return undefined;
    const figure = await this.deps.custody.balance({ stored: options.stored === true });
    if (!figure) return undefined;
    // A figure too old to act on costs no read of the open requests.
    const age = this.deps.now().getTime() - Date.parse(figure.asOf);
    if (options.maxAgeMs !== undefined && age > options.maxAgeMs) return undefined;
    const open = await this.deps.repo.openRequests();
    return balanceCheck(figure, request.amount, committedAgainst(open, figure.asOf, request.id));
  }

  /**
   * An approval's guard: the balance check from the last figure read (store only) when that figure
   * is recent enough to refuse on; undefined when there is nothing to refuse on.
   */
  async storedShortfall(request: ApprovalRequest): Promise<BalanceCheck | undefined> {
    const check = await this.balanceFor(request, { stored: true, maxAgeMs: BALANCE_TRUSTED_MS });
    return check && !check.enough ? check : undefined;
  }

  /** Every check a draft can have, before it is filed. Never throws for a read that fails: it is unread. */
  async check(draft: RequestDraft): Promise<RequestChecks> {
    const destination = destinationOf(draft);
    const recent = this.deps.recent;
    const [balance, networks, known, earlier] = await Promise.all([
      this.attempt(() => this.balanceFor(draft)),
      destination?.kind === 'wallet' ? this.attempt(() => this.deps.custody.networks()) : none(),
      destination ? this.known() : Promise.resolve(undefined),
      recent && movesAmount(draft.kind) ? this.attempt(recent) : none(),
    ]);
    const checks: RequestChecks = { at: this.deps.now().toISOString() };
    // Unread, the filing itself finds it under the limits lock: nothing to say here.
    const same =
      earlier.ok && earlier.value ? earlierRequests(draft, earlier.value, this.deps.now()).same : undefined;
    if (same) checks.sameAs = same;
    const unread = [
      ...addBalance(checks, draft, balance),
      ...addNetwork(checks, draft, destination, networks),
    ];
    if (destination && known) {
      Object.assign(checks, destinationChecks(destination, known.value, known.unread.length === 0));
      unread.push(...known.unread);
    }
    if (unread.length > 0) checks.unread = unread;
    return checks;
  }

  /** The paid destinations and the whitelist; what could not be read is said in `unread`. */
  private async known(): Promise<{ value: Known; unread: string[] }> {
    const [own, listed, networks, whitelist] = await Promise.all([
      this.attempt(() => this.deps.paid.all()),
      this.attempt(() => this.listedTransactions()),
      this.attempt(() => this.deps.custody.networks()),
      this.attempt(() => this.deps.custody.whitelist({ maxAgeMs: WHITELIST_MAX_AGE_MS })),
    ]);
    const unread: string[] = [];
    const paid: Destination[] = [];
    if (own.ok) paid.push(...own.value);
    else unread.push("the bot's record of past payments could not be read");
    if (listed.ok) paid.push(...paidInList(listed.value, networks.ok ? networks.value : []));
    else unread.push("the service's transaction list could not be read");
    if (!whitelist.ok) unread.push('the whitelist could not be read');
    return { value: { paid, whitelist: whitelist.ok ? whitelist.value : [] }, unread };
  }

  private async listedTransactions() {
    const all = [];
    for (let page = 1; page <= LIST_PAGES; page++) {
      const result = await this.deps.custody.transactions(page, LIST_PAGE_SIZE, {
        maxAgeMs: LIST_MAX_AGE_MS,
      });
      all.push(...result.transactions);
      if (result.lastPage ?? result.transactions.length < LIST_PAGE_SIZE) break;
    }
    return all;
  }

  private async attempt<T>(read: () => Promise<T>): Promise<Read<T>> {
    try {
      return { ok: true, value: await read() };
    } catch (error) {
      this.deps.log?.warn('a pre-flight check could not be read', { error: String(error) });
      return { ok: false };
    }
  }
}

const none = async (): Promise<Read<undefined>> => ({ ok: true, value: undefined });

/** The balance read onto `checks` for a kind that spends it; what could not be read, said. */
function addBalance(
  checks: RequestChecks,
  draft: RequestDraft,
  balance: Read<BalanceCheck | undefined>,
): string[] {
  if (!BALANCE_KINDS.has(draft.kind)) return [];
  if (!balance.ok || !balance.value) return ['the balance could not be read'];
  checks.balance = balance.value;
  return [];
}

/** The network checks onto `checks` for a wallet destination; what could not be read, said. */
function addNetwork(
  checks: RequestChecks,
  draft: RequestDraft,
  destination: Destination | undefined,
  networks: Read<readonly CustodyNetwork[] | undefined>,
): string[] {
  if (destination?.kind !== 'wallet') return [];
  if (!networks.ok || !networks.value) return ['the network list could not be read'];
  Object.assign(checks, networkChecks(draft, destination, networks.value));
  return [];
}

/** The destination network (both ends of a bridge) and what was checked of the address. */
function networkChecks(
  draft: RequestDraft,
  destination: Extract<Destination, { kind: 'wallet' }>,
  networks: readonly CustodyNetwork[],
): Pick<RequestChecks, 'network' | 'address'> {
  const byId = (id: string) => networks.find((n) => n.id === id);
  const target = byId(destination.networkId);
  const origin = draft.kind === 'bridge' ? byId(draft.payload.originNetworkId) : undefined;
  const name =
    draft.kind === 'bridge' ? `${origin?.name ?? 'origin'} → ${target?.name ?? 'destination'}` : target?.name;
  const enabled = !!target?.enabled && (draft.kind !== 'bridge' || !!origin?.enabled);
  const family = target ? addressFamily(target) : 'evm';
  return {
    network: { name: name ?? destination.networkId, enabled },
    // EVM (EIP-55) and Tron (Base58Check) carry a checksum the draft check verified; the others a format.
    address: {
      shown: destination.address,
      checked: family === 'evm' || family === 'tron' ? 'checksum' : 'format',
    },
  };
}

/**
 * Whitelisted, first payment, look-alike. `complete`: every source was read, so "never paid" can be
 * said; with a source missing only "paid before" can.
 */
function destinationChecks(
  destination: Destination,
  known: Known,
  complete: boolean,
): Pick<RequestChecks, 'whitelisted' | 'firstPayment' | 'lookAlike'> {
  const paidBefore = known.paid.some((d) => sameDestination(d, destination));
  const checks: Pick<RequestChecks, 'whitelisted' | 'firstPayment' | 'lookAlike'> = {};
  if (paidBefore) checks.firstPayment = false;
  else if (complete) checks.firstPayment = true;
  if (destination.kind !== 'wallet') return checks;
  const whitelist = known.whitelist.map((w) => ({
    networkId: w.networkId,
    address: canonicalAddress(w.address),
  }));
  checks.whitelisted = whitelist.some(
    (w) => w.networkId === destination.networkId && w.address === destination.address,
  );
  const lookAlike = lookAlikeOf(destination.address, known.paid, whitelist);
  if (lookAlike) checks.lookAlike = lookAlike;
  return checks;
}

/**
 * A known address (paid before on any network, or whitelisted) that the candidate resembles without
 * being it. An address that is itself known is no look-alike.
 */
function lookAlikeOf(
  candidate: string,
  paid: readonly Destination[],
  whitelist: ReadonlyArray<{ address: string }>,
): LookAlikeMark | undefined {
  const paidAddresses = paid.flatMap((d) => (d.kind === 'wallet' ? [d.address] : []));
  const whitelisted = whitelist.map((w) => w.address);
  const known = [...new Set([...paidAddresses, ...whitelisted])];
  if (known.includes(candidate)) return undefined;
  const found = findLookAlike(candidate, known);
  if (!found) return undefined;
  return {
    candidate: found.candidate,
    known: found.known,
    differs: found.differs,
    knownAs: paidAddresses.includes(found.known) ? 'paid' : 'whitelisted',
  };
}

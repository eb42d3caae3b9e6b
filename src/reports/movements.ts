// A listed transaction as the report counts it: which kind of money movement, in or out, how much,
// its fee, and how it stands. Both trx_type vocabularies the sources use are known; anything else is
// `other`, counted by the direction its name suggests.
import { TZDate } from '@date-fns/tz';
import { classifyStatus, type Transaction } from '../cngn/schemas.js';
import { Money } from '../format/money.js';
import type { Movement, MovementKind } from './types.js';

export const LAGOS = 'Africa/Lagos';

const KIND_OF_TYPE: Readonly<Record<string, MovementKind>> = {
  fiat_buy: 'deposit',
  enaira_buy: 'deposit',
  crypto_deposit: 'deposit',
  deposit: 'deposit',
  withdraw: 'withdrawal',
  withdrawal: 'withdrawal',
  fiat_redeem: 'redemption',
  enaira_redeem: 'redemption',
  redeem: 'redemption',
  swap: 'bridge',
  bridge: 'bridge',
};

/** An unknown type comes in when its name says money arrived; otherwise it counts as leaving. */
const INWARD_WORDS = /deposit|buy|mint|credit|receive/;

/** Zeros past the kobo place say nothing: `100.500000` is ₦100.50 exactly. */
const ZEROS_PAST_KOBO = /^(\s*-?\d+\.\d{2})0+(\s*)$/;

/**
 * A decimal text as Money, or undefined for what cannot be counted exactly (a digit past the kobo
 * place that is not zero, raw chain amounts, junk).
 */
export function countable(value: unknown): Money | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  try {
    return Money.fromService(typeof value === 'string' ? value.replace(ZEROS_PAST_KOBO, '$1') : value);
  } catch {
    return undefined;
  }
}

/**
 * A transaction's amount as Money, or undefined when it cannot be counted: as countable, and never
 * below zero (the list's kind says which way money went; a signed amount would flip it).
 */
function transactionAmount(value: unknown): Money | undefined {
  const amount = countable(value);
  return amount && amount.compare(Money.zero()) >= 0 ? amount : undefined;
}

/** The Lagos day (YYYY-MM-DD) an instant falls on. */
export function lagosDay(at: Date | string): string {
  return new TZDate(new Date(at).getTime(), LAGOS).toISOString().slice(0, 10);
}

/** How much of an amount that could not be read is kept to show it (the CSV and the summary). */
const UNREADABLE_SHOWN = 40;

/**
 * The movement a transaction makes. `seenAt` stands in for a creation time the service left out. An
 * amount that cannot be counted exactly is kept as zero with its text in `unreadableAmount`, so the
 * report says it is missing from the figures rather than drop it silently.
 */
export function movementOf(tx: Transaction, seenAt: Date): Movement {
  const amount = transactionAmount(tx.amount);
  const { kind, direction } = kindOf(tx.trx_type);
  const extra = tx as Record<string, unknown>;
  // No documented shape carries a fee; one sent anyway is taken as the service's word.
  const fee = countable(extra.fee) ?? Money.zero();
  const status = classifyStatus(tx.status);
  const created = validTime(tx.createdAt);
  const at = created ?? validTime(tx.updatedAt) ?? seenAt.toISOString();
  const reason = typeof extra.reason === 'string' && extra.reason ? extra.reason : undefined;
  return {
    reference: tx.trx_ref,
    ...(tx.id ? { id: tx.id } : {}),
    kind,
    direction,
    amount: (amount ?? Money.zero()).toString(),
    fee: fee.toString(),
    at,
    // A status word nobody knows is neither done nor failed: it waits, like pending.
    status: status === 'unknown' ? 'pending' : status,
    ...(status === 'failed' && reason ? { reason } : {}),
    ...(tx.network ? { network: tx.network } : {}),
    ...(amount ? {} : { unreadableAmount: String(tx.amount ?? '').slice(0, UNREADABLE_SHOWN) }),
    ...(created ? {} : { undated: true }),
  };
}

function kindOf(trxType: string | null | undefined): { kind: MovementKind; direction: 'in' | 'out' } {
  const type = (trxType ?? '').toLowerCase();
  const kind: MovementKind = Object.hasOwn(KIND_OF_TYPE, type)
    ? (KIND_OF_TYPE[type] as MovementKind)
    : 'other';
  const direction = kind === 'deposit' || (kind === 'other' && INWARD_WORDS.test(type)) ? 'in' : 'out';
  return { kind, direction };
}

function validTime(text: string | null | undefined): string | undefined {
  if (!text) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/**
 * Whether the movement has changed the custody balance: a success, or an outgoing movement still
 * pending (the service takes the token when it accepts the order and gives it back if it fails).
 */
export function movedBalance(movement: Movement): boolean {
  return movement.status === 'succeeded' || (movement.status === 'pending' && movement.direction === 'out');
}

/** What the movement did to the balance: + for in, − for out, zero when it has not moved it. */
export function balanceEffect(movement: Movement): Money {
  if (!movedBalance(movement)) return Money.zero();
  const amount = Money.parseDecimal(movement.amount);
  return movement.direction === 'in' ? amount : Money.zero().minus(amount);
}

// Identity of events: the dedupe key and outbox id of a delivery, the final-state claim shared with the
// reconciler, and the event a transaction's final state corresponds to.
import { createHash } from 'node:crypto';
import { classifyStatus, type Transaction, type WebhookEvent } from '../cngn/schemas.js';

export type FinalClass = 'succeeded' | 'failed';

/** `event` + `data.transactionId`, else `event` + `trx_ref` + `status`, else the whole body as sent. */
export function dedupeKey(event: WebhookEvent, raw?: unknown): string {
  const { data } = event;
  if (data.transactionId) return `${event.event}|id:${data.transactionId}`;
  if (data.trx_ref) return `${event.event}|ref:${data.trx_ref}|status:${data.status ?? ''}`;
  // Nothing identifies it: only a byte-identical replay counts as a duplicate.
  return `${event.event}|body:${sha256(JSON.stringify(raw ?? event))}`;
}

export function outboxIdFor(origin: 'webhook' | 'reconciler' | 'refused', key: string): string {
  return sha256(`${origin}|${key}`).slice(0, 32);
}

/**
 * A refusal's alert id: its thread's root (the delivery, or the post a late webhook threads under), why,
 * and the requests it names, sorted; only the same refusal in the same thread is the same alert.
 */
export function refusedOutboxId(root: string, why: string, requestIds: string[]): string {
  return outboxIdFor('refused', `${root}|${why}|${[...new Set(requestIds)].sort().join(',')}`);
}

/** The final state an event announces; non-final events (deposit.received, unknown) announce none. */
export function finalClassOf(event: WebhookEvent): FinalClass | undefined {
  if (event.event === 'transaction.failed') return 'failed';
  if (event.event.endsWith('.completed')) return 'succeeded';
  return undefined;
}

/** Keys under which "this transaction's final state was announced" is recorded (by ref and by id). */
export function finalClaimKeys(
  ids: { trx_ref?: string | null; transactionId?: string | null },
  finalClass: FinalClass,
): string[] {
  const keys: string[] = [];
  if (ids.trx_ref) keys.push(`webhooks:final:ref:${ids.trx_ref}:${finalClass}`);
  if (ids.transactionId) keys.push(`webhooks:final:id:${ids.transactionId}:${finalClass}`);
  return keys;
}

/**
 * Locks a final state is decided under: one per identifier the event carries, always taken reference
 * first, so a webhook naming only the id and the reconciler (which knows both) wait for each other.
 */
export function finalLockNames(ids: { trx_ref?: string | null; transactionId?: string | null }): string[] {
  const names: string[] = [];
  if (ids.trx_ref) names.push(`webhooks:final:ref:${ids.trx_ref}`);
  if (ids.transactionId) names.push(`webhooks:final:id:${ids.transactionId}`);
  return names.length > 0 ? names : ['webhooks:final:none'];
}

// A Map: the transaction type is the service's text, and `constructor` must not find Object's own member.
const COMPLETED_EVENT = new Map<string, string>([
  ['withdraw', 'withdrawal.completed'],
  ['fiat_redeem', 'redemption.completed'],
  ['enaira_redeem', 'redemption.completed'],
  ['swap', 'bridge.completed'],
  ['bridge', 'bridge.completed'],
  ['fiat_buy', 'deposit.completed'],
  ['crypto_deposit', 'deposit.completed'],
]);

/** The webhook a transaction in a final state should have produced; undefined while not final. */
export function eventForTransaction(tx: Transaction): { name: string; finalClass: FinalClass } | undefined {
  const cls = classifyStatus(tx.status);
  if (cls === 'failed') return { name: 'transaction.failed', finalClass: 'failed' };
  if (cls !== 'succeeded') return undefined;
  const name = COMPLETED_EVENT.get((tx.trx_type ?? '').toLowerCase()) ?? 'transaction.completed';
  return { name, finalClass: 'succeeded' };
}

/** The event the reconciler posts for a transaction no webhook announced. */
export function eventFromTransaction(tx: Transaction, name: string): WebhookEvent {
  const at = tx.updatedAt ?? tx.createdAt ?? undefined;
  return {
    event: name,
    data: {
      transactionId: tx.id,
      trx_ref: tx.trx_ref,
      status: tx.status,
      trx_type: tx.trx_type ?? undefined,
      network: tx.network ?? undefined,
      base_trx_hash: tx.base_trx_hash ?? undefined,
      extl_trx_hash: tx.extl_trx_hash ?? undefined,
      explorer_link: tx.explorer_link ?? undefined,
      amount: tx.amount,
      asset_symbol: tx.asset_symbol ?? undefined,
      receiver: tx.receiver ?? undefined,
      occurredAt: at,
    },
    timestamp: at,
  };
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

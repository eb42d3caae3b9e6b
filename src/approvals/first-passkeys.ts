// Whether a click on a passkey registration is one of a new install's first passkeys, judged from the
// book's sealed records: when it was made, and whether the click may still count at the send
// (signed-approvals.ts decides what the click is worth; docs/passkeys.md).
import { heldAt } from '../access/index.js';
import type { PasskeyBook } from './passkey-book.js';
import type { ApprovalRequest } from './types.js';

/** Who counts towards the two holders that close the first-passkeys click: approvers, never delegates. */
export type CountsTowardsTwo = (user: string) => Promise<boolean>;

/** How many who count had held a sealed passkey by `at` (any time when absent), revoked since or not. */
async function approversWhoHeld(book: PasskeyBook, counts: CountsTowardsTwo, at?: Date): Promise<number> {
  const by = at?.getTime() ?? Number.POSITIVE_INFINITY;
  const users = new Set((await book.sealed()).filter((p) => Date.parse(p.addedAt) <= by).map((p) => p.user));
  let held = 0;
  for (const user of users) if (await counts(user)) held += 1;
  return held;
}

/**
 * Is the first-passkeys click closed? It is once two who count have held a sealed passkey here: the
 * write that made them two closed it (PasskeyBook.add); a book written before that closes it now.
 */
export async function clickClosed(book: PasskeyBook, counts: CountsTowardsTwo, now: Date): Promise<boolean> {
  if (await book.clickClosedAt()) return true;
  if ((await approversWhoHeld(book, counts)) < 2) return false;
  await book.closeClick(now);
  return true;
}

/**
 * Was a click on this registration, made at `at`, one of the first passkeys' (fewer than two approvers
 * had held a passkey just before it, and the click was not closed by then)? Judged from the book's
 * sealed records and the click's date. That date, and the request's, are the store's word: whether
 * such a click still counts at the send is clickStillOpen's to say. Never another kind.
 */
export async function firstPasskeysAt(
  request: Pick<ApprovalRequest, 'kind' | 'createdAt'>,
  book: PasskeyBook,
  at: Date,
  counts: CountsTowardsTwo,
): Promise<boolean> {
  if ((request.kind as string) !== 'passkey' || at.getTime() < Date.parse(request.createdAt)) return false;
  const closed = await book.clickClosedAt();
  if (closed && closed.getTime() <= at.getTime()) return false;
  return (await approversWhoHeld(book, counts, new Date(at.getTime() - 1))) < 2;
}

/**
 * May a first-passkeys click count at the send, whatever its date? Not once the sealed marker says the
 * click closed, nor while two approvers hold sealed, unrevoked passkeys now (a deleted marker does not
 * reopen it). Only a store rolled back to a new install (book and marker gone) does: docs/passkeys.md.
 */
export async function clickStillOpen(book: PasskeyBook, counts: CountsTowardsTwo): Promise<boolean> {
  if (await book.clickClosedAt()) return false;
  const holding = new Set((await book.sealed()).filter((p) => !p.revoked).map((p) => p.user));
  let held = 0;
  for (const user of holding) if (await counts(user)) held += 1;
  return held < 2;
}

/** Did `user` hold a sealed passkey at `at`? (Then their approval of a registration had to be signed.) */
export async function heldOneAt(book: PasskeyBook, user: string, at: Date): Promise<boolean> {
  return (await book.sealed()).some((p) => p.user === user && heldAt(p, at));
}

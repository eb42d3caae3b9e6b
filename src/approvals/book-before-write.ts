// The passkey book as a registration's last check read it, just before its passkey was written. The
// tracker judges a registration whose write went unanswered after the write landed, and the write
// changed the book: its passkey may be the second approver's, which closes the first-passkeys click
// (and its sealed marker may close on it). Judged on the book as it stands, a click that counted at the
// write would not; judged on this one, the check is the executor's own.
import type { Passkey } from '../access/index.js';
import type { PasskeyBook } from './passkey-book.js';

/** What the checks of approvals read of the book. */
export type BookRead = Pick<PasskeyBook, 'sealed' | 'clickClosedAt' | 'byCredential'>;

/**
 * `book` as it stood when `written` (a sealed record: its time is the bot's) was added: without it and
 * what was added after it, with revocations made since undone, and the click's marker only if it had
 * closed by then.
 */
export function bookBeforeWrite(book: BookRead, written: Passkey): BookRead {
  const at = Date.parse(written.addedAt);
  const sealed = async () =>
    (await book.sealed())
      .filter((p) => p.credentialId !== written.credentialId && Date.parse(p.addedAt) <= at)
      .map((p) => (p.revoked && Date.parse(p.revoked.at) > at ? unrevoked(p) : p));
  return {
    sealed,
    byCredential: async (credentialId) => (await sealed()).find((p) => p.credentialId === credentialId),
    clickClosedAt: async () => {
      const closed = await book.clickClosedAt();
      return closed && closed.getTime() <= at ? closed : undefined;
    },
  };
}

function unrevoked(passkey: Passkey): Passkey {
  const { revoked: _since, ...held } = passkey;
  return held;
}

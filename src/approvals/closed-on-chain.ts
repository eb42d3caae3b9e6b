// Just before the one service call (and before the tracker completes an unanswered write of the bot's
// own), where the bot holds the audit signing key: a request the signed audit chain records as closed
// is never sent or completed again, whatever the store says of it now, and neither is one the chain
// cannot show open (its filing is older than what the chain vouches for). The chain is read through
// audit/verified-closings.ts. docs/decisions/closed-on-the-signed-chain.md.
import type { ChainWord } from '../audit/index.js';
import { lagosTime } from '../format/display.js';
import type { ApprovalRequest } from './types.js';

/** How the note of a request closed on the chain begins (the rest names its state and time). */
export const CLOSED_ON_CHAIN = 'already closed on the signed audit chain';

/** The note a request fails with when the chain cannot show it still open. */
export const NOT_SHOWN_OPEN =
  'filed before the part of the signed audit chain the bot can still check (removed by retention, or before a break in the chain), so it cannot be shown still open; nothing was sent: a person should check it against the audit archive';

/** What reads the chain's word on a request (VerifiedClosings). */
export interface ClosingsReader {
  wordOn(requestId: string): Promise<ChainWord>;
}

/** The note a request fails with when the chain says it is closed, or cannot say it is open; else undefined. */
export async function closedProblem(
  closings: ClosingsReader | undefined,
  request: ApprovalRequest,
): Promise<string | undefined> {
  if (!closings) return undefined;
  const word = await closings.wordOn(request.id);
  if (word === 'open') return undefined;
  if (word === 'unknown') return NOT_SHOWN_OPEN;
  const { state, at } = word.closed;
  return `${CLOSED_ON_CHAIN} (${state}, ${lagosTime(at)}): the store was changed outside the bot, or the bot's own write of that step never landed; nothing was sent`;
}

/** A note that says the request was closed on the chain or could not be shown open. */
export function closedOnChainNote(note: string): boolean {
  return note === NOT_SHOWN_OPEN || note.startsWith(CLOSED_ON_CHAIN);
}

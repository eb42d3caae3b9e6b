// Just before the one service call (and before the tracker completes an unanswered write of the bot's
// own), where the bot holds the audit signing key: a request the signed audit chain records as closed
// is never sent or completed again, whatever the store says of it now, and neither is one the chain
// cannot show open (its filing is older than what the chain vouches for). Before a send, a request the
// chain records as already sent (or sent with no answer) is refused too: the call was made once. The
// tracker settling the bot's own unanswered write reads that same entry as its own, so it does not
// refuse it. The chain is read through audit/verified-closings.ts.
// docs/decisions/closed-on-the-signed-chain.md.
import type { ChainWord } from '../audit/index.js';
import { lagosTime } from '../format/display.js';
import type { ApprovalRequest, EngineLog } from './types.js';

/** How the note of a request closed on the chain begins (the rest names its state and time). */
export const CLOSED_ON_CHAIN = 'already closed on the signed audit chain';

/** How the note of a request the chain records as already sent begins. */
export const SENT_ON_CHAIN = 'already sent to the service, as the signed audit chain records';

/** The note a request fails with when the chain cannot show it still open. */
export const NOT_SHOWN_OPEN =
  'filed earlier than the oldest part of the signed audit chain the bot can check, so the bot cannot show it is still waiting to be sent; nothing was sent. A person should look it up in the audit archive and, if it should still go out, file it again';

/** What reads the chain's word on a request (VerifiedClosings). */
export interface ClosingsReader {
  wordOn(requestId: string): Promise<ChainWord>;
}

/** 'send': the executor, before its call. 'settle': the tracker, settling the bot's own unanswered write. */
export type ClosedCheckFor = 'send' | 'settle';

/** The note a request fails with when the chain says it is closed (or sent, before a send), or cannot say it is open. */
async function closedProblem(
  closings: ClosingsReader | undefined,
  request: ApprovalRequest,
  checkFor: ClosedCheckFor,
): Promise<string | undefined> {
  if (!closings) return undefined;
  const word = await closings.wordOn(request.id);
  if (word === 'open') return undefined;
  if (word === 'unknown') return NOT_SHOWN_OPEN;
  if ('called' in word) {
    if (checkFor === 'settle') return undefined;
    const { state, at } = word.called;
    return `${SENT_ON_CHAIN} (${state}, ${lagosTime(at)}): the store was changed outside the bot to make it look approved again; nothing more was sent`;
  }
  const { state, at } = word.closed;
  return `${CLOSED_ON_CHAIN} (${state}, ${lagosTime(at)}): the store was changed outside the bot, or the bot's own write of that step never landed; nothing was sent`;
}

/**
 * A note that says the request was closed or sent on the chain, or could not be shown open (anywhere in
 * it: the tracker's failure words may put their own before it).
 */
export function closedOnChainNote(note: string): boolean {
  return [NOT_SHOWN_OPEN, CLOSED_ON_CHAIN, SENT_ON_CHAIN].some((words) => note.includes(words));
}

/** The check as the engine runs it: logged as an error and counted when it refuses. */
export class ClosedOnChain {
  constructor(
    private readonly closings: ClosingsReader | undefined,
    private readonly log: EngineLog | undefined,
    private readonly counted: (requestId: string) => void,
  ) {}

  /** Read the chain once now (at start), so the first send after a restart does not read it all. */
  async warm(): Promise<void> {
    await this.closings?.wordOn('');
  }

  /** closedProblem, logged and counted. */
  async problem(request: ApprovalRequest, checkFor: ClosedCheckFor): Promise<string | undefined> {
    const problem = await closedProblem(this.closings, request, checkFor);
    if (problem) {
      this.log?.error?.(
        'NOT SENT: closed or already sent on the signed audit chain, or not shown open there',
        {
          requestId: request.id,
          problem,
        },
      );
      this.counted(request.id);
    }
    return problem;
  }
}

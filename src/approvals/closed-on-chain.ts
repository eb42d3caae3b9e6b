// Where the bot holds the audit signing key: a request the signed audit chain records as closed is
// never sent or completed again, whatever the store says of it now, and neither is one the chain cannot
// show open (its filing is older than what the chain vouches for). Before a send, a request the chain
// records as already sent (or sent with no answer) is refused too: the call was made once; so is one
// whose last claim on the chain no later step hands back (its call may have been made). The chain is
// read for the request as it is about to be claimed, under the claim's lock (claim-execution.ts; the late
// lookup reads it first too), and the refused request ends as the chain tells it: completed when the
// chain says so, outcome unknown for a person when the chain records its call, else failed, nothing
// sent. A read error there claims and settles nothing: the request stays approved for the next sweep.
// Right before the call it is read again (failureAtTheCall); a read error there sends nothing and fails
// the request, and a request whose last claim there is not this process's own ends outcome unknown. The
// call's own entry is then appended and the chain read again (recordCall): the call goes out only if
// nothing of the request's claim lies between its own claim and that entry. The tracker settling the
// bot's own unanswered write reads the request's own `outcome-unknown` entry as its own, so it does not
// refuse it. The chain is read through
// audit/verified-closings.ts. docs/decisions/closed-on-the-signed-chain.md.
import { type AuditLog, CALL_ACTION, type ChainWord, type OwnCall, type OwnClaim } from '../audit/index.js';
import { lagosTime } from '../format/display.js';
import { bindingProblem, type ServiceBinding } from './binding.js';
import type { CallFailure } from './service-call.js';
import type { ApprovalRequest, EngineLog, RequestState } from './types.js';

/** How the note of a request closed on the chain begins (the rest names its state and time). */
export const CLOSED_ON_CHAIN = 'already closed on the signed audit chain';

/** How the note of a request the chain records as already sent begins. */
export const SENT_ON_CHAIN = 'already sent to the service, as the signed audit chain records';

/** How the note of a request the chain records as claimed, its claim never handed back, begins. */
export const CLAIMED_ON_CHAIN =
  'claimed for sending on the signed audit chain, and no later step there hands that claim back';

/** The note a request fails with when the chain cannot show it still open. */
export const NOT_SHOWN_OPEN =
  'filed earlier than the oldest part of the signed audit chain the bot can check, so the bot cannot ' +
  'show it is still waiting to be sent; nothing was sent. A person should look it up in the audit ' +
  'archive and, if it should still go out, file it again';

/** The note a request fails with when the chain cannot be read right before its call. */
export const CHAIN_UNREAD_AT_CALL =
  'the signed audit chain could not be read just before sending, so the bot could not show the request ' +
  'was not closed or sent already; nothing was sent. A person should check the audit log and, if it ' +
  'should still go out, file it again';

/**
 * The note a request stops with, outcome unknown, when the chain could not be read after its call's
 * entry was appended: this process sent nothing, but the chain records the call as begun.
 */
export const CHAIN_UNREAD_AFTER_CALL_ENTRY =
  'the signed audit chain could not be read after the call was entered on it, so the bot could not show ' +
  'that no other process had claimed it meanwhile; nothing was sent by this process, and whether it ' +
  'should still go out is for a person to check with the service and the audit log';

/**
 * The note a request stops with, outcome unknown, when its claim on the chain is not the process's
 * own right before its call, or its call's entry does not follow its own claim there (a store writer,
 * another process settling it after a lapse, or a chain that does not verify).
 */
const CLAIM_NOT_OURS_ON_CHAIN =
  'its claim is not the last step of its claim on the signed audit chain the bot can check: another ' +
  'claim, a hand-back, another call or a settling of the request came after it while it was sending ' +
  '(the store changed outside the bot, or another process settled it when its claim lapsed); this ' +
  'process sent nothing, and whether another call went through is for a person to check with the service';

/** What reads the chain's word on a request (VerifiedClosings). */
export interface ClosingsReader {
  wordOn(requestId: string): Promise<ChainWord>;
  ownClaimHolds(requestId: string, own: OwnClaim, call?: OwnCall): Promise<boolean>;
}

/** The process's own claim of `request` as its history holds it (its last `executing` step). */
function ownClaimOf(request: ApprovalRequest): OwnClaim | undefined {
  const step = request.history.findLastIndex((h) => h.action === 'executing');
  const at = request.history[step]?.at;
  const generation = request.execution?.generation;
  if (at === undefined) return undefined;
  return generation === undefined ? { step, at } : { step, at, claim: { round: request.round, generation } };
}

/**
 * 'claim': the executor, before and under its claim; 'send': the executor again, right before its call;
 * 'settle': the tracker, settling the bot's own unanswered write.
 */
export type ClosedCheckFor = 'claim' | 'send' | 'settle';

/**
 * A refusal: where the request ends and the note that says why. Completed: the chain records it so.
 * Outcome unknown: the chain records its call, so whether the money went out is for a person to check.
 * Failed: nothing was sent.
 */
export interface ChainRefusal {
  to: Extract<RequestState, 'failed' | 'outcome-unknown' | 'completed'>;
  note: string;
}

/** The refusal the chain's word on a request calls for, or undefined when it may be sent (or settled). */
function refusalOf(word: ChainWord, checkFor: ClosedCheckFor): ChainRefusal | undefined {
  if (word === 'open') return undefined;
  if (word === 'unknown') return { to: 'failed', note: NOT_SHOWN_OPEN };
  if ('called' in word) {
    if (checkFor === 'settle') return undefined;
    const { state, at } = word.called;
    // A call's own entry leaves the request executing: it names the call begun, not the state.
    const step = state === 'executing' ? 'its call begun' : state;
    const note = `${SENT_ON_CHAIN} (${step}, ${lagosTime(at)}): the store was changed outside the bot to make it look approved again; nothing more was sent, and whether that call went through is for a person to check with the service`;
    return { to: 'outcome-unknown', note };
  }
  if ('claimed' in word) {
    // Before the call the chain's last word on the request is its own claim: only a claim check reads it.
    if (checkFor !== 'claim') return undefined;
    const note = `${CLAIMED_ON_CHAIN} (${lagosTime(word.claimed.at)}): its call may have been made before the bot stopped; the store was changed outside the bot to make it look approved again, or the claim's own write never landed; nothing more was sent, and whether a call went through is for a person to check with the service`;
    return { to: 'outcome-unknown', note };
  }
  const { state, at } = word.closed;
  if (state === 'completed') {
    const note = `${CLOSED_ON_CHAIN} (${state}, ${lagosTime(at)}): the store was changed outside the bot to make it look approved again; nothing more was sent, and the audit log holds its record`;
    return { to: 'completed', note };
  }
  const note = `${CLOSED_ON_CHAIN} (${state}, ${lagosTime(at)}): the store was changed outside the bot, or the bot's own write of that step never landed; nothing was sent`;
  return { to: 'failed', note };
}

/**
 * A refusal that only says the chain cannot show the request open, for a request bound to another
 * environment or key: it is closed as bound elsewhere instead (binding.ts), nothing sent either way.
 */
export function unshownElsewhere(
  refusal: ChainRefusal,
  request: ApprovalRequest,
  binding: ServiceBinding,
): boolean {
  return refusal.note === NOT_SHOWN_OPEN && bindingProblem(request, binding) !== undefined;
}

/**
 * A note that says the request was closed or sent on the chain, or could not be shown open (anywhere in
 * it: the tracker's failure words may put their own before it).
 */
export function closedOnChainNote(note: string): boolean {
  return [
    NOT_SHOWN_OPEN,
    CLOSED_ON_CHAIN,
    SENT_ON_CHAIN,
    CLAIMED_ON_CHAIN,
    CLAIM_NOT_OURS_ON_CHAIN,
    CHAIN_UNREAD_AT_CALL,
    CHAIN_UNREAD_AFTER_CALL_ENTRY,
  ].some((words) => note.includes(words));
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

  /** The refusal the chain calls for, logged and counted. Throws when the chain cannot be read. */
  async refusal(request: ApprovalRequest, checkFor: ClosedCheckFor): Promise<ChainRefusal | undefined> {
    if (!this.closings) return undefined;
    const refusal = refusalOf(await this.closings.wordOn(request.id), checkFor);
    if (refusal) {
      this.log?.error?.(
        'NOT SENT: closed or already sent on the signed audit chain, or not shown open there',
        { requestId: request.id, problem: refusal.note },
      );
      this.counted(request.id);
    }
    return refusal;
  }

  /**
   * Right before the call, after the write-ahead mark: what the request ends as instead of being sent.
   * Failed when the chain cannot be read, or shows nothing was sent; outcome unknown when it records the
   * request completed or called, whose note says so (never "nothing was sent").
   */
  async failureAtTheCall(request: ApprovalRequest): Promise<CallFailure | undefined> {
    let refusal: ChainRefusal | undefined;
    try {
      refusal = await this.refusal(request, 'send');
    } catch (error) {
      this.log?.error?.('NOT SENT: the signed audit chain could not be read right before the call', {
        requestId: request.id,
        error: String(error),
      });
      return { to: 'failed', note: CHAIN_UNREAD_AT_CALL };
    }
    if (refusal) {
      return { to: refusal.to === 'failed' ? 'failed' : 'outcome-unknown', note: refusal.note };
    }
    return this.ownClaimFailure(request);
  }

  /**
   * Right before the call, where the chain is read: the call's own entry, so that a store writer who
   * later makes its claim look unmarked (and so handed back) cannot have it sent again; then the chain
   * read again up to it. Of two calls racing on one request, the later entry finds the earlier between
   * its own claim and itself. A failure when the entry could not be appended (the request stays marked
   * sending and is looked up once its lease runs out), or when anything of the request's claim lies
   * between its own claim and its entry: then nothing is sent.
   */
  async recordCall(
    log: Pick<AuditLog, 'append'>,
    request: ApprovalRequest,
    at: Date,
  ): Promise<CallFailure | 'not-recorded' | undefined> {
    if (!this.closings) return undefined;
    const { id: requestId, kind, amount, keyId } = request;
    const draft = {
      at: at.toISOString(),
      requestId,
      kind,
      action: CALL_ACTION,
      state: request.state,
      ...(keyId ? { keyId } : {}),
    };
    let call: OwnCall;
    try {
      call = await log.append(request.environment, amount ? { ...draft, amount } : draft);
    } catch (error) {
      this.log?.error?.('NOT SENT: the call could not be recorded on the signed audit chain', {
        requestId,
        error: String(error),
      });
      return 'not-recorded';
    }
    return this.ownClaimFailure(request, call);
  }

  /**
   * Outcome unknown, for a person, when the chain does not show the request's own claim as its last
   * step of its claim (or, given `call`, right before the call's entry); also when it cannot be read.
   */
  private async ownClaimFailure(request: ApprovalRequest, call?: OwnCall): Promise<CallFailure | undefined> {
    if (!this.closings) return undefined;
    const own = ownClaimOf(request);
    let holds: boolean | undefined;
    try {
      holds = own && (await this.closings.ownClaimHolds(request.id, own, call));
    } catch (error) {
      this.log?.error?.('NOT SENT: the signed audit chain could not be read to check the claim', {
        requestId: request.id,
        error: String(error),
      });
      // Before the call's entry, as any read error right before the call; after it, the chain says the
      // call began, so the request is left to a person, never told "nothing was sent" and filed again.
      return call
        ? { to: 'outcome-unknown', note: CHAIN_UNREAD_AFTER_CALL_ENTRY }
        : { to: 'failed', note: CHAIN_UNREAD_AT_CALL };
    }
    if (holds) return undefined;
    this.log?.error?.('NOT SENT: its claim is not its own on the signed audit chain', {
      requestId: request.id,
    });
    this.counted(request.id);
    return { to: 'outcome-unknown', note: CLAIM_NOT_OURS_ON_CHAIN };
  }

  /** The refusal's note (refusal). */
  async problem(request: ApprovalRequest, checkFor: ClosedCheckFor): Promise<string | undefined> {
    return (await this.refusal(request, checkFor))?.note;
  }
}

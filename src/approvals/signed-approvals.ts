// Passkey-signed approvals (CNGN_SIGNED_APPROVALS): which approvals must be signed, the one-time
// challenge a signing page asks the approver's passkey to sign, the check of an assertion when the
// approval is recorded (under the request's lock, over the request as stored then), and the check of
// every counted approval's assertion again just before the one service call. What is signed is in
// approval-digest.ts; the assertion check itself in access/signatures.ts.

import {
  type ApprovalEvidence,
  type ApprovalPolicy,
  heldAt,
  needsSignature,
  type SignatureRefusal,
  type SigningPlace,
  type SigningRule,
  verifyEvidence,
} from '../access/index.js';
import type { Store } from '../store/index.js';
import { amountsAgree } from './amount-check.js';
import { approvalBytes, approvalChallenge } from './approval-digest.js';
import { ClosedOnChain, type ClosingsReader } from './closed-on-chain.js';
import {
  type CountsTowardsTwo,
  clickClosed,
  clickStillOpen,
  firstPasskeysAt,
  heldOneAt,
} from './first-passkeys.js';
import { type NonceFor, PasskeyBook } from './passkey-book.js';
import { type PasskeySealer, processSealer } from './passkey-seal.js';
import type { ServiceEnvironment } from './ports.js';
import { FILING_SEAL_BROKEN, FILING_SEAL_MISSING, FilingSeal } from './request-seal.js';
import type { ApprovalRequest, EngineLog } from './types.js';

/** ApprovalEngineOptions.signing: the rule, and where approvers' browsers sign (absent: no signing). */
export interface SigningOptions extends SigningPlace {
  rule: SigningRule;
  /** The rule may be switched while the bot runs (setRule): the local workbench's sandbox only. */
  switchable?: boolean | undefined;
}

/**
 * Why an approval's signature was refused: none given where one is needed, its one-time challenge
 * already used or expired, or the assertion itself (access/signatures.ts).
 */
export type SigningRefusal = 'signature-required' | 'challenge-used' | SignatureRefusal;

/** An approval's signing as checked: its evidence, or the first passkeys' click it is, or why it is refused. */
type Checked = { evidence?: ApprovalEvidence; unsigned?: 'first passkeys' } | { refusal: SigningRefusal };

/** Why no signing challenge was given: the request needs no signature, or the user holds no passkey. */
export type ChallengeRefusal = 'signature-not-needed' | 'no-passkey';

/** What a signing page asks the browser to sign for one approver, one round of one request. */
export interface SigningChallenge {
  /** The WebAuthn challenge, base64url: SHA-256(bytes ‖ 0x00 ‖ nonce). */
  challenge: string;
  /** The one-time nonce (10 minutes, single use) the challenge was made with; sent back with the assertion. */
  nonce: string;
  /** The credential ids of the approver's live passkeys (allowCredentials). */
  allowCredentials: string[];
  /** The request's canonical bytes as signed (approval-digest.ts), as text, for display. */
  bytes: string;
  rpId: string;
  origin: string;
}

/** The evidence-check note a request fails with when an approval's evidence does not hold before sending. */
export const EVIDENCE_FAILED = 'approval evidence does not verify';

/** The note a registration fails with when its first-passkeys click no longer counts at the send. */
export const FIRST_PASSKEYS_CLOSED =
  'approved with a click among the first passkeys, but the click has closed since (two approvers have held passkeys): no passkey was written; register again, and it is approved with a signature';

export type { CountsTowardsTwo };

const anyone: CountsTowardsTwo = async () => true;

/**
 * A passkey registration (part of this kind's work is elsewhere) may be approved with a click until two
 * approvers have held a passkey here: a new install's first passkeys ("unsigned: first passkeys"). Once
 * they have, the click is closed for good (a sealed marker in the book): revoking passkeys never opens
 * it again. Recovery when every passkey is lost is CNGN_SIGNED_APPROVALS=off (docs/passkeys.md).
 */
export async function mayApproveUnsigned(
  request: Pick<ApprovalRequest, 'kind'>,
  book: PasskeyBook,
  counts: CountsTowardsTwo = anyone,
  now: Date = new Date(),
): Promise<boolean> {
  return (request.kind as string) === 'passkey' && !(await clickClosed(book, counts, now));
}

/** A nonce taken (once) for an approval being recorded, with the assertion it came with. */
export interface TakenEvidence {
  evidence: ApprovalEvidence;
  issued: NonceFor | undefined;
}

/**
 * What happened to a signature, for whoever counts (metrics): an approval recorded with one, one refused
 * (and why), or a request that failed its check before sending.
 */
export type SigningEvent =
  | { signed: ApprovalRequest['kind'] }
  | { refused: SigningRefusal; requestId: string; user: string }
  | { evidenceFailed: string }
  | { closedOnChain: string };

/** What the executor checks just before the call with it (send-checks.ts). */
export type SendChecks = Pick<
  SignedApprovals,
  'problemAtSend' | 'filingSealProblem' | 'filingSeal' | 'failedAtSend' | 'closedOnChain'
>;

/** What the engine offers of it to the rest of the bot (the checks themselves run only inside the engine). */
export type SigningSide = Pick<
  SignedApprovals,
  'required' | 'requiredOf' | 'book' | 'onEvent' | 'options' | 'setRule'
>;

export class SignedApprovals {
  readonly book: PasskeyBook;
  /** Each request's seal at filing, by the key that seals the book (request-seal.ts). */
  readonly filingSeal: FilingSeal;
  /** Sealed with the audit signing key (kept outside the store), not a key made for this process. */
  readonly sealsKept: boolean;
  private readonly observers: Array<(event: SigningEvent) => void> = [];
  private readonly brokenGrants = new Set<string>();

  #options: SigningOptions | undefined;
  private readonly log: EngineLog | undefined;
  private readonly counts: CountsTowardsTwo;
  private readonly now: () => Date;
  /** Where the bot holds the audit signing key: the signed chain's word before a send (closed-on-chain.ts). */
  readonly closedOnChain: ClosedOnChain;

  /**
   * On the engine's store, for its environment, with the engine's options (`signing` absent: off). The
   * book's records are sealed with the audit signing key; without one (a memory store given none), with
   * a key made for this process, whose seals end with it (a record it sealed counts only while it runs).
   */
  constructor(from: {
    store: Store;
    custody: { environment: ServiceEnvironment };
    signing?: SigningOptions | undefined;
    auditSeal?: { signer: PasskeySealer } | undefined;
    policy?: Pick<ApprovalPolicy, 'isApprover' | 'lastKnownApprover'> | undefined;
    now?: (() => Date) | undefined;
    log?: EngineLog | undefined;
    /** Where the bot holds the audit signing key: which requests the signed chain records as closed. */
    closings?: ClosingsReader | undefined;
  }) {
    const sealer = from.auditSeal?.signer ?? processSealer();
    if (!from.auditSeal && from.signing && from.signing.rule.mode !== 'off') {
      from.log?.warn(
        'signed approvals without an audit signing key: passkeys are sealed with a key made for this process and stop counting when it stops; set CNGN_AUDIT_SIGNING_KEY (or its _FILE)',
        {},
      );
    }
    this.filingSeal = new FilingSeal(sealer, from.custody.environment);
    this.sealsKept = from.auditSeal !== undefined;
    this.#options = from.signing;
    this.log = from.log;
    const { policy } = from;
    this.counts = policy ? (user) => policy.isApprover(user) : anyone;
    // The book closes the first-passkeys click as it writes the passkey that makes two approvers holders,
    // judging who is an approver by their last known membership (no waiting on Slack; unknown counts).
    const lastKnown: CountsTowardsTwo = async (user) => policy?.lastKnownApprover(user) !== 'left';
    this.book = new PasskeyBook(from.store, from.custody.environment, sealer, undefined, lastKnown);
    this.now = from.now ?? (() => new Date());
    this.closedOnChain = new ClosedOnChain(from.closings, from.log, (id) => this.tell({ closedOnChain: id }));
  }

  /** The rule and where approvers sign; undefined when signing is off altogether. */
  get options(): SigningOptions | undefined {
    return this.#options;
  }

  /**
   * Switch the rule while the bot runs: only where the engine was given a switchable rule (the local
   * workbench's sandbox, never a live key). False, and nothing changed, anywhere else.
   */
  setRule(rule: SigningRule): boolean {
    if (!this.#options?.switchable) return false;
    this.#options = { ...this.#options, rule };
    this.log?.info?.('signing rule switched', { rule: rule.mode });
    return true;
  }

  /** A request that failed before sending for a check made outside (send-checks.ts), counted like the rest. */
  failedAtSend(requestId: string): void {
    this.tell({ evidenceFailed: requestId });
  }

  /** Told of each signed approval recorded, each signature refused, each request failed before sending. */
  onEvent(observer: (event: SigningEvent) => void): void {
    this.observers.push(observer);
  }

  private tell(event: SigningEvent): void {
    for (const observer of this.observers) {
      try {
        observer(event);
      } catch (error) {
        this.log?.warn('signing observer failed', { error: String(error) });
      }
    }
  }

  /** Must approvals of this request be signed now? */
  async required(request: ApprovalRequest): Promise<boolean> {
    if (!this.options) return false;
    const kind = request.kind as Parameters<typeof needsSignature>[1];
    if (!needsSignature(this.options.rule, kind, request.amount)) return false;
    return !(await mayApproveUnsigned(request, this.book, this.counts, this.now()));
  }

  /** Must `user`'s approval be signed? As required, and a registration's approver holding a passkey signs. */
  async requiredOf(request: ApprovalRequest, user: string): Promise<boolean> {
    if (await this.required(request)) return true;
    const { options } = this;
    if (!options || (request.kind as string) !== 'passkey' || !needsSignature(options.rule, 'passkey'))
      return false;
    return (await this.book.heldBy(user)).length > 0;
  }

  /** The one-time challenge for `user` approving `request` (its current round): the nonce is issued here. */
  async challenge(request: ApprovalRequest, user: string): Promise<SigningChallenge | ChallengeRefusal> {
    const { options } = this;
    if (!options || !(await this.requiredOf(request, user))) return 'signature-not-needed';
    const allowCredentials = (await this.book.heldBy(user)).map((p) => p.credentialId);
    if (allowCredentials.length === 0) return 'no-passkey';
    const nonce = await this.book.issueNonce({ requestId: request.id, user, round: request.round });
    const bytes = approvalBytes(request);
    const challenge = approvalChallenge(bytes, nonce);
    return { challenge, nonce, allowCredentials, bytes: bytes.toString('utf8'), ...place(options) };
  }

  /** Before the request's lock: take the assertion's nonce (once: a replayed assertion finds it gone). */
  async take(evidence: ApprovalEvidence | undefined): Promise<TakenEvidence | undefined> {
    if (!evidence) return undefined;
    return { evidence, issued: await this.book.takeNonce(evidence.nonce) };
  }

  /**
   * Under the request's lock, over the request as stored now: the evidence to keep on the approval (none
   * when no signature is needed and none was given; `unsigned` when a click counts only by the
   * first-passkeys rule), or why it is refused. Nothing of the approval is recorded here; a passkey's
   * signature counter moves up with the check (PasskeyBook.advanceCounter).
   */
  async check(request: ApprovalRequest, user: string, taken: TakenEvidence | undefined): Promise<Checked> {
    const judged = await this.judge(request, user, taken);
    if ('refusal' in judged) {
      this.log?.warn('passkey signature refused; nothing recorded', {
        requestId: request.id,
        user,
        reason: judged.refusal,
      });
      this.tell({ refused: judged.refusal, requestId: request.id, user });
    }
    return judged;
  }

  private async judge(
    request: ApprovalRequest,
    user: string,
    taken: TakenEvidence | undefined,
  ): Promise<Checked> {
    const { options } = this;
    if (!options) return {};
    if (!taken) {
      if (await this.requiredOf(request, user)) return { refusal: 'signature-required' };
      // Any rule but off signs a registration's approvals: a click that needs no signature then is
      // a first passkeys' click (mayApproveUnsigned), and the approval's step says so.
      const first = (request.kind as string) === 'passkey' && needsSignature(options.rule, 'passkey');
      return first ? { unsigned: 'first passkeys' } : {};
    }
    const { evidence, issued } = taken;
    if (!issued) return { refusal: 'challenge-used' };
    const forThis = issued.requestId === request.id && issued.user === user && issued.round === request.round;
    if (!forThis) return { refusal: 'wrong-challenge' };
    const checked = await verifyEvidence(evidence, {
      ...place(options),
      user,
      passkey: await this.book.byCredential(evidence.credentialId),
      challenge: approvalChallenge(approvalBytes(request), evidence.nonce),
      // Checked below, and moved up in the same step: a check here would read before that step.
      skipCounter: true,
    });
    if (!checked.ok) return { refusal: checked.reason };
    const { credentialId, nonce } = evidence;
    const counted = await this.book.advanceCounter(credentialId, checked.counter, nonce, this.now());
    return counted === true ? { evidence } : { refusal: counted };
  }

  /** After `user`'s signed approval of `request` was written (its counter moved up before): counted. */
  recorded(request: ApprovalRequest, user: string): void {
    if (request.approvals.find((a) => a.user === user)?.evidence) this.tell({ signed: request.kind });
  }

  /**
   * Just before the one service call: a request that needs signatures has as many approvals as it
   * needs, by distinct people other than its requester, with distinct nonces and passkeys; and every
   * counted approval has evidence that still verifies, against a passkey held when the approval was made
   * and not revoked since, and the request's bytes as they stand now (counters are not checked again:
   * they were recorded). Undefined when it may be sent; else the note it fails with (EVIDENCE_FAILED, or
   * FIRST_PASSKEYS_CLOSED for a registration whose click no longer counts).
   */
  async problemAtSend(request: ApprovalRequest): Promise<string | undefined> {
    // The amount signed for is the amount the call sends (the executor checks this for every request too).
    const problem = amountsAgree(request) ? await this.allVerify(request) : EVIDENCE_FAILED;
    if (problem) this.tell({ evidenceFailed: request.id });
    return problem;
  }

  /**
   * Just before the call, for every request where the bot holds the audit signing key, and where the
   * request's approvals must be signed: FILING_SEAL_BROKEN unless its filing seal holds over it as it
   * stands (its payload, amount, requester, count and filing time are then as filed), and
   * FILING_SEAL_MISSING when it carries none.
   */
  filingSealProblem(request: ApprovalRequest): string | undefined {
    if (!this.sealChecked(request) || this.filingSeal.holds(request)) return undefined;
    const missing = request.sealed === undefined;
    this.log?.warn(missing ? 'no filing seal: nothing sent' : 'the filing seal does not hold: nothing sent', {
      requestId: request.id,
    });
    this.tell({ evidenceFailed: request.id });
    return missing ? FILING_SEAL_MISSING : FILING_SEAL_BROKEN;
  }

  /**
   * Whether a delegation's granting request may be relied on: where the bot holds the audit signing
   * key, only while its filing seal holds (a delegation written or widened in the store counts for none).
   */
  grantStands(request: ApprovalRequest): boolean {
    if (!this.sealsKept || this.filingSeal.holds(request)) return true;
    if (!this.brokenGrants.has(request.id)) {
      this.brokenGrants.add(request.id); // delegations are read at every sweep: said once
      this.log?.warn('a delegation whose request was changed outside the bot: it does not count', {
        requestId: request.id,
      });
    }
    return false;
  }

  /** Whether the request's filing seal must hold where the bot relies on it (filingSealProblem). */
  private sealChecked(request: ApprovalRequest): boolean {
    if (this.sealsKept) return true;
    const { options } = this;
    const kind = request.kind as Parameters<typeof needsSignature>[1];
    return options !== undefined && needsSignature(options.rule, kind, request.amount);
  }

  /**
   * A click on a registration among the first passkeys, by an approver who held no passkey then:
   * 'counts' while the click is still open, 'closed' when it was such a click but is closed now.
   */
  private async clickCounted(
    request: ApprovalRequest,
    approval: { user: string; at: string },
  ): Promise<'counts' | 'closed' | false> {
    const at = new Date(approval.at);
    if (!(await firstPasskeysAt(request, this.book, at, this.counts))) return false;
    if (await heldOneAt(this.book, approval.user, at)) return false;
    // A book showing two approvers who held one, written before the marker was, closes it here.
    if (await clickClosed(this.book, this.counts, this.now())) return 'closed';
    return (await clickStillOpen(this.book, this.counts)) ? 'counts' : 'closed';
  }

  /** As many approvals as the request needs, distinct (distinctnessProblem); logged when not. */
  private distinct(request: ApprovalRequest): boolean {
    const problem = distinctnessProblem(request);
    if (problem) this.log?.warn('approvals not distinct: nothing sent', { requestId: request.id, problem });
    return !problem;
  }

  /** Undefined when every counted approval verifies; else the note the request fails with. */
  private async allVerify(request: ApprovalRequest): Promise<string | undefined> {
    const { options } = this;
    if (!options) return undefined;
    const kind = request.kind as Parameters<typeof needsSignature>[1];
    if (!needsSignature(options.rule, kind, request.amount)) return undefined;
    if (!this.distinct(request)) return EVIDENCE_FAILED;
    const bytes = approvalBytes(request);
    for (const approval of request.approvals) {
      const problem = await this.approvalProblem(request, approval, bytes, options);
      if (problem) return problem;
    }
    return undefined;
  }

  /** Why one counted approval does not verify now (the note the request fails with); undefined when it does. */
  private async approvalProblem(
    request: ApprovalRequest,
    approval: ApprovalRequest['approvals'][number],
    bytes: Buffer,
    options: SigningPlace,
  ): Promise<string | undefined> {
    const { evidence } = approval;
    if (!evidence) {
      // A click counts only where it counted when made (a registration among the first passkeys),
      // and only while the click is still open.
      const click = await this.clickCounted(request, approval);
      if (click === 'counts') return undefined;
      return click === 'closed' ? FIRST_PASSKEYS_CLOSED : EVIDENCE_FAILED;
    }
    const passkey = await this.book.byCredential(evidence.credentialId);
    // Held when the approval was made, and not revoked since: a lost device's approvals go nowhere.
    if (passkey && (!heldAt(passkey, new Date(approval.at)) || passkey.revoked)) return EVIDENCE_FAILED;
    const checked = await verifyEvidence(evidence, {
      ...place(options),
      user: approval.user,
      passkey,
      challenge: approvalChallenge(bytes, evidence.nonce),
      heldAt: new Date(approval.at),
      skipCounter: true,
    });
    return checked.ok ? undefined : EVIDENCE_FAILED;
  }
}

/**
 * Why the request's approvals do not count as they stand, each on its own verifying or not: fewer than
 * it needs (or no whole count of them), or two by one person (an approver and their delegate count as one), one by its requester,
 * or two with one nonce or one passkey (an assertion copied in the store). Undefined: they are distinct.
 */
function distinctnessProblem(request: ApprovalRequest): string | undefined {
  const { approvals } = request;
  if (approvals.length === 0) return 'no approval';
  const needed: unknown = request.requiredApprovals;
  if (typeof needed !== 'number' || !Number.isSafeInteger(needed) || needed < 1)
    return 'no whole count of approvals needed';
  if (approvals.length < needed) return `only ${approvals.length} of ${request.requiredApprovals} approvals`;
  const people = approvals.flatMap((a) => (a.onBehalfOf ? [a.user, a.onBehalfOf] : [a.user]));
  if (people.includes(request.requester)) return 'approved by its requester';
  if (!allDifferent(people)) return 'two approvals by one person';
  const evidence = approvals.flatMap((a) => (a.evidence ? [a.evidence] : []));
  if (!allDifferent(evidence.map((e) => e.nonce))) return 'two approvals with one nonce';
  if (!allDifferent(evidence.map((e) => e.credentialId))) return 'two approvals with one passkey';
  return undefined;
}

const allDifferent = (values: readonly string[]): boolean => new Set(values).size === values.length;

const place = ({ rpId, origin }: SigningPlace): SigningPlace => ({ rpId, origin });

// What the passkey pages' JSON calls do, each with the link's one-time token (docs/passkeys.md):
// register/options and sign/options read the link (peekLink: a page may load again), register/file and
// sign/submit use it (useLink: once). Registration and approval are the engine's: these only carry
// the browser's WebAuthn JSON to engine.passkeys and engine.approve, and put a refusal in words,
// on the page and privately in Slack to the approver. An expired or used link is refused the same
// way, and a sign link's refusal goes on its request's record. A link made in another workspace (by
// another install of the bot on the same store) is refused as an unknown one; until Slack has named
// the bot's workspace (start-up), a link is neither used nor refused, and the page asks to try again
// (503, with a Retry-After). Before a good link is read or used, its person is checked with Slack by the
// access gate's own rule (a guest, a bot, a deactivated account or someone not of the bot's workspace
// may do nothing here): a link outlives the Slack click that made it; a sign link so refused goes on its
// request's record too. Each refused link and refused registration is counted by reason
// (PasskeyPageRefusal). A signed approval that fails on an error is said on the page and in Slack as
// maybe recorded once its write had started, else as not approved, its used link not to be tried again.
import { createHash } from 'node:crypto';
import { setTimeout as wait } from 'node:timers/promises';
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { ApprovalEvidence } from '../access/index.js';
import {
  type ApprovalEngine,
  type ApprovalRequest,
  approversCounted,
  figuresDigest,
  MaybeRecordedError,
  type PasskeyBook,
  type PasskeyPageRefusal,
  StaleRoundError,
} from '../approvals/index.js';
import { refusalText } from '../slack/approvals/blocks/lists.js';
import type { Barred } from '../slack/runtime/people.js';
import { STARTING_HEADERS } from '../slack/runtime/request-guard.js';
import { requestTitle } from '../slack/ui/words.js';
import { inertPerson, peopleIn, personOf, signRequestView } from './figures.js';
import { PageProblem } from './http.js';
import type {
  RegisterFileAnswer,
  RegisterFileInput,
  RegisterOptionsAnswer,
  SignOptionsAnswer,
  SignSubmitAnswer,
  SignSubmitInput,
  TokenInput,
} from './protocol.js';

/** What the calls need: the engine, and a private word to a Slack user (a DM), logged when it fails. */
export interface PageDeps {
  engine: ApprovalEngine;
  /** The workspace the bot is installed in (auth.test at start-up); undefined until Slack has answered. */
  homeTeam: () => string | undefined;
  /** Counts a refused link or registration. */
  refused: (reason: PasskeyPageRefusal) => void;
  /** Says `text` privately to `user` in Slack; does nothing while Slack is not connected. */
  tell: (user: string, text: string) => Promise<void>;
  /** "Ade Bello" as Slack names `user`, or undefined when Slack cannot say. */
  nameOf: (user: string) => Promise<string | undefined>;
  /** How long a page waits for a name (default NAME_WAIT_MS). */
  nameWaitMs?: number;
  /**
   * Why the access gate would refuse `user` whatever the lists say (People.lookup, then barred), or
   * undefined for a member who may act; rejects when Slack cannot say.
   */
  barredOf: (user: string) => Promise<Barred | undefined>;
  /** How long a page waits for Slack's word on that (default MEMBER_WAIT_MS). */
  memberWaitMs?: number;
  log: { warn(message: string, fields?: Record<string, unknown>): void };
}

/**
 * How long a page waits for Slack to name someone before it shows their id alone: Bolt's client
 * retries and waits out rate limits for far longer, while the challenge made for the page runs out.
 */
const NAME_WAIT_MS = 2_000;

/**
 * How long a page waits for Slack to say whether someone may act here before refusing: Bolt's client
 * retries for far longer, and the page's link stays unused to be tried again.
 */
const MEMBER_WAIT_MS = 5_000;

/** A ceremony's time in the browser: the one-time challenge's ten minutes. */
const CEREMONY_MS = 10 * 60_000;

/** A link as the passkey book looks it up, and what a good one opens (the book's LinkFor). */
type LinkLookup = Awaited<ReturnType<PasskeyBook['peekLink']>>;
type LinkFor = Extract<LinkLookup, { ok: true }>['link'];

const UNKNOWN =
  'This link has expired or was already used: each link works once, for 10 minutes. Ask for a new one in Slack';

const STARTING = 'The bot is starting and cannot check this link yet; try again in a moment.';

/** How to ask for a new link to `page`, in Slack's words. */
const askAgain = (page: LinkFor['page']) =>
  page === 'register' ? '(`/cngn passkey`).' : '(the request’s signing link).';

/** The sentence for a link refused as expired or used (Slack's code marks kept; the page drops them). */
function refusedLinkText(why: 'expired' | 'used', page: LinkFor['page']): string {
  const what =
    why === 'expired'
      ? 'This link has run out (links work for 10 minutes), so nothing was done.'
      : 'This link was already used (each link works once), so nothing was done.';
  return `${what} Ask for a new one in Slack ${askAgain(page)}`;
}

/** A short hash of a link's token, logged as `link`: the token itself opens the page, so it is never logged. */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex').slice(0, 12);
}

/**
 * A link refused: an unknown one (or one for another page) on the page and in the log only, as no one
 * is known to tell; an expired or used one also privately to its user in Slack, and, for a sign link,
 * on the record of its request, the first time only for each reason (firstRefusal).
 */
async function refuseLink(deps: PageDeps, token: string, page: LinkFor['page'], found: LinkLookup) {
  const link = tokenHash(token);
  if (found.ok || found.why === 'unknown' || found.link.page !== page) {
    deps.log.warn('a passkey page link has expired or was already used', { page, link });
    deps.refused('link-unknown');
    return new PageProblem(`${UNKNOWN} ${askAgain(page)}`, 410);
  }
  const { why, link: refused } = found;
  deps.refused(`link-${why}`);
  const text = refusedLinkText(why, page);
  deps.log.warn('a passkey page link has expired or was already used', {
    page,
    link,
    why,
    user: refused.user,
  });
  const plain = text.replace(/`/g, '');
  if (await deps.engine.passkeys.signatures().book.firstRefusal(token, why)) {
    if (refused.page === 'sign')
      await deps.engine.passkeys.recordLinkRefusal(refused.requestId, refused.user, plain);
    tellLater(deps, refused.user, text);
  }
  return new PageProblem(plain, 410);
}

/**
 * A good link made by an install of the bot in another workspace, on a store this one shares: refused
 * as an unknown link, on the page and in the log only (its user is no one this install may tell).
 */
function refuseElsewhere(deps: PageDeps, token: string, page: LinkFor['page'], found: LinkFor, home: string) {
  deps.log.warn('a passkey page link has expired or was already used', {
    page,
    link: tokenHash(token),
    why: 'made in another workspace',
    team: found.team,
    home,
  });
  deps.refused('link-other-workspace');
  return new PageProblem(`${UNKNOWN} ${askAgain(page)}`, 410);
}

/**
 * A link opened before Slack has named the bot's workspace (a restart, or Slack not answering the
 * start-up check): nothing can say whether it is one of ours yet, so it is neither used nor refused,
 * and the page asks to try again. Its link is only logged by hash.
 */
function notYet(deps: PageDeps, token: string, page: LinkFor['page']) {
  deps.log.warn('a passkey page link cannot be checked until the bot has started', {
    page,
    link: tokenHash(token),
  });
  return new PageProblem(STARTING, 503, STARTING_HEADERS);
}

const UNCHECKED =
  'The bot could not confirm with Slack that you are a member of this workspace, so nothing was done. Try again in a moment.';

/** Why someone barred may do nothing here, in a sentence. */
function barredText(why: Barred): string {
  if (why === 'external')
    return 'Only members of the workspace the bot is installed in can use the cNGN treasury desk, so nothing was done.';
  if (why === 'deleted')
    return 'Your Slack account is deactivated, and deactivated accounts cannot use the cNGN treasury desk, so nothing was done.';
  return 'Guests and bots cannot use the cNGN treasury desk, whatever roles they are given, so nothing was done.';
}

/** Slack's word on whether `user` is barred, or 'unchecked' when Slack fails or does not say in time. */
async function standingOf(deps: PageDeps, user: string): Promise<Barred | 'unchecked' | undefined> {
  const settled = new AbortController();
  const late = wait(deps.memberWaitMs ?? MEMBER_WAIT_MS, 'unchecked' as const, {
    signal: settled.signal,
  }).catch(() => 'unchecked' as const);
  try {
    const asked = deps.barredOf(user).catch((error: unknown) => {
      deps.log.warn('a passkey page could not check the person with Slack', { user, error: String(error) });
      return 'unchecked' as const;
    });
    return await Promise.race([asked, late]);
  } finally {
    settled.abort();
  }
}

/**
 * Refuses the link's person when the access gate would: the approver lists are not enough. When Slack
 * cannot say, nobody is let in on a guess, as at the gate; the link is not used, so it may be tried
 * again. A sign link's refusal goes on the record of its request, with its reason.
 */
async function refuseBarred(deps: PageDeps, link: LinkFor, token: string) {
  const why = await standingOf(deps, link.user);
  if (why === undefined) return;
  const reason = why === 'unchecked' ? 'person-unchecked' : 'person-barred';
  deps.refused(reason);
  const text = why === 'unchecked' ? UNCHECKED : barredText(why);
  const first = await deps.engine.passkeys.signatures().book.firstRefusal(token, reason);
  if (first && link.page === 'sign')
    await deps.engine.passkeys.recordLinkRefusal(link.requestId, link.user, `${reason}: ${text}`);
  const fields = { page: link.page, link: tokenHash(token), reason: why };
  throw refuse(deps, link.user, text, fields, first);
}

/**
 * The link behind `token`, if it opens `page`, was made in the bot's workspace and its person may act
 * here; otherwise refused, or, while that workspace is not known yet, to be tried again (503).
 */
async function linkFor<P extends LinkFor['page']>(
  deps: PageDeps,
  token: string,
  page: P,
  use: boolean,
): Promise<Extract<LinkFor, { page: P }>> {
  const home = deps.homeTeam();
  if (home === undefined) throw notYet(deps, token, page);
  const book = deps.engine.passkeys.signatures().book;
  const peeked = await book.peekLink(token);
  if (!peeked.ok || peeked.link.page !== page) throw await refuseLink(deps, token, page, peeked);
  if (peeked.link.team !== home) throw refuseElsewhere(deps, token, page, peeked.link, home);
  await refuseBarred(deps, peeked.link, token);
  const found = use ? await book.useLink(token) : peeked;
  if (!found.ok || found.link.page !== page) throw await refuseLink(deps, token, page, found);
  return found.link as Extract<LinkFor, { page: P }>;
}

/** A sentence for the page (Slack's code marks left out) that is also said to `user` in Slack, and logged. */
/** A refusal logged, and told to `user` in Slack unless `tell` is false (told already for this link). */
function refuse(deps: PageDeps, user: string, text: string, fields: Record<string, unknown>, tell = true) {
  deps.log.warn('a passkey page refused', { user, ...fields });
  if (tell) tellLater(deps, user, text);
  return new PageProblem(text.replace(/`/g, ''));
}

/**
 * Says `text` to `user` in Slack without the page waiting for it: Slack may be the very thing not
 * answering, and Bolt's client retries far longer than a page may wait. A failure is logged (who, and
 * Slack's error; never the link).
 */
function tellLater(deps: PageDeps, user: string, text: string): void {
  deps.tell(user, text).catch((error: unknown) => {
    deps.log.warn('could not tell an approver privately why a passkey page refused', {
      user,
      error: String(error),
    });
  });
}

/** `user`'s name, or undefined when Slack cannot say or does not within `deps.nameWaitMs`. */
async function nameWithin(deps: PageDeps, user: string): Promise<string | undefined> {
  const settled = new AbortController();
  const late = wait(deps.nameWaitMs ?? NAME_WAIT_MS, undefined, { signal: settled.signal }).catch(
    () => undefined,
  );
  try {
    return await Promise.race([deps.nameOf(user).catch(() => undefined), late]);
  } finally {
    settled.abort();
  }
}

/** The names of `users` as Slack gives them, all asked at once, each within the wait. */
async function namesOf(deps: PageDeps, users: string[]): Promise<Map<string, string>> {
  const named = await Promise.all(users.map(async (id) => [id, await nameWithin(deps, id)] as const));
  return new Map(named.flatMap(([id, name]) => (name === undefined ? [] : [[id, name] as const])));
}

export async function registerOptions(deps: PageDeps, input: TokenInput): Promise<RegisterOptionsAnswer> {
  const link = await linkFor(deps, input.token, 'register', false);
  const [options, names] = await Promise.all([
    deps.engine.passkeys.registrationChallenge(link.user),
    namesOf(deps, [link.user]),
  ]);
  return { ok: true, user: inertPerson(personOf(link.user, names)), options };
}

/**
 * Said when filing a registration failed on an error after its link was used: its request may have been
 * written before the failure, and the link works no more, so the person looks before asking for another.
 */
export const REGISTRATION_MAYBE_FILED =
  'Your passkey may not have been filed: the bot could not reach its store in time. This link is now used: check the approvals channel for your registration request before asking for a new link with `/cngn passkey`.';

export async function registerFile(deps: PageDeps, input: RegisterFileInput): Promise<RegisterFileAnswer> {
  const link = await linkFor(deps, input.token, 'register', true);
  const { response, expectedChallenge, name } = input;
  const filed = await deps.engine.passkeys
    .filePasskey(link.user, { response, expectedChallenge, name })
    .catch((error: unknown) => {
      deps.log.warn('a passkey registration failed', { user: link.user, error: String(error) });
      tellLater(deps, link.user, REGISTRATION_MAYBE_FILED);
      throw new PageProblem(REGISTRATION_MAYBE_FILED.replace(/`/g, ''), 500);
    });
  if (!filed.ok) {
    const text = `Your passkey was not registered: ${filed.problem} Nothing was filed; ask for a new link with \`/cngn passkey\`.`;
    deps.refused('registration-refused');
    throw refuse(deps, link.user, text, { page: 'register', problem: filed.problem });
  }
  const requestId = filed.request.id;
  return { ok: true, requestId, message: `Filed: waiting for another approver (${requestId})` };
}

/** Why there is no challenge to sign, in a sentence. */
function noChallengeText(deps: PageDeps, refusal: string, request: ApprovalRequest | undefined): string {
  if (refusal === 'no-passkey')
    return 'You hold no passkey that counts here: register one with `/cngn passkey`, and have another approver approve it.';
  if (refusal === 'signature-not-needed')
    return 'This request’s approval is not signed with a passkey: approve it in Slack.';
  const shown = (r: ApprovalRequest) => deps.engine.approvalsShown(r);
  return refusalText(refusal as Parameters<typeof refusalText>[0], request, undefined, shown);
}

const staleText = (request: ApprovalRequest) =>
  `${request.id} changed since this link was made (it is in round ${request.round} now), so nothing was approved. Open its signing link again from Slack.`;

export async function signOptions(deps: PageDeps, input: TokenInput): Promise<SignOptionsAnswer> {
  const link = await linkFor(deps, input.token, 'sign', false);
  const made = await deps.engine.passkeys.signingChallenge(link.requestId, link.user, link.round);
  if (!made.ok) {
    const text = 'stale' in made ? staleText(made.stale) : noChallengeText(deps, made.refusal, made.request);
    deps.log.warn('a passkey page has nothing to sign', { user: link.user, requestId: link.requestId });
    throw new PageProblem(text.replace(/`/g, ''));
  }
  const { request } = made;
  // Everyone the page names (whom the link is for, the requester, a registration's owner, who froze
  // the sends, a delegation's two approvers) by name, as Slack knows them.
  const names = await namesOf(deps, [...new Set([link.user, request.requester, ...peopleIn(request)])]);
  return {
    ok: true,
    user: inertPerson(personOf(link.user, names)),
    request: signRequestView(request, made.bytes, names),
    nonce: made.nonce,
    figuresDigest: figuresDigest(request),
    options: {
      challenge: made.challenge,
      rpId: made.rpId,
      allowCredentials: made.allowCredentials.map((id) => ({ id, type: 'public-key' as const })),
      userVerification: 'required',
      timeout: CEREMONY_MS,
    },
  };
}

/** The assertion as the engine keeps it: the browser's JSON and the nonce its challenge was made with. */
function evidenceOf(response: AuthenticationResponseJSON, nonce: string): ApprovalEvidence {
  const { authenticatorData, clientDataJSON, signature, userHandle } = response.response;
  return {
    credentialId: response.id,
    authenticatorData,
    clientDataJSON,
    signature,
    ...(userHandle ? { userHandle } : {}),
    nonce,
  };
}

/**
 * Said when a signed approval failed on an error once its write had started (or its final approval's
 * finishing write, MaybeRecordedError): it may stand, so the person looks before signing again.
 */
export const SIGNED_MAYBE_NOT_RECORDED =
  'Your approval may not have been recorded: the bot could not reach its store in time. Check the request message in Slack before signing again.';

/**
 * Said when it failed before any write: nothing was approved, but the link and its one-time challenge
 * are used, so a new link is the way to try again.
 */
export const SIGNED_NOT_RECORDED =
  'Your approval could not be recorded just now, so nothing was approved. This link is now used: in a moment, open the request’s review from its message in Slack (Approve) for a new one.';

/** A signed approval that failed on an error: logged, and said on the page and privately in Slack. */
function failedApproval(deps: PageDeps, user: string, requestId: string, error: unknown, writing: boolean) {
  const maybe = writing || error instanceof MaybeRecordedError;
  deps.log.warn('a signed approval failed', { user, requestId, error: String(error), maybe });
  const text = maybe ? SIGNED_MAYBE_NOT_RECORDED : SIGNED_NOT_RECORDED;
  tellLater(deps, user, text);
  return new PageProblem(text, 500);
}

export async function signSubmit(deps: PageDeps, input: SignSubmitInput): Promise<SignSubmitAnswer> {
  const link = await linkFor(deps, input.token, 'sign', true);
  const { requestId, user, round } = link;
  const evidence = evidenceOf(input.response, input.nonce);
  // Set once a write of this approval starts: an error from then on may come after it landed.
  let writing = false;
  const onWriting = () => {
    writing = true;
  };
  let result: Awaited<ReturnType<ApprovalEngine['approve']>>;
  try {
    result = await deps.engine.approve(requestId, user, {
      round,
      figuresDigest: input.figuresDigest,
      evidence,
      onWriting,
    });
  } catch (error) {
    if (writing || !(error instanceof StaleRoundError))
      throw failedApproval(deps, user, requestId, error, writing);
    throw refuse(deps, user, staleText(error.request), { page: 'sign', requestId, reason: 'stale' });
  }
  if (!result.ok) {
    const shown = (r: ApprovalRequest) => deps.engine.approvalsShown(r);
    const text = refusalText(result.reason, result.request, result.limit, shown);
    throw refuse(deps, user, text, { page: 'sign', requestId, reason: result.reason });
  }
  const shown = deps.engine.approvalsShown(result.request);
  return { ok: true, requestId, message: signedMessage(result.request, shown) };
}

/**
 * What the page says once a signed approval is recorded: what is true of the request after it, which
 * needs `shown` approvals (as the engine shows them: the stored count, which may not be a number).
 */
export function signedMessage(request: ApprovalRequest, shown: number): string {
  if (request.state !== 'pending') return 'Approved. Slack shows it now.';
  // Pending after an approval means at least one more is needed, whatever the count reads; a count
  // that is no number says no number at all.
  const left = shown - approversCounted(request);
  const more = Number.isFinite(left) ? Math.max(1, left) : undefined;
  const approvals =
    more === undefined ? 'more approvals' : more === 1 ? 'one more approval' : `${more} more approvals`;
  return `Your signed approval is recorded; ${requestTitle(request)} still needs ${approvals}. Nothing is sent yet.`;
}

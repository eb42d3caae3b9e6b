// Registering a passkey: a request of kind `passkey` ("Register a passkey for @Bola"), filed by the
// registration page once the browser made a credential and the bot verified it, approved by another
// approver through the engine like any request, and executed by writing the passkey into the passkey
// book instead of calling the service (as a delegation is executed by a store write). Only then does
// it count. Revocation (the owner's own, or another approver's for a lost device) is at once, and a
// step of the registration request: audited, like a delegation's revocation.
import type {
  PublicKeyCredentialCreationOptionsJSON,
  RegistrationResponseJSON,
  VerifiedRegistrationResponse,
} from '@simplewebauthn/server';
import { type ApprovalPolicy, type Passkey, passkeyNameKey, type SigningRule } from '../access/index.js';
import { PASSKEY_ALGORITHMS, passkeyKeyFields } from '../format/passkey-key.js';
import type { Store } from '../store/index.js';
import type { CoreSections } from './core-sections.js';
import { InvalidDraftError } from './draft.js';
import type { PasskeyBook } from './passkey-book.js';
import { CustodyCallError, type ServiceEnvironment } from './ports.js';
import type { ApprovalRequest, EngineLog, RequestDraft, RequestOf } from './types.js';

/** The step a revocation adds to the registration request it ends. */
export const PASSKEY_REVOKED_ACTION = 'passkey-revoked';

/** A registration challenge is good for this long, and once (the page's ten minutes). */
const CHALLENGE_MS = 10 * 60_000;

/** Where approvers' browsers reach the pages (CNGN_SIGNING_URL) and the rule for signed approvals. */
interface SigningSettings {
  rule: SigningRule;
  /** The WebAuthn relying party id: the host of CNGN_SIGNING_URL. */
  rpId: string;
  /** The origin of CNGN_SIGNING_URL, as the browser reports it. */
  origin: string;
}

/** What registering and revoking use: the core's filing, locks and writes, the book, the store. */
export interface PasskeyDeps {
  core: CoreSections & { file(draft: RequestDraft): Promise<ApprovalRequest> };
  book: PasskeyBook;
  store: Store;
  environment: ServiceEnvironment;
  policy: Pick<ApprovalPolicy, 'isApprover' | 'approversAndDelegates'>;
  signing: SigningSettings | undefined;
  now: () => Date;
  log?: EngineLog | undefined;
}

/** What the page sends once the browser registered a credential. */
export interface PasskeyFiling {
  /** The browser's registration response (WebAuthn JSON, as @simplewebauthn/browser returns it). */
  response: RegistrationResponseJSON;
  /** The challenge the page was given by registrationChallenge (one time, bound to the user). */
  expectedChallenge: string;
  /** What its owner calls it ("Bola's MacBook"). */
  name: string;
}

/** Filed (waiting for another approver), or refused with a sentence saying why (nothing filed). */
export type PasskeyFiled = { ok: true; request: RequestOf<'passkey'> } | { ok: false; problem: string };

/** The passkeys ended, or why none was (nothing changed). */
export type PasskeyRevocation = { ok: true; revoked: Passkey[] } | { ok: false; problem: string };

/** What the registration page hands the browser (navigator.credentials.create, as WebAuthn JSON). */
export type RegistrationOptions = PublicKeyCredentialCreationOptionsJSON;

/** Where a registration is executed and looked up: the book. */
export type PasskeyWrite = Pick<PasskeyBook, 'add' | 'byCredential' | 'barRegistration'>;

const challengeKey = (environment: ServiceEnvironment, challenge: string) =>
  `passkey-challenge:${environment}:${challenge}`;

/**
 * The options the registration page hands the browser for `user`: a fresh challenge kept one time in
 * the store and bound to `user`, user verification required, their passkeys already held excluded.
 */
export async function registrationChallenge(deps: PasskeyDeps, user: string): Promise<RegistrationOptions> {
  const signing = signingOf(deps);
  const held = await deps.book.heldBy(user);
  // The library is loaded with the first registration (docs/decisions/loaded-on-first-use.md).
  const { generateRegistrationOptions } = await import('@simplewebauthn/server');
  const options = await generateRegistrationOptions({
    rpName: 'cngn-desk',
    rpID: signing.rpId,
    userName: user,
    userID: Buffer.from(user, 'utf8'),
    attestationType: 'none',
    timeout: CHALLENGE_MS,
    excludeCredentials: held.map((p) => ({
      id: p.credentialId,
      ...(p.transports ? { transports: p.transports } : {}),
    })),
    authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
    supportedAlgorithmIDs: PASSKEY_ALGORITHMS,
  });
  await deps.store.set(challengeKey(deps.environment, options.challenge), { user }, CHALLENGE_MS);
  return options;
}

function signingOf(deps: Pick<PasskeyDeps, 'signing'>): SigningSettings {
  if (!deps.signing)
    throw new Error('passkeys need CNGN_SIGNING_URL (or PUBLIC_URL): set where browsers reach the bot');
  return deps.signing;
}

/**
 * Take a registration challenge: true once, for the user it was given to. Read and deleted under a
 * lock, since a store's delete does not say on every store whether this call removed it.
 */
function takeChallenge(deps: PasskeyDeps, challenge: string, user: string): Promise<boolean> {
  const key = challengeKey(deps.environment, challenge);
  return deps.store.withLock(key, async () => {
    const held = await deps.store.get<{ user: string }>(key);
    if (held?.user !== user) return false;
    await deps.store.delete(key);
    return true;
  });
}

/**
 * The page files what the browser registered: the response verified (origin, relying party, the
 * one-time challenge given to `user`, user verification), a credential already in the book or waiting
 * refused, then filed as "Register a passkey for @user", approved by another approver.
 */
export async function filePasskey(
  deps: PasskeyDeps,
  user: string,
  filing: PasskeyFiling,
): Promise<PasskeyFiled> {
  const refused = (problem: string): PasskeyFiled => {
    deps.log?.warn('passkey registration refused', { user, problem });
    return { ok: false, problem };
  };
  const { policy } = deps;
  if (!(await policy.approversAndDelegates()).includes(user)) {
    return refused('Only approvers and their delegates register passkeys here.');
  }
  const payload = await verifiedPayload(deps, user, filing);
  if (typeof payload === 'string') return refused(payload);
  return deps.store.withLock(`passkey-filing:${deps.environment}`, async () => {
    const problem = await duplicateProblem(deps, payload);
    if (problem) return refused(problem);
    try {
      const draft: RequestDraft = { kind: 'passkey', payload, display: {}, requester: user };
      return { ok: true, request: (await deps.core.file(draft)) as RequestOf<'passkey'> };
    } catch (error) {
      if (error instanceof InvalidDraftError)
        return refused(`The passkey could not be filed: ${error.message}.`);
      throw error;
    }
  });
}

/** The registration as a payload, verified, or the sentence saying why it cannot be. */
async function verifiedPayload(
  deps: PasskeyDeps,
  user: string,
  { response, expectedChallenge, name }: PasskeyFiling,
): Promise<RequestOf<'passkey'>['payload'] | string> {
  const signing = signingOf(deps);
  if (!(await takeChallenge(deps, expectedChallenge, user))) {
    return 'This registration has expired or was already used: open a new link with /cngn passkey.';
  }
  const { verifyRegistrationResponse } = await import('@simplewebauthn/server');
  let verified: VerifiedRegistrationResponse;
  try {
    verified = await verifyRegistrationResponse({
      response,
      expectedChallenge,
      expectedOrigin: signing.origin,
      expectedRPID: signing.rpId,
      requireUserVerification: true,
      supportedAlgorithmIDs: PASSKEY_ALGORITHMS,
    });
  } catch (error) {
    return `The browser's registration does not verify: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (!verified.verified) return "The browser's registration does not verify.";
  const { credential, aaguid } = verified.registrationInfo;
  // The library checks the algorithm only: a key on another curve would never count when signing.
  if (!passkeyKeyFields(credential.publicKey, await import('@simplewebauthn/server/helpers'))) {
    return "This passkey's key is not one the desk takes (Ed25519, P-256 or RSA, with SHA-256).";
  }
  return {
    user,
    name: name.trim(),
    credentialId: credential.id,
    publicKey: Buffer.from(credential.publicKey).toString('base64url'),
    counter: credential.counter,
    aaguid,
    ...(credential.transports?.length ? { transports: [...credential.transports] } : {}),
  };
}

/** A credential or a name already in the book, or waiting for approval, is not filed again. */
async function duplicateProblem(
  deps: PasskeyDeps,
  payload: RequestOf<'passkey'>['payload'],
): Promise<string | undefined> {
  if (await deps.book.byCredential(payload.credentialId)) return 'This passkey is already registered.';
  const waiting = (await deps.core.openRequests()).filter(
    (r): r is RequestOf<'passkey'> =>
      r.kind === 'passkey' && r.state === 'pending' && r.payload.user === payload.user,
  );
  const twin = waiting.find((r) => r.payload.credentialId === payload.credentialId);
  if (twin) return `This passkey is already waiting for approval as ${twin.id}.`;
  const named = (await deps.book.heldBy(payload.user)).some((p) => p.name === payload.name.trim());
  if (named || waiting.some((r) => r.payload.name === payload.name.trim())) {
    return `You already have a passkey named "${payload.name.trim()}": choose another name.`;
  }
  return undefined;
}

/** Was every approval of the registration made without a signature (a click)? */
function unsigned(request: ApprovalRequest): boolean {
  return request.approvals.some((approval) => (approval as { evidence?: unknown }).evidence === undefined);
}

/**
 * The execution of an approved registration: the passkey written into the book, counting from `at`.
 * A repeat finds its own write and writes nothing; a credential registered by another request, or a
 * registration barred after its write went unanswered, is refused (nothing written).
 */
export async function writePasskey(
  book: PasskeyWrite,
  request: RequestOf<'passkey'>,
  at: string,
): Promise<void> {
  const p = request.payload;
  const added = await book.add({
    credentialId: p.credentialId,
    user: p.user,
    name: p.name,
    publicKey: p.publicKey,
    counter: p.counter,
    ...(p.aaguid ? { aaguid: p.aaguid } : {}),
    ...(p.transports ? { transports: p.transports } : {}),
    addedAt: at,
    registration: {
      requestId: request.id,
      approvedBy: request.approvals.map((a) => a.user),
      ...(unsigned(request) ? { unsigned: 'first passkeys' as const } : {}),
    },
  });
  if (added || (await passkeyRecorded(book, request))) return;
  throw new CustodyCallError(
    'not-done',
    'this passkey was already registered by another request, or this registration was given up on; nothing was written',
  );
}

/** Whether the execution of this registration reached the book (a repeat of it writes nothing). */
async function passkeyRecorded(
  book: Pick<PasskeyBook, 'byCredential'>,
  request: ApprovalRequest,
): Promise<boolean> {
  if (request.kind !== 'passkey') return false;
  return (await book.byCredential(request.payload.credentialId))?.registration.requestId === request.id;
}

/**
 * End `owner`'s passkey named `name` at once: their own, or by another approver (a lost device).
 * Each is revoked in the book, then a step of its registration request (audited, shown on its message).
 */
export async function revokePasskey(
  deps: PasskeyDeps,
  by: string,
  owner: string,
  name: string,
): Promise<PasskeyRevocation> {
  if (by !== owner && !(await deps.policy.isApprover(by))) {
    return { ok: false, problem: "Only an approver can revoke someone else's passkey." };
  }
  // Compared as words (passkeyNameKey): an odd space in the filed name must not keep a lost device counting.
  const named = passkeyNameKey(name);
  const ending = (await deps.book.heldBy(owner)).filter((p) => passkeyNameKey(p.name) === named);
  if (ending.length === 0)
    return { ok: false, problem: `No passkey named "${name.trim()}" counts for <@${owner}>.` };
  const note = by === owner ? 'revoked by its owner' : 'revoked by another approver';
  const revoked: Passkey[] = [];
  for (const passkey of ending) {
    const at = deps.now();
    if (!(await deps.book.revoke(passkey.credentialId, by, at, note))) continue;
    revoked.push({ ...passkey, revoked: { at: at.toISOString(), by, note } });
    await recordRevocation(deps, passkey, by, note, at);
  }
  if (revoked.length === 0) return { ok: false, problem: 'That passkey was already revoked.' };
  return { ok: true, revoked };
}

/** The revocation as a step of the registration request: audited (on the signed chain), and its message updated. */
export async function recordRevocation(
  deps: { core: CoreSections; log?: EngineLog | undefined },
  passkey: Passkey,
  by: string,
  note: string,
  at: Date,
) {
  const { core } = deps;
  const next = await core.locked(passkey.registration.requestId, async (request) => {
    if (!request) return undefined;
    const step = {
      at: at.toISOString(),
      state: request.state,
      action: PASSKEY_REVOKED_ACTION,
      actor: by,
      note: `${note}: "${passkey.name}"`,
    };
    const saved = { ...request, history: [...request.history, step] } as ApprovalRequest;
    await core.write(request, saved);
    return saved;
  });
  if (next) await core.notify(next);
  else
    deps.log?.warn('passkey revoked, but its registration request was not found to record it on', {
      credentialId: passkey.credentialId,
    });
}

// The engine's passkey side (docs/passkeys.md), offered as `engine.passkeys`: registering a passkey is
// a request another approver approves (passkey-requests.ts); signing an approval takes a one-time
// challenge over the request's bytes (signing-challenge.ts). Nothing here reaches past the core's own
// checks: an approval still counts only through `engine.approve`.
import type { Passkey } from '../access/index.js';
import type { ApprovalCore, EngineOptions } from './approval-core.js';
import * as passkeys from './passkey-requests.js';
import type { SigningSide } from './signed-approvals.js';
import { type ChallengeResult, signingChallenge } from './signing-challenge.js';

/** The audit action of a refused passkey approval. */
const SIGNATURE_REFUSED = 'signature-refused';
/** The audit action of a sign link refused: expired, used, or its person barred or unchecked. */
const LINK_REFUSED = 'signing-link-refused';

export class EnginePasskeys {
  readonly #core: ApprovalCore;
  readonly #options: Pick<EngineOptions, 'store' | 'policy' | 'signing' | 'log'>;

  /** `background`: the engine's own tracking of work it does not wait for (so `engine.idle()` does). */
  constructor(
    core: ApprovalCore,
    options: Pick<EngineOptions, 'store' | 'policy' | 'signing' | 'log'>,
    background: (work: Promise<unknown>) => void,
  ) {
    this.#core = core;
    this.#options = options;
    // A refused signature goes on the record of its request (who, why); nothing else changes.
    core.signed.onEvent((event) => {
      if ('refused' in event) background(this.#recordRefusal(event.requestId, event.user, event.refused));
    });
  }

  #recordRefusal(requestId: string, user: string, reason: string): Promise<void> {
    return this.#record(requestId, user, SIGNATURE_REFUSED, `a passkey approval did not count: ${reason}`);
  }

  /** A sign link refused (expired, used, or its person barred) goes on the record of its request: who, and why. */
  recordLinkRefusal(requestId: string, user: string, note: string): Promise<void> {
    return this.#record(requestId, user, LINK_REFUSED, note);
  }

  async #record(requestId: string, user: string, action: string, note: string): Promise<void> {
    const core = this.#core;
    const request = await core.get(requestId);
    if (!request) return;
    await core.repo.auditLog.append(core.repo.environment, {
      at: core.now().toISOString(),
      requestId,
      kind: request.kind,
      action,
      actor: user,
      note,
    });
  }

  /** A signing page's one-time challenge for `user` approving round `round` (see signed-approvals.ts). */
  signingChallenge(id: string, user: string, round: number): Promise<ChallengeResult> {
    const core = this.#core;
    return signingChallenge({ core, policy: this.#options.policy, signed: core.signed }, id, user, round);
  }

  /** Which approvals must be signed, the passkey book (passkeys, nonces, links), and an observer of signatures. */
  signatures(): SigningSide {
    return this.#core.signed;
  }

  /** The registration page's options for `user`'s browser: a one-time challenge (passkey-requests.ts). */
  registrationChallenge(user: string): Promise<passkeys.RegistrationOptions> {
    return passkeys.registrationChallenge(this.#deps(), user);
  }

  /** The page files a verified registration, "Register a passkey for @user" (passkey-requests.ts). */
  filePasskey(user: string, filing: passkeys.PasskeyFiling): Promise<passkeys.PasskeyFiled> {
    return passkeys.filePasskey(this.#deps(), user, filing);
  }

  /** End `owner`'s passkey `name` at once: their own, or another approver's doing (passkey-requests.ts). */
  revokePasskey(by: string, owner: string, name: string): Promise<passkeys.PasskeyRevocation> {
    return passkeys.revokePasskey(this.#deps(), by, owner, name);
  }

  /** `user`'s passkeys that count now (name, added, last used), from the book. */
  passkeysOf(user: string): Promise<Passkey[]> {
    return this.#core.signed.book.heldBy(user);
  }

  #deps(): passkeys.PasskeyDeps {
    const core = this.#core;
    const { store, policy, signing, log } = this.#options;
    const environment = core.repo.environment;
    return { core, book: core.signed.book, store, environment, policy, signing, now: core.now, log };
  }
}

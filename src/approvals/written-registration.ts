// A passkey registration whose write to the book went unanswered, found written by the tracker. The
// executor writes a sealed record for a request only just after its own check of the approvals passed,
// and the record names the request: so the record found is the proof that the check passed, and the
// registration is completed if that record is the passkey the request filed (credential, key, owner)
// and the request still reads as filed (its filing seal). Its completion is the bot's entry on the
// signed chain, which the auditor's verifier takes the passkey's key and owner from. Otherwise the
// request was changed outside the bot after the write: its passkey is revoked by the bot, with the
// revocation a step of the request (on the chain, like any revocation), and it fails with the reason.
import type { Passkey } from '../access/index.js';
import type { CoreSections } from './core-sections.js';
import type { PasskeyBook } from './passkey-book.js';
import { recordRevocation } from './passkey-requests.js';
import type { SendChecks } from './signed-approvals.js';
import type { EngineLog, RequestOf } from './types.js';

export interface WrittenRegistrationDeps {
  core: CoreSections;
  passkeys: Pick<PasskeyBook, 'byCredential' | 'revoke'>;
  signed: Pick<SendChecks, 'filingSealProblem'>;
  now: () => Date;
  log?: EngineLog | undefined;
}

/** The reason a registration fails when the passkey written is not the one it filed. */
const WRITTEN_NOT_AS_FILED =
  'the passkey found written is not the one this registration filed: it was changed outside the bot';

/** Why a registration's passkey, found written, was revoked. */
const REVOKED_NOTE =
  'revoked by the bot: its registration was found written, but it was changed outside the bot';

/** Undefined when the passkey written is the one `request` filed, as filed; else the reason it fails. */
export async function writtenProblem(
  deps: WrittenRegistrationDeps,
  request: RequestOf<'passkey'>,
): Promise<string | undefined> {
  const sealBroken = deps.signed.filingSealProblem(request);
  if (sealBroken) return sealBroken;
  const written = await deps.passkeys.byCredential(request.payload.credentialId);
  return written && isFiled(written, request) ? undefined : WRITTEN_NOT_AS_FILED;
}

function isFiled(written: Passkey, request: RequestOf<'passkey'>): boolean {
  const { payload } = request;
  return (
    written.registration.requestId === request.id &&
    written.credentialId === payload.credentialId &&
    written.publicKey === payload.publicKey &&
    written.user === payload.user
  );
}

/**
 * End the passkey written for `request` at once, by `by`, the revocation a step of the request (on the
 * chain, so the verifier stops trusting it from there). Only the record this request wrote is ended.
 */
export async function revokeWritten(
  deps: WrittenRegistrationDeps,
  request: RequestOf<'passkey'>,
  by: string,
): Promise<void> {
  const written = await deps.passkeys.byCredential(request.payload.credentialId);
  const at = deps.now();
  if (written?.registration.requestId !== request.id) return;
  if (!(await deps.passkeys.revoke(written.credentialId, by, at, REVOKED_NOTE))) return;
  await recordRevocation(deps, written, by, REVOKED_NOTE, at);
}

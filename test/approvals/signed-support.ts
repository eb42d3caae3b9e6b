// What the signed-approval tests share: an engine where every approval needs a passkey signature
// (CNGN_SIGNED_APPROVALS=all), or one on a store whose writes the test controls; registered software
// authenticators; approvals signed as a signing page would, or written into the store by hand.
import { expect } from 'vitest';
import type { ApprovalEvidence } from '../../src/access/index.js';
import { parseSigningRule } from '../../src/access/passkeys.js';
import { approvalBytes, approvalChallenge } from '../../src/approvals/approval-digest.js';
import type { ApprovalEngine } from '../../src/approvals/approval-engine.js';
import { partsOf } from '../../src/approvals/engine-parts.js';
import type { ApprovalRequest } from '../../src/approvals/index.js';
import { ApprovalRepository } from '../../src/approvals/repository.js';
import { withApproval } from '../../src/approvals/state-machine.js';
import { createStore, type Store } from '../../src/store/index.js';
import { seenOf } from '../support/approve-as-seen.js';
import { SoftwareAuthenticator } from '../support/authenticator.js';
import {
  APPROVER_A,
  APPROVER_B,
  type EngineFixture,
  engineOn,
  engineTest,
  OUTSIDER,
  REQUESTER,
  withdrawalDraft,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { StoreControls } from '../support/store-controls.js';

export const place = { rpId: 'desk.example.com', origin: 'https://desk.example.com' };
export const signing = { rule: parseSigningRule('all'), ...place };
export const test = engineTest
  .extend('engineOptions', { engine: { signing } })
  /** An engine on a memory store whose writes the test controls, its first network, and Bola's passkey. */
  .extend('controlled', async ({ startEngine, defer }) => async (tiers?: string) => {
    const controls = new StoreControls();
    const store = await createStore('memory://');
    defer(() => store.close());
    const { fx, networkId } = await engineOn(startEngine, {
      store: controls.wrap(store),
      ...(tiers ? { tiers } : {}),
      engine: { signing },
    });
    const device = await deviceFor(fx.engine, APPROVER_B);
    return { controls, fx, networkId, device };
  });

/** A request that failed with `reason` before anything was sent, as `expectUnsent` expects it. */
export const failedBeforeSending = (reason: string) => ({
  state: 'failed',
  outcome: { reason, nothingSent: true },
});

/** A registered passkey for `user`, in the engine's book. */
export async function deviceFor(engine: ApprovalEngine, user: string): Promise<SoftwareAuthenticator> {
  const device = new SoftwareAuthenticator({ user, ...place });
  await engine.passkeys.signatures().book.add(device.passkey());
  return device;
}

/** A withdrawal filed on `networkId` whose tier asks two approvals for it. */
export async function fileNeedingTwo(engine: ApprovalEngine, networkId: string): Promise<ApprovalRequest> {
  const request = await fileDraft(engine, withdrawalDraft(networkId, '1500000'));
  expect(request.requiredApprovals).toBe(2);
  return request;
}

/** A withdrawal filed on `networkId` by the requester, whose tier asks one approval for it. */
export async function fileNeedingOne(engine: ApprovalEngine, networkId: string): Promise<ApprovalRequest> {
  const request = await fileDraft(engine, withdrawalDraft(networkId, '5000'));
  expect(request).toMatchObject({ requester: REQUESTER, requiredApprovals: 1 });
  return request;
}

/** A withdrawal that needs two approvals, filed on `networkId`, and passkeys for A and B. */
export async function filedForTwo(fx: { engine: ApprovalEngine }, networkId: string) {
  const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '1500000'));
  const deviceA = await deviceFor(fx.engine, APPROVER_A);
  const deviceB = await deviceFor(fx.engine, APPROVER_B);
  return { request, deviceA, deviceB };
}

/**
 * A delegates to the outsider for three days, approved by B and the requester signing (every request
 * needs two approvals); passkeys for A, B, the requester and the outsider.
 */
export async function delegateForA(engine: ApprovalEngine) {
  const deviceA = await deviceFor(engine, APPROVER_A);
  const deviceB = await deviceFor(engine, APPROVER_B);
  const deviceO = await deviceFor(engine, OUTSIDER);
  const deviceR = await deviceFor(engine, REQUESTER);
  const until = new Date(Date.now() + 3 * 86_400_000);
  const delegation = await engine.fileDelegation(APPROVER_A, OUTSIDER, until);
  for (const [user, device] of [
    [APPROVER_B, deviceB],
    [REQUESTER, deviceR],
  ] as const) {
    const { result } = await signAndApprove(engine, delegation.id, user, device);
    expect(result).toMatchObject({ ok: true });
  }
  await engine.idle();
  expect((await engine.get(delegation.id))?.state).toBe('completed');
  return { deviceA, deviceB, deviceO };
}

export type Misbehaviour = Parameters<SoftwareAuthenticator['assert']>[2];

/** `user` signs `request`'s round with `device` as a signing page would. */
export async function signFor(
  engine: ApprovalEngine,
  request: ApprovalRequest,
  user: string,
  device: SoftwareAuthenticator,
  bad: Misbehaviour = {},
) {
  const made = await engine.passkeys.signingChallenge(request.id, user, request.round);
  if (!made.ok || !('challenge' in made)) throw new Error(`no challenge: ${JSON.stringify(made)}`);
  return device.assert(made.challenge, made.nonce, bad);
}

/** `user` signs the current round of request `id` with `device` as a signing page would, then approves. */
export async function signAndApprove(
  engine: ApprovalEngine,
  id: string,
  user: string,
  device: SoftwareAuthenticator,
  bad: Misbehaviour = {},
) {
  const request = await engine.get(id);
  if (!request) throw new Error('no request');
  const evidence = await signFor(engine, request, user, device, bad);
  return { evidence, result: await engine.approve(id, user, { ...seenOf(request), evidence }) };
}

/** `user` signs request `id` with `device` and approves, and the engine answers as `expected`. */
export async function expectSigned(
  engine: ApprovalEngine,
  id: string,
  user: string,
  device: SoftwareAuthenticator,
  expected: object = { ok: true },
) {
  const signed = await signAndApprove(engine, id, user, device);
  expect(signed.result).toMatchObject(expected);
  return signed;
}

/** Request `id` is as `expected` says, and no withdrawal reached the service: what it is. */
export async function expectUnsent(
  fx: Pick<EngineFixture, 'engine' | 'sandbox'>,
  id: string,
  expected: object,
): Promise<ApprovalRequest | undefined> {
  const request = await fx.engine.get(id);
  expect(request).toMatchObject(expected);
  expect(fx.sandbox.count('POST', '/v1/api/withdraw')).toBe(0);
  return request;
}

/** The request without its seal: as filed before requests were sealed, or as a store writer leaves it. */
export const unsealed = ({ sealed: _seal, ...stored }: ApprovalRequest) => stored as ApprovalRequest;

/**
 * Someone with write access to the store rewrites the request as `change` says; `audited: false`,
 * without an entry in the audit chain (a writer who does not hold the audit signing key).
 */
export async function rewrite(
  store: Store,
  id: string,
  change: (stored: ApprovalRequest) => ApprovalRequest,
  options: { audited?: boolean } = {},
): Promise<void> {
  const repo = new ApprovalRepository(store, 'sandbox');
  const stored = await repo.get(id);
  if (!stored) throw new Error('not stored');
  expect(await repo.saveIf(stored, change(stored), options.audited ?? true)).toBe(true);
}

/**
 * An approval by `user` (with `evidence`, and in `onBehalfOf`'s place, if any) written into the store by hand, as someone with
 * write access could, then the executor run on the request: what was written.
 */
export async function writeApprovalThenExecute(
  fx: { engine: ApprovalEngine; store: Store },
  id: string,
  user: string,
  evidence?: ApprovalEvidence,
  onBehalfOf?: string,
): Promise<ApprovalRequest> {
  const repo = new ApprovalRepository(fx.store, 'sandbox');
  const stored = await repo.get(id);
  if (!stored) throw new Error('not stored');
  const written = withApproval(stored, user, new Date(), { evidence, onBehalfOf });
  expect(await repo.saveIf(stored, written)).toBe(true);
  await partsOf(fx.engine).executor.execute(id);
  await fx.engine.idle();
  return written;
}

/**
 * `user`'s assertion with `device` over `request`'s bytes and a nonce the book issued, made by hand:
 * no signing page would give `user` a challenge for it.
 */
export async function assertedByHand(
  engine: ApprovalEngine,
  request: ApprovalRequest,
  user: string,
  device: SoftwareAuthenticator,
) {
  const book = engine.passkeys.signatures().book;
  const nonce = await book.issueNonce({ requestId: request.id, user, round: request.round });
  return device.assert(approvalChallenge(approvalBytes(request), nonce), nonce);
}

import { join } from 'node:path';
import { expect } from 'vitest';
import type { ApprovalEngine } from '../../src/approvals/approval-engine.js';
import type { AuditEntry } from '../../src/approvals/types.js';
import {
  approverArchiveTest,
  archiveForFile,
  copyArchive,
  recordedPolicy,
  registerPasskey,
  signedApproval,
  verify,
} from '../support/approver-archive.js';
import type { AuthenticatorOptions, SoftwareAuthenticator } from '../support/authenticator.js';
import { redemptionDraft } from '../support/drafts.js';
import {
  APPROVER_A,
  APPROVER_B,
  type EngineFixture,
  OUTSIDER,
  REQUESTER,
  withdrawalDraft,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';

const POLICY = recordedPolicy({ approvers: { users: [APPROVER_A, APPROVER_B, REQUESTER] } });

/**
 * approverArchiveTest, and the archives most tests edit, each made once for the file on an engine of
 * its own and copied into the test's folder: `signed` (signedArchive, with a copy of A's device, whose
 * counter is then the test's own), `twoApprovals` (twoApprovalArchive), `delegated` (delegatedArchive);
 * each with `signer`, the key that signed it.
 */
export const test = approverArchiveTest(POLICY)
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('signedOnce', { scope: 'file' }, async ({}, { onCleanup }) =>
    archiveForFile(POLICY, (rig) => signedArchive(rig.fx.engine, rig.auditDir, rig.networkId), onCleanup),
  )
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('twoApprovalsOnce', { scope: 'file' }, async ({}, { onCleanup }) =>
    archiveForFile(POLICY, (rig) => twoApprovalArchive(rig.fx, rig.auditDir, rig.networkId), onCleanup),
  )
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('delegatedOnce', { scope: 'file' }, async ({}, { onCleanup }) =>
    archiveForFile(POLICY, (rig) => delegatedArchive(rig.fx.engine, rig.auditDir, rig.networkId), onCleanup),
  )
  .extend('signed', async ({ signedOnce, auditDir }) => ({
    ...signedOnce,
    folder: copyArchive(signedOnce.folder, join(auditDir, 'archive', 'sandbox')),
    deviceA: signedOnce.deviceA.copy(),
  }))
  .extend('twoApprovals', async ({ twoApprovalsOnce, auditDir }) => ({
    ...twoApprovalsOnce,
    folder: copyArchive(twoApprovalsOnce.folder, join(auditDir, 'archive', 'sandbox')),
  }))
  .extend('delegated', async ({ delegatedOnce, auditDir }) => ({
    ...delegatedOnce,
    folder: copyArchive(delegatedOnce.folder, join(auditDir, 'archive', 'sandbox')),
  }));

/** The engine's audit archived: the environment's folder (one segment), and the seq of `id`'s `sent` entry. */
async function archived(
  engine: ApprovalEngine,
  auditDir: string,
  id: string,
): Promise<{ folder: string; sentSeq: number }> {
  expect(await engine.archiveAudit('test')).toMatchObject({ written: true });
  const entries = await engine.auditRange(undefined, undefined);
  return {
    folder: join(auditDir, 'archive', 'sandbox'),
    sentSeq: entries.find((e) => e.requestId === id && e.state === 'sent')?.seq ?? -1,
  };
}

interface SignedArchive {
  /** The environment's folder (one segment). */
  folder: string;
  /** The withdrawal A signed, and A's device. */
  withdrawal: string;
  /** The seq of the withdrawal's `sent` entry. */
  sentSeq: number;
  deviceA: SoftwareAuthenticator;
}

/**
 * A's passkey (clicked by B, who holds none; on `curveA`, P-256 by default), B's signed by A, the
 * requester's signed by B, a withdrawal signed by A and sent; then archived.
 */
export async function signedArchive(
  engine: ApprovalEngine,
  auditDir: string,
  networkId: string,
  curveA?: AuthenticatorOptions['curve'],
): Promise<SignedArchive> {
  await engine.start();
  const deviceA = await registerPasskey(engine, APPROVER_A, APPROVER_B, undefined, curveA);
  const deviceB = await registerPasskey(engine, APPROVER_B, APPROVER_A, deviceA);
  await registerPasskey(engine, REQUESTER, APPROVER_B, deviceB);
  const request = await fileDraft(engine, withdrawalDraft(networkId, '5000'));
  expect((await signedApproval(engine, request.id, APPROVER_A, deviceA)).ok).toBe(true);
  await engine.idle();
  expect((await engine.get(request.id))?.state).toBe('sent');
  return { ...(await archived(engine, auditDir, request.id)), withdrawal: request.id, deviceA };
}

/** Started: B's passkey (clicked by A, who holds none), then A's signed by B. */
async function twoPasskeys(engine: ApprovalEngine) {
  await engine.start();
  const deviceB = await registerPasskey(engine, APPROVER_B, APPROVER_A);
  const deviceA = await registerPasskey(engine, APPROVER_A, APPROVER_B, deviceB);
  return { deviceA, deviceB };
}

/**
 * B's passkey (clicked by A, who holds none), A's signed by B; a withdrawal needing two approvals,
 * signed by A (its `approval-added` step), then a minute later by B (`approved`), and sent; then
 * archived. A's passkey signs nothing else.
 */
async function twoApprovalArchive(
  fx: EngineFixture,
  auditDir: string,
  networkId: string,
): Promise<Omit<SignedArchive, 'deviceA'>> {
  const { engine } = fx;
  const { deviceA, deviceB } = await twoPasskeys(engine);
  // Above the one-approval tier (₦1,000,000), within the sandbox's balance.
  const request = await fileDraft(engine, withdrawalDraft(networkId, '1200000'));
  expect(request.requiredApprovals).toBe(2);
  expect((await signedApproval(engine, request.id, APPROVER_A, deviceA)).ok).toBe(true);
  fx.clock.advance(60_000);
  expect((await signedApproval(engine, request.id, APPROVER_B, deviceB)).ok).toBe(true);
  await engine.idle();
  expect((await engine.get(request.id))?.state).toBe('sent');
  return { ...(await archived(engine, auditDir, request.id)), withdrawal: request.id };
}

/**
 * As twoPasskeys; a redemption needing two approvals, signed by A, then sent back by B's final
 * approval (the account's name changed meanwhile). A minute later A registers a new passkey (signed by
 * B), signs the new round with it, and B's approval sends it; then archived.
 */
export async function sentBackArchive(
  fx: EngineFixture,
  auditDir: string,
): Promise<Omit<SignedArchive, 'deviceA' | 'sentSeq'>> {
  const { engine, sandbox } = fx;
  const { deviceA, deviceB } = await twoPasskeys(engine);
  sandbox.setAccountName('0123456789', 'ADA OBI');
  // Above the one-approval tier (₦1,000,000), within the sandbox's balance.
  const request = await fileDraft(engine, redemptionDraft(REQUESTER, 'ADA OBI', '1200000'));
  expect(request.requiredApprovals).toBe(2);
  expect((await signedApproval(engine, request.id, APPROVER_A, deviceA)).ok).toBe(true);
  sandbox.setAccountName('0123456789', 'ADA OBI AND SONS');
  expect(await signedApproval(engine, request.id, APPROVER_B, deviceB)).toMatchObject({
    ok: true,
    request: { state: 'pending', round: request.round + 1, approvals: [] },
  });
  fx.clock.advance(60_000);
  const newA = await registerPasskey(engine, APPROVER_A, APPROVER_B, deviceB);
  expect((await signedApproval(engine, request.id, APPROVER_A, newA)).ok).toBe(true);
  expect((await signedApproval(engine, request.id, APPROVER_B, deviceB)).ok).toBe(true);
  await engine.idle();
  expect((await engine.get(request.id))?.state).toBe('sent');
  return { folder: (await archived(engine, auditDir, request.id)).folder, withdrawal: request.id };
}

interface DelegatedArchive {
  folder: string;
  /** The withdrawal the outsider signed in A's place. */
  withdrawal: string;
  sentSeq: number;
  /** A's own assertion over the withdrawal's round, made but never given. */
  ownEvidence: Assertion;
}

/**
 * A (passkey clicked by B) delegates to the outsider, approved by B signing; the outsider's passkey,
 * signed by B; a withdrawal the outsider signs in A's place, sent. A also signs it on the side, as
 * the signing page would have let them, the assertion kept out of the engine. Then archived.
 */
async function delegatedArchive(
  engine: ApprovalEngine,
  auditDir: string,
  networkId: string,
): Promise<DelegatedArchive> {
  await engine.start();
  const deviceA = await registerPasskey(engine, APPROVER_A, APPROVER_B);
  const deviceB = await registerPasskey(engine, APPROVER_B, APPROVER_A, deviceA);
  const until = new Date(Date.now() + 3 * 86_400_000);
  const delegation = await engine.fileDelegation(APPROVER_A, OUTSIDER, until);
  expect((await signedApproval(engine, delegation.id, APPROVER_B, deviceB)).ok).toBe(true);
  await engine.idle();
  expect((await engine.get(delegation.id))?.state).toBe('completed');
  const deviceO = await registerPasskey(engine, OUTSIDER, APPROVER_B, deviceB);
  const request = await fileDraft(engine, withdrawalDraft(networkId, '5000'));
  const made = await engine.passkeys.signingChallenge(request.id, APPROVER_A, request.round);
  if (!made.ok || !('challenge' in made)) throw new Error(`no challenge: ${JSON.stringify(made)}`);
  const ownEvidence = { user: APPROVER_A, ...deviceA.assert(made.challenge, made.nonce) };
  expect((await signedApproval(engine, request.id, OUTSIDER, deviceO)).ok).toBe(true);
  await engine.idle();
  const sent = await engine.get(request.id);
  expect(sent).toMatchObject({ state: 'sent', approvals: [{ user: OUTSIDER, onBehalfOf: APPROVER_A }] });
  return { ...(await archived(engine, auditDir, request.id)), withdrawal: request.id, ownEvidence };
}

export const problems = (lines: string[]) => lines.filter((line) => line.startsWith('PROBLEM '));

/** The verifier passes the archive (with `standalone`, the script too): no problem, exit 0; its lines. */
export function verifiesCleanly(folder: string, key: string, options?: { standalone: boolean }): string[] {
  const { status, lines } = verify(folder, key, options);
  expect(problems(lines)).toEqual([]);
  expect(status).toBe(0);
  return lines;
}

/** The verifier fails the archive (with `standalone`, the script too): exit 1, exactly the `expected` problems. */
export function failsWith(
  folder: string,
  key: string,
  expected: unknown[],
  options?: { standalone: boolean },
): void {
  const { status, lines } = verify(folder, key, options);
  expect(problems(lines)).toEqual(expected);
  expect(status).toBe(1);
}

/** `user`'s completed passkey registration among `entries`, if any. */
export const registrationOf = (entries: AuditEntry[], user: string) =>
  entries.find((e) => e.kind === 'passkey' && e.state === 'completed' && e.figures?.payload.user === user);

/** Each of the request's entries changed by `change` (its signatures are on every step after approval). */
export const onRequest =
  (id: string, change: (entry: AuditEntry) => AuditEntry) =>
  (entries: AuditEntry[]): AuditEntry[] =>
    entries.map((entry) => (entry.requestId === id ? change(entry) : entry));

/**
 * A store edit: `user`'s passkey registration's `steps` (its `executing` and `completed` ones by
 * default) moved to a second after their `approval-added` step on request `id`, and so before the step
 * that sent it.
 */
export const registeredAfterApproving =
  (id: string, user: string, steps: readonly string[] = ['executing', 'completed']) =>
  (entries: AuditEntry[]) => {
    const registration = registrationOf(entries, user)?.requestId;
    const moved = entries.filter((e) => e.requestId === registration && steps.includes(e.action));
    expect(moved.map((e) => e.action)).toEqual(steps);
    const rest = entries.filter((e) => !moved.includes(e));
    const approval = rest.findIndex(
      (e) => e.requestId === id && e.action === 'approval-added' && e.actor === user,
    );
    const at = new Date(Date.parse((rest[approval] as AuditEntry).at) + 1_000).toISOString();
    const later = moved.map((e) => ({ ...e, at }));
    return [...rest.slice(0, approval + 1), ...later, ...rest.slice(approval + 1)];
  };

/**
 * A store edit: `user`'s `approval-added` step on request `id` written again, at the time of (and just
 * before) the `approved` step that completed its approvals.
 */
export const approvedAgain = (id: string, user: string) => (entries: AuditEntry[]) => {
  const step = entries.find((e) => e.requestId === id && e.action === 'approval-added' && e.actor === user);
  const last = entries.findIndex((e) => e.requestId === id && e.action === 'approved');
  const again = { ...(step as AuditEntry), at: (entries[last] as AuditEntry).at };
  return [...entries.slice(0, last), again, ...entries.slice(last)];
};

/** A store edit: request `id` filed by `user`, as its `filed` entry then says. */
export const filedBy = (id: string, user: string) =>
  onRequest(id, (entry) => (entry.action === 'filed' ? { ...entry, actor: user } : entry));

export type Assertion = NonNullable<NonNullable<AuditEntry['figures']>['signatures']>[number];

export function withSignatures(entry: AuditEntry, change: (s: Assertion) => Partial<Assertion>) {
  const signatures = entry.figures?.signatures;
  if (!entry.figures || !signatures) return entry;
  return {
    ...entry,
    figures: { ...entry.figures, signatures: signatures.map((s) => ({ ...s, ...change(s) })) },
  } as AuditEntry;
}

/** The entry as if its approvals had been clicks: its signatures (and the round they were over) gone. */
export function unsigned(entry: AuditEntry): AuditEntry {
  if (!entry.figures) return entry;
  const { signatures: _gone, round: _round, ...figures } = entry.figures;
  return { ...entry, figures };
}

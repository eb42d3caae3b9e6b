// The audit verifier's check of passkey-signed approvals, on an archive the real engine wrote:
// passkeys registered through its requests (the first with a click, the next ones signed), a
// withdrawal approved with a real P-256 assertion from the software authenticator and sent. It passes
// as written, and fails (naming the request and why) when one byte of an assertion is changed, when an
// approval the rule needed signed has no signature, when the passkey was revoked before the approval or
// registered only after it (the first of two approvals: its own step's time, not the sending's; of two
// steps by one approver, the first's), when an approval is counted twice (a copy, an approver's own
// beside their delegate's, or a second assertion by one passkey) or is the requester's own or their
// delegate's in their place, when fewer people approved than the request needed when filed, or when
// the figures sent differ from those signed; a request two approvers signed, one a delegate signed in
// an approver's place, one approved again after it was sent back with a passkey registered meanwhile,
// and one signed with a passkey between its registration's `executing` and `completed` steps, pass. The
// edits are those of someone who changed the store before the bot archived it: the chain is rebuilt
// and signed with the bot's own key, so only the signatures can tell. The verifier runs in TypeScript;
// the bundled script (node audit-verify.mjs, as an auditor runs it) must say exactly the same of the
// first passing archive and of the first failing one (a changed signature byte). The OpenSSL
// walk-through in docs/audit-verify.md is run here as written, for a P-256 and for an Ed25519 passkey.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect } from 'vitest';
import { needsSignature } from '../../src/access/index.js';
import type { ApprovalEngine } from '../../src/approvals/approval-engine.js';
import type { AuditEntry } from '../../src/approvals/types.js';
import { signedChallenge } from '../../src/audit/approval-bytes.js';
import { ENTRIES_FILE } from '../../src/audit/segments.js';
import { entrySignedBytes, policyNeeds, signingPolicyOf } from '../../src/audit/signature-checks.js';
import { loadConfig } from '../../src/config.js';
import { policyOf } from '../../src/wiring/policy-inputs.js';
import {
  approverArchiveTest,
  archiveForFile,
  copyArchive,
  recordedPolicy,
  registerPasskey,
  signedApproval,
  verify,
} from '../support/approver-archive.js';
import { flipByte, rewriteSegment } from '../support/audit-archive.js';
import type { AuthenticatorOptions, SoftwareAuthenticator } from '../support/authenticator.js';
import { SLACK_ENV } from '../support/config-env.js';
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

const SCRIPT = fileURLToPath(new URL('../../scripts/audit-verify.mjs', import.meta.url));
const DOC = fileURLToPath(new URL('../../docs/audit-verify.md', import.meta.url));
const place = { rpId: 'desk.example.com', origin: 'https://desk.example.com' };

const POLICY = recordedPolicy({ approvers: { users: [APPROVER_A, APPROVER_B, REQUESTER] } });

/**
 * approverArchiveTest, and the archives most tests edit, each made once for the file on an engine of
 * its own and copied into the test's folder: `signed` (signedArchive, with a copy of A's device, whose
 * counter is then the test's own), `twoApprovals` (twoApprovalArchive), `delegated` (delegatedArchive);
 * each with `signer`, the key that signed it.
 */
const test = approverArchiveTest(POLICY)
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
async function signedArchive(
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
async function sentBackArchive(
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

const problems = (lines: string[]) => lines.filter((line) => line.startsWith('PROBLEM '));

/** The verifier passes the archive (with `standalone`, the script too): no problem, exit 0; its lines. */
function verifiesCleanly(folder: string, key: string, options?: { standalone: boolean }): string[] {
  const { status, lines } = verify(folder, key, options);
  expect(problems(lines)).toEqual([]);
  expect(status).toBe(0);
  return lines;
}

/** Each of the request's entries changed by `change` (its signatures are on every step after approval). */
const onRequest =
  (id: string, change: (entry: AuditEntry) => AuditEntry) =>
  (entries: AuditEntry[]): AuditEntry[] =>
    entries.map((entry) => (entry.requestId === id ? change(entry) : entry));

/**
 * A store edit: `user`'s passkey registration's `steps` (its `executing` and `completed` ones by
 * default) moved to a second after their `approval-added` step on request `id`, and so before the step
 * that sent it.
 */
const registeredAfterApproving =
  (id: string, user: string, steps: readonly string[] = ['executing', 'completed']) =>
  (entries: AuditEntry[]) => {
    const registration = entries.find(
      (e) => e.kind === 'passkey' && e.state === 'completed' && e.figures?.payload.user === user,
    )?.requestId;
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
const approvedAgain = (id: string, user: string) => (entries: AuditEntry[]) => {
  const step = entries.find((e) => e.requestId === id && e.action === 'approval-added' && e.actor === user);
  const last = entries.findIndex((e) => e.requestId === id && e.action === 'approved');
  const again = { ...(step as AuditEntry), at: (entries[last] as AuditEntry).at };
  return [...entries.slice(0, last), again, ...entries.slice(last)];
};

/** A store edit: request `id` filed by `user`, as its `filed` entry then says. */
const filedBy = (id: string, user: string) =>
  onRequest(id, (entry) => (entry.action === 'filed' ? { ...entry, actor: user } : entry));

type Assertion = NonNullable<NonNullable<AuditEntry['figures']>['signatures']>[number];

function withSignatures(entry: AuditEntry, change: (s: Assertion) => Partial<Assertion>) {
  const signatures = entry.figures?.signatures;
  if (!entry.figures || !signatures) return entry;
  return {
    ...entry,
    figures: { ...entry.figures, signatures: signatures.map((s) => ({ ...s, ...change(s) })) },
  } as AuditEntry;
}

/** The entry as if its approvals had been clicks: its signatures (and the round they were over) gone. */
function unsigned(entry: AuditEntry): AuditEntry {
  if (!entry.figures) return entry;
  const { signatures: _gone, round: _round, ...figures } = entry.figures;
  return { ...entry, figures };
}

describe('the verifier’s check of passkey-signed approvals', () => {
  test('passes an archive of signed approvals made through the engine, the standalone script saying the same', async ({
    signed,
  }) => {
    const { folder, signer } = signed;
    const lines = verifiesCleanly(folder, signer.publicKey, { standalone: true });
    expect(lines).toContain('sandbox: 3 passkey signatures checked on 3 requests sent with signed approvals');
  });

  test('fails when one byte of the signature or of the authenticator data is changed, the standalone script saying the same', async ({
    signed,
  }) => {
    const { folder, withdrawal, signer } = signed;
    const why = `${APPROVER_A}'s signature does not verify with the public key its passkey was registered with`;
    rewriteSegment(
      folder,
      signer,
      onRequest(withdrawal, (e) => withSignatures(e, (s) => ({ signature: flipByte(s.signature, 5) }))),
    );
    let result = verify(folder, signer.publicKey, { standalone: true });
    expect(problems(result.lines)).toEqual([
      expect.stringMatching(
        new RegExp(`^PROBLEM sandbox/\\S+: request ${withdrawal} \\(withdraw, sent at seq \\d+\\): ${why}$`),
      ),
    ]);
    expect(result.status).toBe(1);
    // Back to the signature as made; now the authenticator data's counter byte.
    rewriteSegment(
      folder,
      signer,
      onRequest(withdrawal, (e) => withSignatures(e, (s) => ({ signature: flipByte(s.signature, 5) }))),
    );
    expect(verify(folder, signer.publicKey).status).toBe(0);
    rewriteSegment(
      folder,
      signer,
      onRequest(withdrawal, (e) =>
        withSignatures(e, (s) => ({ authenticatorData: flipByte(s.authenticatorData) })),
      ),
    );
    result = verify(folder, signer.publicKey);
    expect(problems(result.lines)).toEqual([
      expect.stringContaining(`request ${withdrawal} (withdraw, sent at seq`),
    ]);
    expect(problems(result.lines)[0]).toContain(why);
    expect(result.status).toBe(1);
  });

  test('fails a byte changed in the archive file itself, on the signature as well as the hashes', async ({
    signed,
  }) => {
    const { folder, withdrawal, signer } = signed;
    const [name] = readdirSync(folder).filter((n) => !n.startsWith('.'));
    const path = join(folder, name ?? '', ENTRIES_FILE);
    const lines = readFileSync(path, 'utf8').split('\n');
    const changed = lines.map((line) => {
      const entry = line ? (JSON.parse(line) as AuditEntry) : undefined;
      if (entry?.requestId !== withdrawal || entry.state !== 'sent') return line;
      const signature = entry.figures?.signatures?.[0]?.signature ?? '';
      return line.replace(signature, flipByte(signature, 5));
    });
    rmSync(path);
    writeFileSync(path, changed.join('\n'));
    const result = verify(folder, signer.publicKey);
    expect(problems(result.lines)).toContainEqual(expect.stringContaining(`request ${withdrawal} (withdraw`));
    expect(problems(result.lines)).toContainEqual(expect.stringContaining('no longer matches its hash'));
    expect(result.status).toBe(1);
  });

  test('fails when an approval the rule needed signed has none (a store edit)', async ({ signed }) => {
    const { folder, withdrawal, sentSeq, signer } = signed;
    rewriteSegment(
      folder,
      signer,
      onRequest(withdrawal, (entry) => {
        if (!entry.figures) return entry;
        const { signatures: _gone, round: _round, ...figures } = entry.figures;
        return { ...entry, figures };
      }),
    );
    const { status, lines } = verify(folder, signer.publicKey);
    expect(problems(lines)).toEqual([
      expect.stringContaining(
        `request ${withdrawal} (withdraw, sent at seq ${sentSeq}): ${APPROVER_A}'s approval has no passkey signature, though the signing rule then needed one`,
      ),
    ]);
    expect(status).toBe(1);
  });

  test('fails when the passkey was revoked before the approval', async ({ signed }) => {
    const { folder, withdrawal, deviceA, signer } = signed;
    rewriteSegment(folder, signer, (entries) => {
      const registration = entries.find(
        (e) =>
          e.kind === 'passkey' &&
          e.state === 'completed' &&
          e.figures?.payload.credentialId === deviceA.credentialId,
      );
      const filed = entries.findIndex((e) => e.requestId === withdrawal);
      const before = entries[filed] as AuditEntry;
      const revoked: AuditEntry = {
        ...(registration as AuditEntry),
        at: before.at,
        action: 'passkey-revoked',
        actor: APPROVER_A,
        note: 'revoked by its owner',
      };
      return [...entries.slice(0, filed), revoked, ...entries.slice(filed)];
    });
    const { status, lines } = verify(folder, signer.publicKey);
    expect(problems(lines)).toEqual([
      expect.stringMatching(
        new RegExp(
          `request ${withdrawal} \\(withdraw, sent at seq \\d+\\): ${APPROVER_A}'s signature is by passkey \\S+, revoked at \\S+, before the request was sent$`,
        ),
      ),
    ]);
    expect(status).toBe(1);
  });

  test('passes a request two approvers signed, and fails it once the first one’s passkey was registered after their approval (a store edit)', async ({
    twoApprovals,
  }) => {
    const { folder, withdrawal, sentSeq, signer } = twoApprovals;
    let result = verify(folder, signer.publicKey);
    expect(problems(result.lines)).toEqual([]);
    expect(result.lines).toContain(
      'sandbox: 3 passkey signatures checked on 2 requests sent with signed approvals',
    );
    expect(result.status).toBe(0);
    // Registered (marked executing) after A's approval but before B's sent the request: the approval's own time counts.
    rewriteSegment(folder, signer, registeredAfterApproving(withdrawal, APPROVER_A));
    result = verify(folder, signer.publicKey);
    expect(problems(result.lines)).toEqual([
      expect.stringMatching(
        new RegExp(
          `request ${withdrawal} \\(withdraw, sent at seq ${sentSeq}\\): ${APPROVER_A}'s signature is by passkey \\S+, registered only after the approval$`,
        ),
      ),
    ]);
    expect(result.status).toBe(1);
  });

  test('passes an approval signed with a passkey whose registration was marked executing before it and completed after (a store edit)', async ({
    twoApprovals,
  }) => {
    const { folder, withdrawal, signer } = twoApprovals;
    // The book holds the passkey from the registration's `executing` step; a crash before its
    // `completed` step leaves A's approval, signed with it, in between.
    rewriteSegment(folder, signer, registeredAfterApproving(withdrawal, APPROVER_A, ['completed']));
    verifiesCleanly(folder, signer.publicKey);
  });

  test('judges an approver with two approval steps in one round by the first (a store edit)', async ({
    twoApprovals,
  }) => {
    const { folder, withdrawal, sentSeq, signer } = twoApprovals;
    // A's passkey registered after A's approval, and A's step written again after the registration.
    rewriteSegment(folder, signer, registeredAfterApproving(withdrawal, APPROVER_A));
    rewriteSegment(folder, signer, approvedAgain(withdrawal, APPROVER_A));
    const { status, lines } = verify(folder, signer.publicKey);
    expect(problems(lines)).toEqual([
      expect.stringMatching(
        new RegExp(
          `request ${withdrawal} \\(withdraw, sent at seq ${sentSeq + 1}\\): ${APPROVER_A}'s signature is by passkey \\S+, registered only after the approval$`,
        ),
      ),
    ]);
    expect(status).toBe(1);
  });

  test('passes a request sent back and approved again with a passkey registered in between', async ({
    fx,
    auditDir,
    signer,
  }) => {
    const { folder } = await sentBackArchive(fx, auditDir);
    const lines = verifiesCleanly(folder, signer.publicKey);
    expect(lines).toContain('sandbox: 4 passkey signatures checked on 3 requests sent with signed approvals');
  });

  test('fails a clicked registration once two approvers had held passkeys, revoked since or not (a store edit)', async ({
    signed,
  }) => {
    const { folder, signer } = signed;
    let id = '';
    rewriteSegment(folder, signer, (entries) => {
      const registrationOf = (user: string) =>
        entries.find(
          (e) => e.kind === 'passkey' && e.state === 'completed' && e.figures?.payload.user === user,
        );
      id = registrationOf(REQUESTER)?.requestId ?? '';
      const filed = entries.findIndex((e) => e.requestId === id);
      // B's passkey revoked before the requester's registration: only A holds one, but two had.
      const revoked: AuditEntry = {
        ...(registrationOf(APPROVER_B) as AuditEntry),
        at: (entries[filed] as AuditEntry).at,
        action: 'passkey-revoked',
        actor: APPROVER_B,
        note: 'revoked by its owner',
      };
      const clicked = entries.map((e) => (e.requestId === id ? unsigned(e) : e));
      return [...clicked.slice(0, filed), revoked, ...clicked.slice(filed)];
    });
    const { status, lines } = verify(folder, signer.publicKey);
    expect(problems(lines)).toEqual([
      expect.stringMatching(
        new RegExp(
          `request ${id} \\(passkey, sent at seq \\d+\\): ${APPROVER_B}'s approval has no passkey signature, though two approvers had held passkeys or ${APPROVER_B} held one then$`,
        ),
      ),
    ]);
    expect(status).toBe(1);
  });

  test('fails a registration clicked by an approver who held a passkey, while only one did (a store edit)', async ({
    signed,
  }) => {
    const { folder, signer } = signed;
    let id = '';
    rewriteSegment(folder, signer, (entries) => {
      const registration = entries.find(
        (e) => e.kind === 'passkey' && e.state === 'completed' && e.figures?.payload.user === APPROVER_B,
      );
      id = registration?.requestId ?? '';
      return entries.map((e) => (e.requestId === id ? unsigned(e) : e));
    });
    const { status, lines } = verify(folder, signer.publicKey);
    expect(problems(lines)).toEqual([
      expect.stringMatching(
        new RegExp(
          `request ${id} \\(passkey, sent at seq \\d+\\): ${APPROVER_A}'s approval has no passkey signature, though two approvers had held passkeys or ${APPROVER_A} held one then$`,
        ),
      ),
    ]);
    expect(status).toBe(1);
  });

  test('fails when the figures sent differ from those signed', async ({ signed }) => {
    const { folder, withdrawal, sentSeq, signer } = signed;
    rewriteSegment(
      folder,
      signer,
      onRequest(withdrawal, (entry) => {
        if (!entry.figures) return entry;
        const payload = { ...entry.figures.payload, amount: '5001' };
        return { ...entry, amount: '5001.00', figures: { ...entry.figures, payload } };
      }),
    );
    const { status, lines } = verify(folder, signer.publicKey);
    expect(problems(lines)).toEqual([
      expect.stringContaining(
        `request ${withdrawal} (withdraw, sent at seq ${sentSeq}): ${APPROVER_A}'s signature is over other figures than the chain recorded for the request (its challenge differs)`,
      ),
    ]);
    expect(status).toBe(1);
  });

  test('fails an approval duplicated with its signature (a store edit)', async ({ signed }) => {
    const { folder, withdrawal, sentSeq, signer } = signed;
    rewriteSegment(
      folder,
      signer,
      onRequest(withdrawal, (entry) => {
        const figures = entry.figures;
        const [signature] = figures?.signatures ?? [];
        if (!figures || !signature) return entry;
        const approvals = [...figures.approvals, APPROVER_A];
        return { ...entry, figures: { ...figures, approvals, signatures: [signature, signature] } };
      }),
    );
    const { status, lines } = verify(folder, signer.publicKey);
    const about = `request ${withdrawal} (withdraw, sent at seq ${sentSeq})`;
    expect(problems(lines)).toEqual([
      expect.stringContaining(`${about}: ${APPROVER_A} is counted more than once among its approvals`),
      expect.stringContaining(
        `${about}: ${APPROVER_A}'s signature repeats the nonce of ${APPROVER_A}'s (one assertion counted twice)`,
      ),
    ]);
    expect(status).toBe(1);
  });

  test('passes a request signed by a delegate in an approver’s place', async ({ delegated }) => {
    const { folder, signer } = delegated;
    verifiesCleanly(folder, signer.publicKey);
  });

  test('fails an approver’s own signed approval beside their delegate’s (a store edit)', async ({
    delegated,
  }) => {
    const { folder, withdrawal, sentSeq, ownEvidence, signer } = delegated;
    // A's own assertion verifies on its own: only the delegation makes it the same person twice.
    rewriteSegment(
      folder,
      signer,
      onRequest(withdrawal, (entry) => {
        const figures = entry.figures;
        if (!figures?.signatures) return entry;
        const approvals = [...figures.approvals, APPROVER_A];
        return {
          ...entry,
          figures: { ...figures, approvals, signatures: [...figures.signatures, ownEvidence] },
        };
      }),
    );
    const { status, lines } = verify(folder, signer.publicKey);
    expect(problems(lines)).toEqual([
      expect.stringContaining(
        `request ${withdrawal} (withdraw, sent at seq ${sentSeq}): ${APPROVER_A} is counted more than once among its approvals (${OUTSIDER} approved in ${APPROVER_A}'s place)`,
      ),
    ]);
    expect(status).toBe(1);
  });

  test('fails an approval by the requester’s delegate in the requester’s place (a store edit)', async ({
    delegated,
  }) => {
    const { folder, withdrawal, sentSeq, signer } = delegated;
    // As if A had filed the withdrawal A's delegate then approved in A's place.
    rewriteSegment(folder, signer, filedBy(withdrawal, APPROVER_A));
    const { status, lines } = verify(folder, signer.publicKey);
    expect(problems(lines)).toEqual([
      expect.stringContaining(
        `request ${withdrawal} (withdraw, sent at seq ${sentSeq}): ${OUTSIDER} approved in the place of ${APPROVER_A}, who filed it`,
      ),
    ]);
    expect(status).toBe(1);
  });

  test('fails two approvals signed with one passkey, each with its own nonce (a store edit)', async ({
    signed,
  }) => {
    const { folder, withdrawal, sentSeq, deviceA, signer } = signed;
    // A second assertion by A's passkey over the same figures under another nonce: it verifies on its own.
    rewriteSegment(
      folder,
      signer,
      onRequest(withdrawal, (entry) => {
        const figures = entry.figures;
        const [signature] = figures?.signatures ?? [];
        const bytes = entrySignedBytes(entry);
        if (!figures || !signature || !bytes) return entry;
        const nonce = `${signature.nonce}-again`;
        const again = { user: APPROVER_A, ...deviceA.assert(signedChallenge(bytes, nonce), nonce) };
        const approvals = [...figures.approvals, APPROVER_A];
        return { ...entry, figures: { ...figures, approvals, signatures: [signature, again] } };
      }),
    );
    const { status, lines } = verify(folder, signer.publicKey);
    const about = `request ${withdrawal} (withdraw, sent at seq ${sentSeq})`;
    expect(problems(lines)).toEqual([
      expect.stringContaining(`${about}: ${APPROVER_A} is counted more than once among its approvals`),
      expect.stringMatching(
        new RegExp(
          `${about.replace(/[()]/g, '\\$&')}: ${APPROVER_A}'s signature is by passkey \\S+, as ${APPROVER_A}'s is \\(one passkey counted twice\\)$`,
        ),
      ),
    ]);
    expect(status).toBe(1);
  });

  test('fails an approval by the request’s requester (a store edit)', async ({ signed }) => {
    const { folder, withdrawal, sentSeq, signer } = signed;
    // As if A had filed the withdrawal A then approved.
    rewriteSegment(folder, signer, filedBy(withdrawal, APPROVER_A));
    const { status, lines } = verify(folder, signer.publicKey);
    expect(problems(lines)).toEqual([
      expect.stringContaining(
        `request ${withdrawal} (withdraw, sent at seq ${sentSeq}): ${APPROVER_A} filed it and is counted among its approvals`,
      ),
    ]);
    expect(status).toBe(1);
  });

  test('fails a request sent with fewer approvers than it needed when filed (a store edit)', async ({
    signed,
  }) => {
    const { folder, withdrawal, sentSeq, signer } = signed;
    // Filed needing two; the count lowered to one in the store afterwards (the signed figures do not hold it).
    rewriteSegment(
      folder,
      signer,
      onRequest(withdrawal, (entry) =>
        entry.action === 'filed' && entry.figures
          ? { ...entry, figures: { ...entry.figures, requiredApprovals: 2 } }
          : entry,
      ),
    );
    const { status, lines } = verify(folder, signer.publicKey);
    expect(problems(lines)).toEqual([
      expect.stringContaining(
        `request ${withdrawal} (withdraw, sent at seq ${sentSeq}): sent with 1 distinct approver, though it needed 2 when filed (1 on the entry that sent it)`,
      ),
    ]);
    expect(status).toBe(1);
  });

  test.for([
    ['all', 'withdraw', '1.00'],
    ['all', 'whitelist', undefined],
    ['above:1000000', 'withdraw', '1000000.00'],
    ['above:1000000', 'withdraw', '1000000.01'],
    ['above:1000000', 'bridge', undefined],
    ['above:1000000', 'passkey', undefined],
    ['above:0', 'redeem', '0.01'],
    ['above:1,500,000.50', 'withdraw', '1500000.51'],
    ['above:1,500,000.50', 'redeem', '1500000.50'],
  ] as const)(
    'reads the rule CNGN_SIGNED_APPROVALS=%s puts on the record as the engine does (%s %s)',
    ([rule, kind, amount]) => {
      const config = loadConfig({
        ...SLACK_ENV,
        CNGN_SIGNED_APPROVALS: rule,
        CNGN_SIGNING_URL: 'https://sign.example.com:8443/desk/',
      });
      const recorded = policyOf(config, 'live').find((setting) => setting.name === 'signed approvals');
      const policy = signingPolicyOf(recorded?.value);
      if (!policy || !config.signing) throw new Error('signing not on the record');
      expect(policy).toMatchObject({ origin: config.signing.origin, rpId: config.signing.rpId });
      expect(policyNeeds(policy, kind, amount)).toBe(needsSignature(config.signing.rule, kind, amount));
    },
  );
});

const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const TOOLS = ['openssl', 'jq', 'xxd', 'base64'];
const toolsHere = TOOLS.every(has);
if (!toolsHere && process.env.CI === 'true') {
  throw new Error(
    `CI=true but ${TOOLS.filter((t) => !has(t)).join(', ')} missing: the OpenSSL walk-through in docs/audit-verify.md cannot be run`,
  );
}
if (!toolsHere) console.warn(`skipping the passkey OpenSSL walk-through: needs ${TOOLS.join(', ')}`);

/** docs/audit-verify.md's walk-through for one approval, run as written with its four names filled in. */
function walkThrough(names: { archive: string; request: string; approver: string }): string[] {
  const doc = readFileSync(DOC, 'utf8');
  const section = doc.slice(doc.indexOf('### Checking one approval by hand with OpenSSL'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  const commands = block
    .replace(/^VERIFIER=.*$/m, `VERIFIER='${SCRIPT}'`)
    .replace(/^ARCHIVE=.*$/m, `ARCHIVE='${names.archive}'`)
    .replace(/^REQUEST=.*$/m, `REQUEST='${names.request}'`)
    .replace(/^APPROVER=.*$/m, `APPROVER='${names.approver}'`);
  // stdin not a socket (Node's pipes are), or bash reads ~/.bashrc as if started by a remote shell.
  const run = spawnSync('bash', ['-c', commands], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: `${join(process.execPath, '..')}:${process.env.PATH ?? ''}` },
  });
  return `${run.stdout}${run.stderr}`.trimEnd().split('\n');
}

/** What OpenSSL says of a good and a bad signature: dgst for ES256, pkeyutl for Ed25519. */
const SAYS = {
  'P-256': { good: 'Verified OK', bad: 'Verification failure' },
  Ed25519: { good: 'Signature Verified Successfully', bad: 'Signature Verification Failure' },
} as const;

describe.skipIf(!toolsHere)('the passkey OpenSSL walk-through in the docs', () => {
  test.for(['P-256', 'Ed25519'] as const)(
    'checks one signed approval, and refuses it once its signature is changed (%s passkey)',
    async (curve, { fx, auditDir, signer, networkId }) => {
      const says = SAYS[curve];
      const { folder, withdrawal } = await signedArchive(fx.engine, auditDir, networkId, curve);
      const names = { archive: folder, request: withdrawal, approver: APPROVER_A };
      const [verified, computed, carried, where, policy, rpIdHash, hostHash, ...rest] = walkThrough(names);
      expect(verified).toBe(says.good);
      expect(computed).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(carried).toBe(computed);
      expect(where).toBe(`webauthn.get ${place.origin}`);
      expect(policy).toBe(`all at ${place.origin}`);
      expect(rpIdHash).toMatch(/^[0-9a-f]{64}$/);
      expect(hostHash).toBe(rpIdHash);
      expect(rest).toEqual([]);

      rewriteSegment(
        folder,
        signer,
        onRequest(withdrawal, (e) => withSignatures(e, (s) => ({ signature: flipByte(s.signature, 5) }))),
      );
      expect(walkThrough(names)[0]).toBe(says.bad);
      rewriteSegment(
        folder,
        signer,
        onRequest(withdrawal, (e) => withSignatures(e, (s) => ({ signature: flipByte(s.signature, 5) }))),
      );
      rewriteSegment(
        folder,
        signer,
        onRequest(withdrawal, (entry) => {
          if (!entry.figures) return entry;
          return { ...entry, figures: { ...entry.figures, purpose: 'Something else' } };
        }),
      );
      const changed = walkThrough(names);
      expect(changed[0]).toBe(says.good);
      expect(changed[1]).not.toBe(changed[2]);
    },
  );
});

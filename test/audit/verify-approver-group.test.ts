// The standalone verifier with approvers given as a Slack user group: an approval counts only from
// someone the archive shows in the group when they approved (a `members of S…` entry saying they
// joined, and none since saying they left). The archive holds only the changes the bot saw, never the
// members it first read, so an approver never seen to join or leave is named as one the archive cannot
// place, in plain words, and not passed in silence. A first-passkeys click counts the passkey holders
// the archive shows in the group, not every holder (a delegate's passkey among them). The archives are
// written by the real engine, whose own pool (the fixture's list) lets the approvals through: only the
// recorded policy says otherwise.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect } from 'vitest';
import { parseSigningRule, parseTiers } from '../../src/access/index.js';
import type { ApprovalEngine } from '../../src/approvals/approval-engine.js';
import { policySnapshot } from '../../src/approvals/index.js';
import { HeadMarks } from '../../src/audit/signing.js';
import { runVerifier } from '../../src/audit/verify-cli.js';
import { approveAsSeen, seenOf } from '../support/approve-as-seen.js';
import { newSigner } from '../support/audit-archive.js';
import { SoftwareAuthenticator } from '../support/authenticator.js';
import {
  APPROVER_A,
  APPROVER_B,
  type EngineFixture,
  engineTest,
  OUTSIDER,
  REQUESTER,
  withdrawalDraft,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';

const SCRIPT = fileURLToPath(new URL('../../scripts/audit-verify.mjs', import.meta.url));
const GROUP = 'S0TREASURY';
const place = { rpId: 'desk.example.com', origin: 'https://desk.example.com' };

const test = engineTest
  .extend('auditDir', async ({ defer }) => {
    const dir = mkdtempSync(join(tmpdir(), 'cngn-group-audit-'));
    defer(() => rmSync(dir, { recursive: true, force: true }));
    return dir;
  })
  .extend('signer', async () => newSigner())
  .extend('engineOptions', async ({ auditDir, signer }) => ({
    engine: {
      signing: { rule: parseSigningRule('all'), ...place },
      policySnapshot: policySnapshot({
        environment: 'sandbox',
        approvers: { users: [], group: GROUP },
        tiers: parseTiers('0:1,1000000:2'),
        limitWindowMs: 86_400_000,
        ttlMs: 86_400_000,
        reminders: [],
        notify: 'both',
        signedApprovals: `all at ${place.origin}`,
      }),
      auditSeal: { signer, marks: new HeadMarks(join(auditDir, 'marks.json')) },
      auditArchive: { dir: join(auditDir, 'archive'), everyMs: 86_400_000 },
    },
  }));

/** What the group's recorded members do before anyone approves: who the bot saw join, then leave. */
interface Membership {
  joined: string[];
  left: string[];
}

/**
 * Started, the group's membership changes recorded (a second apart); A's passkey, approved by B with a
 * click (no one holds one yet); a withdrawal A signs, sent; archived. The folder and the withdrawal.
 */
async function groupArchive(
  fx: EngineFixture,
  auditDir: string,
  networkId: string,
  membership: Membership,
): Promise<{ folder: string; withdrawal: string; sentSeq: number }> {
  const { engine } = fx;
  await startWith(fx, membership);
  const deviceA = await registerClicked(engine, APPROVER_A, APPROVER_B);
  const request = await fileDraft(engine, withdrawalDraft(networkId, '5000'));
  await signAndApprove(engine, request.id, APPROVER_A, deviceA);
  expect((await engine.get(request.id))?.state).toBe('sent');
  expect(await engine.archiveAudit('test')).toMatchObject({ written: true });
  const entries = await engine.auditRange(undefined, undefined);
  const sentSeq = entries.find((e) => e.requestId === request.id && e.state === 'sent')?.seq ?? -1;
  return { folder: join(auditDir, 'archive', 'sandbox'), withdrawal: request.id, sentSeq };
}

/** Started, the group's membership changes recorded, a second apart. */
async function startWith({ engine, clock }: EngineFixture, membership: Membership): Promise<void> {
  await engine.start();
  if (membership.joined.length) await engine.recordMembershipChange(GROUP, membership.joined, []);
  clock.advance(1_000);
  if (membership.left.length) await engine.recordMembershipChange(GROUP, [], membership.left);
  clock.advance(1_000);
}

/** `user` signs the request's current round with `device`, as the signing page does, and approves. */
async function signAndApprove(
  engine: ApprovalEngine,
  id: string,
  user: string,
  device: SoftwareAuthenticator,
) {
  const request = await engine.get(id);
  if (!request) throw new Error(`no request ${id}`);
  const made = await engine.passkeys.signingChallenge(id, user, request.round);
  if (!made.ok || !('challenge' in made)) throw new Error(`no challenge: ${JSON.stringify(made)}`);
  const evidence = device.assert(made.challenge, made.nonce);
  expect((await engine.approve(id, user, { ...seenOf(request), evidence })).ok).toBe(true);
  await engine.idle();
}

/**
 * Started with `membership`; B's passkey (clicked by A); A delegates to the outsider (B signs), whose
 * passkey B signs; then A's passkey clicked by the requester: the engine, counting approvers only (not
 * the outsider, a delegate), saw one holding a passkey before it. Archived: the folder.
 */
async function firstPasskeysArchive(fx: EngineFixture, auditDir: string, membership: Membership) {
  const { engine } = fx;
  await startWith(fx, membership);
  const deviceB = await registerClicked(engine, APPROVER_B, APPROVER_A);
  const delegation = await engine.fileDelegation(APPROVER_A, OUTSIDER, new Date(Date.now() + 3 * 86_400_000));
  await signAndApprove(engine, delegation.id, APPROVER_B, deviceB);
  expect((await engine.get(delegation.id))?.state).toBe('completed');
  const device = new SoftwareAuthenticator({ user: OUTSIDER, name: `${OUTSIDER}'s device`, ...place });
  const options = await engine.passkeys.registrationChallenge(OUTSIDER);
  const filed = await engine.passkeys.filePasskey(OUTSIDER, {
    response: device.registrationResponse(options.challenge),
    expectedChallenge: options.challenge,
    name: device.options.name ?? '',
  });
  if (!filed.ok) throw new Error(filed.problem);
  await signAndApprove(engine, filed.request.id, APPROVER_B, deviceB);
  await registerClicked(engine, APPROVER_A, REQUESTER);
  expect(await engine.archiveAudit('test')).toMatchObject({ written: true });
  return join(auditDir, 'archive', 'sandbox');
}

/** `user` registers a passkey, approved by `approver` with a click; `user`'s device. */
async function registerClicked(engine: ApprovalEngine, user: string, approver: string) {
  const device = new SoftwareAuthenticator({ user, name: `${user}'s device`, ...place });
  const options = await engine.passkeys.registrationChallenge(user);
  const filed = await engine.passkeys.filePasskey(user, {
    response: device.registrationResponse(options.challenge),
    expectedChallenge: options.challenge,
    name: device.options.name ?? '',
  });
  if (!filed.ok) throw new Error(filed.problem);
  expect((await approveAsSeen(engine, filed.request.id, approver)).ok).toBe(true);
  await engine.idle();
  return device;
}

/** The script as an auditor runs it, and the same check in TypeScript: they must agree. */
function verify(folder: string, key: string): { status: number; lines: string[] } {
  const args = [folder, '--key', key];
  const run = spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8', env: {} });
  const lines: string[] = [];
  const status = runVerifier(args, (line) => lines.push(...line.split('\n')));
  expect({ status: run.status, lines: run.stdout.trimEnd().split('\n') }).toEqual({ status, lines });
  return { status, lines };
}

const flagged = (lines: string[]) =>
  lines.filter((line) => /^(PROBLEM |CANNOT TELL |NOT CHECKED:)/.test(line));

describe('the verifier with approvers given as a Slack user group', () => {
  test('fails an approval by someone the archive shows had left the group before approving', async ({
    fx,
    auditDir,
    signer,
    networkId,
  }) => {
    const membership = { joined: [APPROVER_A, APPROVER_B], left: [APPROVER_A] };
    const { folder, withdrawal, sentSeq } = await groupArchive(fx, auditDir, networkId, membership);
    const { status, lines } = verify(folder, signer.publicKey);
    expect(flagged(lines)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^PROBLEM sandbox/\\S+: request ${withdrawal} \\(withdraw, sent at seq ${sentSeq}\\): ${APPROVER_A} was not an approver of withdraw requests then$`,
        ),
      ),
    ]);
    expect(status).toBe(1);
  });

  test('passes approvals by people the archive shows joining the group before approving', async ({
    fx,
    auditDir,
    signer,
    networkId,
  }) => {
    const membership = { joined: [APPROVER_A, APPROVER_B], left: [] };
    const { folder } = await groupArchive(fx, auditDir, networkId, membership);
    const { status, lines } = verify(folder, signer.publicKey);
    expect(flagged(lines)).toEqual([]);
    expect(lines.at(-1)).toBe('No problems: every signature, hash and link checks out.');
    expect(status).toBe(0);
  });

  test('says it cannot tell for approvers the archive never shows joining or leaving the group', async ({
    fx,
    auditDir,
    signer,
    networkId,
  }) => {
    const { folder, withdrawal, sentSeq } = await groupArchive(fx, auditDir, networkId, {
      joined: [],
      left: [],
    });
    const { status, lines } = verify(folder, signer.publicKey);
    const noRecord = (who: string) =>
      `cannot tell whether ${who} was an approver then: the archive records no joining or leaving of ${GROUP} by ${who} before the approval`;
    expect(flagged(lines)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^CANNOT TELL sandbox/\\S+: request \\S+ \\(passkey, sent at seq \\d+\\): ${noRecord(APPROVER_B)}$`,
        ),
      ),
      expect.stringMatching(
        new RegExp(
          `^CANNOT TELL sandbox/\\S+: request ${withdrawal} \\(withdraw, sent at seq ${sentSeq}\\): ${noRecord(APPROVER_A)}$`,
        ),
      ),
      "NOT CHECKED: 2 approvals (CANNOT TELL above): the archive does not record whether the people named were members of the approvers' group then.",
    ]);
    expect(status).toBe(0);
  });

  test('counts a first-passkeys click only against passkey holders the archive shows in the group', async ({
    fx,
    auditDir,
    signer,
  }) => {
    const membership = { joined: [APPROVER_A, APPROVER_B, REQUESTER, OUTSIDER], left: [OUTSIDER] };
    const folder = await firstPasskeysArchive(fx, auditDir, membership);
    const { status, lines } = verify(folder, signer.publicKey);
    expect(flagged(lines)).toEqual([]);
    expect(status).toBe(0);
  });

  test('says it cannot tell whether a first-passkeys click counts when a holder is never shown in the group or out of it', async ({
    fx,
    auditDir,
    signer,
  }) => {
    const membership = { joined: [APPROVER_A, APPROVER_B, REQUESTER], left: [] };
    const folder = await firstPasskeysArchive(fx, auditDir, membership);
    const { status, lines } = verify(folder, signer.publicKey);
    expect(flagged(lines)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^CANNOT TELL sandbox/\\S+: request \\S+ \\(passkey, sent at seq \\d+\\): cannot tell whether ${REQUESTER}'s unsigned approval counts: it does only if ${OUTSIDER}, who held passkeys then, were not approvers, and the archive does not record whether they were members of the approvers' group$`,
        ),
      ),
      "NOT CHECKED: 1 approval (CANNOT TELL above): the archive does not record whether the people named were members of the approvers' group then.",
    ]);
    expect(status).toBe(0);
  });
});

// The set-up of the verifier's approver checks: an engine whose audit trail records the approvers the
// test names (the engine's own pool, the fixture's list, lets every approval through: only the recorded
// policy says otherwise), signing every approval with passkeys, its archive in a folder of the test's;
// one fixture set per recorded policy (approverArchiveTest: a restart with other settings, the chain
// archived, a withdrawal signed, sent and archived); the steps the archives are made of (a passkey
// registered, approved with a click or signed; an approval signed), and the verifier run in TypeScript
// and, where a test asks, as the bundled script too.
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { type Holders, parseSigningRule, parseTiers } from '../../src/access/index.js';
import type { ApprovalEngine } from '../../src/approvals/approval-engine.js';
import { type PolicySnapshot, policySnapshot } from '../../src/approvals/index.js';
import type { RequestKind } from '../../src/approvals/types.js';
import { type PlacedEntry, placedEntries } from '../../src/audit/approval-evidence.js';
import { findArchive } from '../../src/audit/archive-find.js';
import { type AuditSigner, HeadMarks } from '../../src/audit/signing.js';
import { runVerifier } from '../../src/audit/verify-cli.js';
import { approveAsSeen, seenOf } from './approve-as-seen.js';
import { newSigner } from './audit-archive.js';
import { type AuthenticatorOptions, SoftwareAuthenticator } from './authenticator.js';
import {
  APPROVER_A,
  APPROVER_B,
  type EngineFixture,
  engineTest,
  OUTSIDER,
  startEngineFixture,
  twoNetworks,
  withdrawalDraft,
} from './engine.js';
import { fileDraft } from './filing.js';

const SCRIPT = fileURLToPath(new URL('../../scripts/audit-verify.mjs', import.meta.url));
const place = { rpId: 'desk.example.com', origin: 'https://desk.example.com' };

/** The approvers as the policy records them: the general pool, and the kinds with a pool of their own. */
export interface RecordedApprovers {
  approvers: { users: string[]; group?: string };
  byKind?: Partial<Record<RequestKind, Holders>>;
}

/** The policy an engine records at its start, with these approvers and every approval signed. */
export function recordedPolicy({ approvers, byKind }: RecordedApprovers): PolicySnapshot {
  return policySnapshot({
    environment: 'sandbox',
    approvers,
    approversByKind: byKind,
    tiers: parseTiers('0:1,1000000:2'),
    limitWindowMs: 86_400_000,
    ttlMs: 86_400_000,
    reminders: [],
    notify: 'both',
    signedApprovals: `all at ${place.origin}`,
  });
}

/** The engine options of a signing, archiving engine that records `policy` at its start. */
function signingEngine(auditDir: string, signer: AuditSigner, policy: PolicySnapshot | undefined) {
  return {
    signing: { rule: parseSigningRule('all'), ...place },
    policySnapshot: policy,
    auditSeal: { signer, marks: new HeadMarks(join(auditDir, 'marks.json')) },
    auditArchive: { dir: join(auditDir, 'archive'), everyMs: 86_400_000 },
  };
}

/** The engine fixtures, a folder for the test's audit archive and marks, and a fresh audit key. */
const auditedEngineTest = engineTest
  .extend('auditDir', async ({ defer }) => {
    const dir = mkdtempSync(join(tmpdir(), 'cngn-approver-audit-'));
    defer(() => rmSync(dir, { recursive: true, force: true }));
    return dir;
  })
  .extend('signer', async () => newSigner());

/** What a file's archive is made on: an engine of its own, as approverArchiveTest's, its folder and key. */
export interface FileRig {
  fx: EngineFixture;
  auditDir: string;
  signer: AuditSigner;
  networkId: string;
}

/**
 * The body of a file-scoped fixture that makes an archive once for the file: `make` runs on an engine
 * of its own that records `policy`, closed and its folder removed when the file ends (`onCleanup`).
 * With the archive, the key that signed it. Each test takes a copy (copyArchive) to change.
 */
export async function archiveForFile<T extends { folder: string }>(
  policy: PolicySnapshot | undefined,
  make: (rig: FileRig) => Promise<T>,
  onCleanup: (cleanup: () => Promise<void>) => void,
): Promise<T & { signer: AuditSigner }> {
  const auditDir = mkdtempSync(join(tmpdir(), 'cngn-approver-audit-'));
  const signer = newSigner();
  let fx: EngineFixture | undefined;
  onCleanup(async () => {
    await fx?.close();
    rmSync(auditDir, { recursive: true, force: true });
  });
  fx = await startEngineFixture({ engine: signingEngine(auditDir, signer, policy) });
  const [networkId] = await twoNetworks(fx.client);
  return { ...(await make({ fx, auditDir, signer, networkId })), signer };
}

/**
 * A copy of an archive's folder (its root, or one environment's) at `to`, whose files a test may change
 * (the bot writes them read-only): `to`.
 */
export function copyArchive(from: string, to: string): string {
  cpSync(from, to, { recursive: true });
  for (const name of readdirSync(to, { recursive: true, encoding: 'utf8' })) {
    const path = join(to, name);
    if (statSync(path).isFile()) chmodSync(path, 0o644);
  }
  return to;
}

/** An archive's folder and the withdrawal it holds. */
export interface WithdrawalArchive {
  folder: string;
  withdrawal: string;
}

/** A ₦5,000 withdrawal `user` signs with `device`, sent, then archived. */
export type SignedAndArchived = (user: string, device: SoftwareAuthenticator) => Promise<WithdrawalArchive>;

/**
 * The fixtures of a file whose engine records `policy` at its start: `restarted`, the bot on the same
 * store with other settings, not yet started (it records them at its start); `archived`, the chain
 * archived, the environment's folder; `signedAndArchived`, a ₦5,000 withdrawal `user` signs with `device`
 * on the fixture's engine, sent, then archived: the folder and the withdrawal.
 */
export const approverArchiveTest = (policy: PolicySnapshot | undefined) =>
  auditedEngineTest
    .extend('engineOptions', async ({ auditDir, signer }) => ({
      engine: signingEngine(auditDir, signer, policy),
    }))
    .extend('restarted', async ({ fx, auditDir, signer, defer }) => async (other?: PolicySnapshot) => {
      const { engine } = await fx.another({ engine: signingEngine(auditDir, signer, other) });
      defer(() => engine.stop());
      return engine;
    })
    .extend('archived', async ({ fx, auditDir }) => async () => {
      expect(await fx.engine.archiveAudit('test')).toMatchObject({ written: true });
      return join(auditDir, 'archive', 'sandbox');
    })
    .extend('signedAndArchived', async ({ fx, networkId, archived }): Promise<SignedAndArchived> => {
      return async (user, device) => {
        const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '5000'));
        await signAndApprove(fx.engine, request.id, user, device);
        expect((await fx.engine.get(request.id))?.state).toBe('sent');
        return { folder: await archived(), withdrawal: request.id };
      };
    });

/** `user` signs the request's current round with `device`, as the signing page does, and approves: the answer. */
export async function signedApproval(
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
  return engine.approve(id, user, { ...seenOf(request), evidence });
}

/** The same, which must be taken; the engine's work after it done. */
export async function signAndApprove(
  engine: ApprovalEngine,
  id: string,
  user: string,
  device: SoftwareAuthenticator,
) {
  expect((await signedApproval(engine, id, user, device)).ok).toBe(true);
  await engine.idle();
}

/**
 * `user` registers a passkey (on `curve`, P-256 by default), approved by `approver`: signed with
 * `signWith` (the approver's device), else a click. `user`'s device.
 */
export async function registerPasskey(
  engine: ApprovalEngine,
  user: string,
  approver: string,
  signWith?: SoftwareAuthenticator,
  curve?: AuthenticatorOptions['curve'],
): Promise<SoftwareAuthenticator> {
  const name = `${user}'s device ${Math.random()}`;
  const device = new SoftwareAuthenticator({ user, name, ...place, ...(curve ? { curve } : {}) });
  const options = await engine.passkeys.registrationChallenge(user);
  const filed = await engine.passkeys.filePasskey(user, {
    response: device.registrationResponse(options.challenge),
    expectedChallenge: options.challenge,
    name: device.options.name ?? '',
  });
  if (!filed.ok) throw new Error(filed.problem);
  const approved = signWith
    ? await signedApproval(engine, filed.request.id, approver, signWith)
    : await approveAsSeen(engine, filed.request.id, approver);
  expect(approved.ok).toBe(true);
  await engine.idle();
  return device;
}

/** `user` registers a passkey, approved by `approver` with a click; `user`'s device. */
export const registerClicked = (engine: ApprovalEngine, user: string, approver: string) =>
  registerPasskey(engine, user, approver);

/** A delegates to the outsider (B signs), whose passkey B signs: the outsider's device. */
export async function delegatedToOutsider(engine: ApprovalEngine, deviceB: SoftwareAuthenticator) {
  const delegation = await engine.fileDelegation(APPROVER_A, OUTSIDER, new Date(Date.now() + 3 * 86_400_000));
  await signAndApprove(engine, delegation.id, APPROVER_B, deviceB);
  expect((await engine.get(delegation.id))?.state).toBe('completed');
  return registerPasskey(engine, OUTSIDER, APPROVER_B, deviceB);
}

/**
 * The verifier's check in TypeScript (runVerifier); with `standalone`, also the bundled script as an
 * auditor runs it (`node audit-verify.mjs`, a process of its own with an empty environment), which must
 * say exactly the same. Each file says in its header which archives the script is run on.
 */
export function verify(
  folder: string,
  key: string,
  { standalone = false }: { standalone?: boolean } = {},
): { status: number; lines: string[] } {
  const args = [folder, '--key', key];
  const lines: string[] = [];
  const status = runVerifier(args, (line) => lines.push(...line.split('\n')));
  if (standalone) {
    const run = spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8', env: {} });
    expect({ status: run.status, lines: run.stdout.trimEnd().split('\n') }).toEqual({ status, lines });
  }
  return { status, lines };
}

/** The bundled script as an auditor runs it from inside the folder `cwd`: `node audit-verify.mjs <folder> --key …`. */
export function verifyFrom(
  cwd: string,
  folder: string,
  key: string,
): { status: number | null; lines: string[] } {
  const run = spawnSync(process.execPath, [SCRIPT, folder, '--key', key], { encoding: 'utf8', env: {}, cwd });
  return { status: run.status, lines: run.stdout.trimEnd().split('\n') };
}

/** The lines that report a problem or something the archive cannot tell. */
export const flagged = (lines: string[]) =>
  lines.filter((line) => /^(PROBLEM |CANNOT TELL |NOT CHECKED:)/.test(line));

/** The PROBLEM line that A was not an approver of the withdrawal `withdrawal`. */
export const notAnApprover = (withdrawal: string) =>
  expect.stringMatching(
    new RegExp(
      `^PROBLEM sandbox/\\S+: request ${withdrawal} \\(withdraw, sent at seq \\d+\\): ${APPROVER_A} was not an approver of withdraw requests then$`,
    ),
  );

/** The entries of the archive's (one) environment folder, in seq order, as the verifier reads them. */
export function archivedEntries(folder: string): PlacedEntry[] {
  const [environment] = findArchive(folder).environments;
  return placedEntries(environment?.segments ?? []);
}

/** The entries as an older version wrote them: approval steps that do not name the settings that judged them. */
export const withoutSettingsNamed = (entries: PlacedEntry[]): PlacedEntry[] =>
  entries.map(({ entry: { policyFingerprint: _judgedBy, ...entry }, segment }) => ({ entry, segment }));

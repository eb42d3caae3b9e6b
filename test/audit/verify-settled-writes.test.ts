// The verifier over registrations and delegations whose write went unanswered: the executor records the
// request outcome-unknown, and the tracker later settles it from the bot's store. A passkey counts from
// the entry that completes its registration, whatever came before it; one whose registration failed
// (barred from landing) never counts, though it was outcome-unknown first; one revoked before the
// tracker settled it counts as revoked. A delegation settled so verifies like any other. Each chain is
// made by the engine on a store that leaves the write unanswered; the first is also run through the
// bundled script, as an auditor runs it. A completion naming another owner or key than the entry whose
// approvals were checked is an edit (re-signed with the test's audit key): reported, its passkey not
// counted.
import { join } from 'node:path';
import { expect } from 'vitest';
import { EXECUTION_LEASE_MS } from '../../src/approvals/executor.js';
import { createStore } from '../../src/store/index.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import {
  approverArchiveTest,
  flagged,
  recordedPolicy,
  registerPasskey,
  signAndApprove,
  signedApproval,
  verify,
} from '../support/approver-archive.js';
import { rewriteSegment } from '../support/audit-archive.js';
import { SoftwareAuthenticator } from '../support/authenticator.js';
import {
  APPROVER_A,
  APPROVER_B,
  type EngineFixture,
  engineOn,
  OUTSIDER,
  REQUESTER,
  withdrawalDraft,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { stoppedAtDelegationWrite } from '../support/stopped-delegation-write.js';
import { StoreControls } from '../support/store-controls.js';
import { verifiesCleanly } from './signed-archives.js';

const POLICY = recordedPolicy({ approvers: { users: [APPROVER_A, APPROVER_B, REQUESTER] } });
const place = { rpId: 'desk.example.com', origin: 'https://desk.example.com' };

const test = approverArchiveTest(POLICY)
  .extend('controls', async () => new StoreControls())
  .extend('rig', async ({ startEngine, engineOptions, controls, defer }) => {
    const memory = await createStore('memory://');
    defer(() => memory.close());
    const rig = await engineOn(startEngine, { ...engineOptions, store: controls.wrap(memory) });
    await rig.fx.engine.start();
    return rig;
  });

/**
 * `user` files a passkey, approved by a click of `approver`'s, whose write into the passkey book goes
 * unanswered (the request outcome-unknown); `landed`: whether the store applied it meanwhile. Then the
 * tracker's pass settles it. `user`'s device and the registration request.
 */
async function interruptedRegistration(
  fx: EngineFixture,
  controls: StoreControls,
  { user, approver, landed }: { user: string; approver: string; landed: boolean },
) {
  const { engine } = fx;
  const name = `${user}'s interrupted device`;
  const device = new SoftwareAuthenticator({ user, name, ...place });
  const options = await engine.passkeys.registrationChallenge(user);
  const filed = await engine.passkeys.filePasskey(user, {
    response: device.registrationResponse(options.challenge),
    expectedChallenge: options.challenge,
    name,
  });
  if (!filed.ok) throw new Error(filed.problem);
  const { credentialId } = filed.request.payload;
  const late = controls.answerLate('passkeys:', (next) => JSON.stringify(next).includes(credentialId));
  expect((await approveAsSeen(engine, filed.request.id, approver)).ok).toBe(true);
  await engine.idle();
  expect((await engine.get(filed.request.id))?.state).toBe('outcome-unknown');
  if (landed) expect(await late.landed()).toBe(true);
  return { device, id: filed.request.id, name };
}

/** The tracker's pass, and the request `id` settled as `state`. */
async function settled(fx: EngineFixture, id: string, state: 'completed' | 'failed') {
  await fx.engine.tick();
  await fx.engine.idle();
  expect((await fx.engine.get(id))?.state).toBe(state);
}

/** The engine's chain archived: the environment's folder. */
async function archived(fx: EngineFixture, auditDir: string): Promise<string> {
  expect(await fx.engine.archiveAudit('test')).toMatchObject({ written: true });
  return join(auditDir, 'archive', 'sandbox');
}

test('a passkey whose registration the tracker completed counts for the approvals signed with it', async ({
  rig: { fx, networkId },
  controls,
  auditDir,
  signer,
}) => {
  const a = { user: APPROVER_A, approver: APPROVER_B, landed: true };
  const { device: deviceA, id } = await interruptedRegistration(fx, controls, a);
  await settled(fx, id, 'completed');
  await registerPasskey(fx.engine, APPROVER_B, APPROVER_A, deviceA);
  const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '5000'));
  await signAndApprove(fx.engine, request.id, APPROVER_A, deviceA);
  expect((await fx.engine.get(request.id))?.state).toBe('sent');
  verifiesCleanly(await archived(fx, auditDir), signer.publicKey, { standalone: true });
});

test('a completion naming another owner and key than the approved registration is reported, its passkey not counted', async ({
  rig: { fx, networkId },
  controls,
  auditDir,
  signer,
}) => {
  const a = { user: APPROVER_A, approver: APPROVER_B, landed: true };
  const { device: deviceA, id } = await interruptedRegistration(fx, controls, a);
  await settled(fx, id, 'completed');
  const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '5000'));
  await signAndApprove(fx.engine, request.id, APPROVER_A, deviceA);
  const folder = await archived(fx, auditDir);
  // The completion now names the outsider and a key of their own under A's passkey.
  const rogue = new SoftwareAuthenticator({ user: OUTSIDER, name: 'rogue', ...place });
  let completionSeq = 0;
  rewriteSegment(folder, signer, (entries) =>
    entries.map((entry) => {
      if (entry.requestId !== id || entry.action !== 'completed' || !entry.figures) return entry;
      completionSeq = entry.seq ?? 0;
      const payload = {
        ...entry.figures.payload,
        user: OUTSIDER,
        publicKey: Buffer.from(rogue.coseKey()).toString('base64url'),
      };
      return { ...entry, figures: { ...entry.figures, payload } };
    }),
  );
  const { status, lines } = verify(folder, signer.publicKey, { standalone: true });
  expect(flagged(lines)).toEqual(
    expect.arrayContaining([
      expect.stringContaining(
        `request ${id} (passkey): its completion at seq ${completionSeq} names another owner and public key than the entry whose approvals were checked`,
      ),
      expect.stringMatching(
        new RegExp(
          `request ${request.id} .*${APPROVER_A}'s signature is by passkey \\S+, which no registration`,
        ),
      ),
    ]),
  );
  expect(status).toBe(1);
});

test('a passkey whose interrupted registration failed never counted: its owner still held none after', async ({
  rig: { fx, networkId },
  controls,
  auditDir,
  signer,
}) => {
  const a = { user: APPROVER_A, approver: APPROVER_B, landed: false };
  const { id } = await interruptedRegistration(fx, controls, a);
  await settled(fx, id, 'failed');
  // A, holding no passkey, may still approve B's first one with a click.
  const deviceB = await registerPasskey(fx.engine, APPROVER_B, APPROVER_A);
  const deviceA = await registerPasskey(fx.engine, APPROVER_A, APPROVER_B, deviceB);
  const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '5000'));
  await signAndApprove(fx.engine, request.id, APPROVER_A, deviceA);
  verifiesCleanly(await archived(fx, auditDir), signer.publicKey);
});

test('a passkey revoked before the tracker completed its registration counts as revoked from then', async ({
  rig: { fx },
  controls,
  auditDir,
  signer,
}) => {
  const a = { user: APPROVER_A, approver: APPROVER_B, landed: true };
  const { id, name } = await interruptedRegistration(fx, controls, a);
  expect(await fx.engine.passkeys.revokePasskey(APPROVER_A, APPROVER_A, name)).toMatchObject({ ok: true });
  await settled(fx, id, 'completed');
  // A held a passkey once, now revoked: one approver had held one, and A holds none, so a click counts.
  const deviceB = await registerPasskey(fx.engine, APPROVER_B, APPROVER_A);
  await registerPasskey(fx.engine, APPROVER_A, APPROVER_B, deviceB);
  verifiesCleanly(await archived(fx, auditDir), signer.publicKey);
});

test('a delegation whose write the tracker found written verifies, the delegate signing in its place', async ({
  startEngine,
  engineOptions,
  auditDir,
  signer,
  defer,
}) => {
  const inner = await createStore('memory://');
  defer(() => inner.close());
  const { store, stop } = stoppedAtDelegationWrite(inner, { landed: true });
  const { fx, networkId } = await engineOn(startEngine, { ...engineOptions, store });
  const { engine } = fx;
  await engine.start();
  const deviceA = await registerPasskey(engine, APPROVER_A, APPROVER_B);
  const deviceB = await registerPasskey(engine, APPROVER_B, APPROVER_A, deviceA);
  const delegation = await engine.fileDelegation(APPROVER_A, OUTSIDER, new Date(Date.now() + 3 * 86_400_000));
  expect((await signedApproval(engine, delegation.id, APPROVER_B, deviceB)).ok).toBe(true);
  await expect.poll(async () => inner.setMembers('delegations:sandbox')).toEqual([delegation.id]);
  fx.clock.advance(EXECUTION_LEASE_MS + 1_000);
  await engine.tick();
  stop(new Error('the stopped process never answers'));
  await engine.idle();
  const history = (await engine.get(delegation.id))?.history.map((h) => h.state);
  expect(history).toEqual(expect.arrayContaining(['outcome-unknown', 'completed']));
  const deviceO = await registerPasskey(engine, OUTSIDER, APPROVER_B, deviceB);
  const request = await fileDraft(engine, withdrawalDraft(networkId, '5000'));
  await signAndApprove(engine, request.id, OUTSIDER, deviceO);
  const sent = await engine.get(request.id);
  expect(sent).toMatchObject({ state: 'sent', approvals: [{ user: OUTSIDER, onBehalfOf: APPROVER_A }] });
  verifiesCleanly(await archived(fx, auditDir), signer.publicKey);
});

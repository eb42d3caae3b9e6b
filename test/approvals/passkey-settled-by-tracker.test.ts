// A passkey registration whose write to the book went unanswered, and landed, is completed by the
// tracker if the sealed record found is the passkey the request filed and the request still reads as
// filed: only the executor writes that record, just after its own check of the approvals passed. The
// completion is the bot's own entry on the signed chain, whose payload the auditor's verifier takes as
// the passkey's key and owner: a store writer who swaps the key of such a request gets it failed, with
// no completion on the chain, and its passkey revoked, the revocation on the chain too. A click that
// counted at the write still counts, whatever was written to the book since (nothing is judged again).
import { expect } from 'vitest';
import { ApprovalPolicy, parseSigningRule, parseTiers } from '../../src/access/index.js';
import type { ApprovalEngine } from '../../src/approvals/approval-engine.js';
import { type ApprovalRequest, PASSKEY_REVOKED_ACTION } from '../../src/approvals/index.js';
import { BY_THE_BOT } from '../../src/approvals/own-writes.js';
import { FILING_SEAL_BROKEN } from '../../src/approvals/request-seal.js';
import { HeadMarks } from '../../src/audit/signing.js';
import { createStore } from '../../src/store/index.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import { newSigner } from '../support/audit-archive.js';
import { SoftwareAuthenticator } from '../support/authenticator.js';
import { engineTest } from '../support/engine.js';
import { register, TEST_RP_ID, TEST_SIGNING } from '../support/passkey-registration.js';
import { StoreControls } from '../support/store-controls.js';
import { rewrite } from './signed-support.js';

const ADE = 'U_ADE';
const CHIDI = 'U_CHIDI';
const DAYO = 'U_DAYO';

const policy = () => new ApprovalPolicy({ approvers: [ADE, CHIDI, DAYO], tiers: parseTiers('0:1') });

/** An engine on a memory store whose writes the test answers late, holding an audit signing key. */
const test = engineTest.extend('lateEngine', async ({ startEngine, defer }) => {
  return async (rule: 'off' | 'all') => {
    const memory = await createStore('memory://');
    defer(() => memory.close());
    const controls = new StoreControls();
    const signing = { ...TEST_SIGNING, rule: rule === 'all' ? parseSigningRule('all') : TEST_SIGNING.rule };
    const auditSeal = { signer: newSigner(), marks: new HeadMarks() };
    const fx = await startEngine({
      store: controls.wrap(memory),
      engine: { policy: policy(), signing, auditSeal },
    });
    return { fx, controls, store: memory };
  };
});

/**
 * `user` registers a passkey that `approver` approves with a click; its write to the book is answered
 * late, so the request is outcome unknown; then the write lands.
 */
async function landedUnanswered(
  engine: ApprovalEngine,
  controls: StoreControls,
  user: string,
  approver: string,
): Promise<ApprovalRequest> {
  const options = await engine.passkeys.registrationChallenge(user);
  const { response, credential } = register({ challenge: options.challenge });
  const filing = { response, expectedChallenge: options.challenge, name: 'MacBook' };
  const filed = await engine.passkeys.filePasskey(user, filing);
  if (!filed.ok) throw new Error(filed.problem);
  const late = controls.answerLate('passkeys:', (next) => JSON.stringify(next).includes(credential.id));
  expect(await approveAsSeen(engine, filed.request.id, approver)).toMatchObject({ ok: true });
  await engine.idle();
  expect((await engine.get(filed.request.id))?.state).toBe('outcome-unknown');
  expect(await late.landed()).toBe(true);
  return filed.request;
}

test('a registration whose key a store writer swapped after its write landed is failed, its passkey revoked, no completion on the chain', async ({
  lateEngine,
}) => {
  const { fx, controls, store } = await lateEngine('off');
  const filed = await landedUnanswered(fx.engine, controls, ADE, CHIDI);
  // The store writer's own key, for the credential the bot wrote.
  const forged = new SoftwareAuthenticator({
    user: ADE,
    rpId: TEST_RP_ID,
    origin: TEST_SIGNING.origin,
  }).passkey().publicKey;
  await rewrite(
    store,
    filed.id,
    (stored) => ({ ...stored, payload: { ...stored.payload, publicKey: forged } }) as ApprovalRequest,
    { audited: false },
  );

  await fx.engine.tick();
  await fx.engine.idle();
  const settled = await fx.engine.get(filed.id);
  expect(settled).toMatchObject({ state: 'failed', outcome: { reason: FILING_SEAL_BROKEN } });
  expect(settled?.history.map((h) => h.action)).not.toContain('completed');
  const chain = await fx.engine.audit(100);
  expect(chain.filter((e) => e.requestId === filed.id && e.state === 'completed')).toEqual([]);
  // Its revocation is on the chain: the verifier stops trusting the passkey from there.
  const revoked = chain.find((e) => e.action === PASSKEY_REVOKED_ACTION);
  expect(revoked).toMatchObject({ requestId: filed.id, actor: BY_THE_BOT });
  expect(await fx.engine.passkeys.passkeysOf(ADE)).toEqual([]);
});

test('a first-passkeys click that counted at the write completes the registration, though its passkey closed the click', async ({
  lateEngine,
}) => {
  const { fx, controls } = await lateEngine('all');
  const ades = new SoftwareAuthenticator({ user: ADE, rpId: TEST_RP_ID, origin: TEST_SIGNING.origin });
  await fx.engine.passkeys
    .signatures()
    .book.add({ ...ades.passkey(), addedAt: fx.clock.now().toISOString() });
  fx.clock.advance(1_000);
  // Dayo holds no passkey and one approver does: Dayo's click counts, and Chidi's passkey is the second.
  const filed = await landedUnanswered(fx.engine, controls, CHIDI, DAYO);

  await fx.engine.tick();
  await fx.engine.idle();
  expect((await fx.engine.get(filed.id))?.state).toBe('completed');
  expect((await fx.engine.passkeys.passkeysOf(CHIDI)).map((p) => p.name)).toEqual(['MacBook']);
});

test('a first-passkeys click completes though another first registration, marked before it, landed after it', async ({
  lateEngine,
}) => {
  const { fx, controls } = await lateEngine('all');
  const marked = fx.clock.now().toISOString();
  fx.clock.advance(1_000);
  // Chidi registers and Dayo clicks, as nobody holds a passkey: the click counts at the write.
  const filed = await landedUnanswered(fx.engine, controls, CHIDI, DAYO);
  // Dayo's own registration, marked before Dayo's click, whose write lands only now.
  const dayos = new SoftwareAuthenticator({ user: DAYO, rpId: TEST_RP_ID, origin: TEST_SIGNING.origin });
  await fx.engine.passkeys.signatures().book.add({ ...dayos.passkey(), addedAt: marked });

  await fx.engine.tick();
  await fx.engine.idle();
  expect((await fx.engine.get(filed.id))?.state).toBe('completed');
  const book = await fx.engine.passkeys.signatures().book.all();
  expect(book.filter((p) => p.revoked)).toEqual([]);
});

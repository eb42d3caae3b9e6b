// A new install's first passkeys: a registration approved with a click while fewer than two people
// held a passkey stays good at the executor's check before it is written, even when another
// registration made a second holder in between; a click written into the store once two hold a
// passkey still sends nothing.
import { describe, expect } from 'vitest';
import { ApprovalPolicy, parseSigningRule, parseTiers } from '../../src/access/index.js';
import type { ApprovalEngine } from '../../src/approvals/approval-engine.js';
import { partsOf } from '../../src/approvals/engine-parts.js';
import { ApprovalRepository } from '../../src/approvals/repository.js';
import { EVIDENCE_FAILED } from '../../src/approvals/signed-approvals.js';
import { withApproval } from '../../src/approvals/state-machine.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import { SoftwareAuthenticator } from '../support/authenticator.js';
import { engineTest } from '../support/engine.js';
import { register, TEST_RP_ID, TEST_SIGNING } from '../support/passkey-registration.js';

const ADE = 'U_ADE';
const CHIDI = 'U_CHIDI';
const DAYO = 'U_DAYO';

const test = engineTest.extend('engineOptions', () => ({
  engine: {
    policy: new ApprovalPolicy({ approvers: [ADE, CHIDI, DAYO], tiers: parseTiers('0:1,1000000:3') }),
    signing: { ...TEST_SIGNING, rule: parseSigningRule('all') },
  },
}));

/** `user`'s browser registers a passkey named `name`: the filed request "Register a passkey for @user". */
async function fileRegistration(engine: ApprovalEngine, user: string, name: string) {
  const options = await engine.passkeys.registrationChallenge(user);
  const { response } = register({ challenge: options.challenge });
  const filed = await engine.passkeys.filePasskey(user, {
    response,
    expectedChallenge: options.challenge,
    name,
  });
  if (!filed.ok) throw new Error(filed.problem);
  return filed.request;
}

describe('the first passkeys', () => {
  test('a registration clicked while one person held a passkey is written after a second holder came', async ({
    fx,
  }) => {
    const { core, executor } = partsOf(fx.engine);
    const book = fx.engine.passkeys.signatures().book;
    const ade = new SoftwareAuthenticator({ user: ADE, rpId: TEST_RP_ID, origin: TEST_SIGNING.origin });
    await book.add({ ...ade.passkey(), addedAt: fx.clock.now().toISOString() });
    fx.clock.advance(1_000);
    const chidis = await fileRegistration(fx.engine, CHIDI, "Chidi's phone");
    const dayos = await fileRegistration(fx.engine, DAYO, "Dayo's laptop");
    fx.clock.advance(1_000);
    // Ade approves Dayo's with a click (one holder: first passkeys); its execution has not run yet.
    expect(await approveAsSeen(core, dayos.id, ADE)).toMatchObject({
      ok: true,
      request: { state: 'approved' },
    });
    fx.clock.advance(1_000);
    // Meanwhile Dayo approves Chidi's (still one holder), and it is written: now two hold a passkey.
    expect(await approveAsSeen(fx.engine, chidis.id, DAYO)).toMatchObject({ ok: true });
    await fx.engine.idle();
    expect((await fx.engine.get(chidis.id))?.state).toBe('completed');
    expect(await book.holders()).toBe(2);
    fx.clock.advance(1_000);
    await executor.execute(dayos.id);
    await fx.engine.idle();
    expect(await fx.engine.get(dayos.id)).toMatchObject({ state: 'completed' });
    expect(await fx.engine.passkeys.passkeysOf(DAYO)).toEqual([
      expect.objectContaining({
        name: "Dayo's laptop",
        registration: expect.objectContaining({ approvedBy: [ADE], unsigned: 'first passkeys' }),
      }),
    ]);
  });

  test('a click written into the store on a registration once two hold a passkey sends nothing', async ({
    fx,
  }) => {
    const book = fx.engine.passkeys.signatures().book;
    for (const user of [ADE, CHIDI]) {
      const device = new SoftwareAuthenticator({ user, rpId: TEST_RP_ID, origin: TEST_SIGNING.origin });
      await book.add({ ...device.passkey(), addedAt: fx.clock.now().toISOString() });
    }
    fx.clock.advance(1_000);
    const dayos = await fileRegistration(fx.engine, DAYO, "Dayo's laptop");
    expect(await approveAsSeen(fx.engine, dayos.id, ADE)).toMatchObject({
      ok: false,
      reason: 'signature-required',
    });
    const repo = new ApprovalRepository(fx.store, 'sandbox');
    const stored = await repo.get(dayos.id);
    if (!stored) throw new Error('not stored');
    expect(await repo.saveIf(stored, withApproval(stored, ADE, fx.clock.now()))).toBe(true);
    await partsOf(fx.engine).executor.execute(dayos.id);
    await fx.engine.idle();
    expect(await fx.engine.get(dayos.id)).toMatchObject({
      state: 'failed',
      outcome: { reason: EVIDENCE_FAILED },
    });
    expect(await fx.engine.passkeys.passkeysOf(DAYO)).toEqual([]);
  });
});

// A new install's first passkeys: a registration approved with a click while fewer than two people
// held a passkey is written while that still holds at the executor's check; once two approvers hold a
// passkey, or the click's sealed marker says it closed, no click counts there, whatever its date (the
// store's word), so a backdated click written into the store writes nothing. Such a click is recorded "unsigned: first passkeys" on the request's
// approval step and its audit entry, as in the passkey's record; a signed approval is not.
import { describe, expect } from 'vitest';
import { ApprovalPolicy, parseSigningRule, parseTiers } from '../../src/access/index.js';
import type { ApprovalEngine } from '../../src/approvals/approval-engine.js';
import { partsOf } from '../../src/approvals/engine-parts.js';
import { ApprovalRepository } from '../../src/approvals/repository.js';
import { EVIDENCE_FAILED, FIRST_PASSKEYS_CLOSED } from '../../src/approvals/signed-approvals.js';
import { withApproval } from '../../src/approvals/state-machine.js';
import { threadReply } from '../../src/slack/approvals/blocks/steps.js';
import { approveAsSeen, seenOf } from '../support/approve-as-seen.js';
import { SoftwareAuthenticator } from '../support/authenticator.js';
import { engineTest } from '../support/engine.js';
import { fileRegistration, groupApproversTest } from '../support/passkey-approvers.js';
import { TEST_RP_ID, TEST_SIGNING } from '../support/passkey-registration.js';

const ADE = 'U_ADE';
const CHIDI = 'U_CHIDI';
const DAYO = 'U_DAYO';

const test = engineTest.extend('engineOptions', () => ({
  engine: {
    policy: new ApprovalPolicy({ approvers: [ADE, CHIDI, DAYO], tiers: parseTiers('0:1,1000000:3') }),
    signing: { ...TEST_SIGNING, rule: parseSigningRule('all') },
  },
}));

/** A sealed passkey for `user` in the engine's book, added at `at` (an approved registration's write). */
async function add(engine: ApprovalEngine, user: string, at: Date): Promise<SoftwareAuthenticator> {
  const device = new SoftwareAuthenticator({ user, rpId: TEST_RP_ID, origin: TEST_SIGNING.origin });
  await engine.passkeys.signatures().book.add({ ...device.passkey(), addedAt: at.toISOString() });
  return device;
}

/** The approval step of a registration as recorded: its history entry, its audit entry, its thread reply. */
async function approvalStep(engine: ApprovalEngine, id: string) {
  const request = await engine.get(id);
  if (!request) throw new Error('not stored');
  const index = request.history.findIndex((step) => step.action === 'approved');
  const audited = (await engine.audit(50)).find((e) => e.requestId === id && e.action === 'approved');
  const reply = threadReply({ ...request, history: request.history.slice(0, index + 1) });
  return { step: request.history[index], audited, reply };
}

describe('the first passkeys', () => {
  test('a click on a registration is recorded "unsigned: first passkeys" on its step and in the audit chain; a signed approval is not', async ({
    fx,
  }) => {
    const ades = await fileRegistration(fx.engine, ADE, "Ade's laptop");
    expect(await approveAsSeen(fx.engine, ades.id, CHIDI)).toMatchObject({ ok: true });
    await fx.engine.idle();
    const clicked = await approvalStep(fx.engine, ades.id);
    const label = '1 of 1 · unsigned: first passkeys';
    expect(clicked.step).toMatchObject({ action: 'approved', actor: CHIDI, note: label });
    expect(clicked.audited).toMatchObject({ kind: 'passkey', actor: CHIDI, note: label });
    expect(clicked.reply).toMatch(/^Approved by .+ — 1 of 1 · unsigned: first passkeys$/);
    // Chidi holds one too: two approvers have, so Dayo's registration is approved with Chidi's signature.
    const chidis = await add(fx.engine, CHIDI, fx.clock.now());
    fx.clock.advance(1_000);
    const dayos = await fileRegistration(fx.engine, DAYO, "Dayo's laptop");
    const made = await fx.engine.passkeys.signingChallenge(dayos.id, CHIDI, dayos.round);
    if (!made.ok || !('challenge' in made)) throw new Error(`no challenge: ${JSON.stringify(made)}`);
    const evidence = chidis.assert(made.challenge, made.nonce);
    expect(await fx.engine.approve(dayos.id, CHIDI, { ...seenOf(dayos), evidence })).toMatchObject({
      ok: true,
    });
    await fx.engine.idle();
    expect((await fx.engine.get(dayos.id))?.state).toBe('completed');
    const signed = await approvalStep(fx.engine, dayos.id);
    expect(signed.step).toMatchObject({ action: 'approved', actor: CHIDI, note: '1 of 1' });
    expect(signed.audited).toMatchObject({ actor: CHIDI, note: '1 of 1' });
    const audit = (await fx.engine.audit(50)).filter((e) => e.requestId === dayos.id);
    expect(JSON.stringify(audit)).not.toContain('first passkeys');
    expect((await fx.engine.passkeys.passkeysOf(DAYO))[0]?.registration.unsigned).toBeUndefined();
  });

  test('a registration clicked while one person held a passkey, sent after a second holder came, writes nothing', async ({
    fx,
  }) => {
    const { core, executor } = partsOf(fx.engine);
    const book = fx.engine.passkeys.signatures().book;
    await add(fx.engine, ADE, fx.clock.now());
    fx.clock.advance(1_000);
    const adesPhone = await fileRegistration(fx.engine, ADE, "Ade's phone");
    const chidis = await fileRegistration(fx.engine, CHIDI, "Chidi's phone");
    fx.clock.advance(1_000);
    // Chidi (no passkey) approves Ade's second with a click (one holder: first passkeys); not run yet.
    expect(await approveAsSeen(core, adesPhone.id, CHIDI)).toMatchObject({
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
    // The click's date is the store's word: once two hold a passkey, no click counts at the send.
    await executor.execute(adesPhone.id);
    await fx.engine.idle();
    expect(await fx.engine.get(adesPhone.id)).toMatchObject({
      state: 'failed',
      outcome: { reason: FIRST_PASSKEYS_CLOSED, nothingSent: true },
    });
    expect((await fx.engine.passkeys.passkeysOf(ADE)).map((p) => p.name)).not.toContain("Ade's phone");
  });

  test('an approver who holds a passkey signs a registration: the click is for one who holds none', async ({
    fx,
  }) => {
    await add(fx.engine, ADE, fx.clock.now());
    fx.clock.advance(1_000);
    const dayos = await fileRegistration(fx.engine, DAYO, "Dayo's laptop");
    expect(await approveAsSeen(fx.engine, dayos.id, ADE)).toMatchObject({
      ok: false,
      reason: 'signature-required',
    });
    expect(await approveAsSeen(fx.engine, dayos.id, CHIDI)).toMatchObject({ ok: true });
    await fx.engine.idle();
    expect((await fx.engine.get(dayos.id))?.state).toBe('completed');
  });

  test('revoking passkeys, or deleting them from the store, never opens the click again', async ({ fx }) => {
    const book = fx.engine.passkeys.signatures().book;
    const ade = await add(fx.engine, ADE, fx.clock.now());
    const chidi = await add(fx.engine, CHIDI, fx.clock.now());
    fx.clock.advance(1_000);
    const first = await fileRegistration(fx.engine, DAYO, "Dayo's laptop");
    expect(await fx.engine.passkeys.signatures().required(first)).toBe(true);
    // Any approver may revoke anyone's passkey: both are revoked, so nobody holds one now.
    for (const device of [ade, chidi])
      expect(await book.revoke(device.credentialId, DAYO, fx.clock.now())).toBe(true);
    expect(await book.holders()).toBe(0);
    fx.clock.advance(1_000);
    const again = await fileRegistration(fx.engine, DAYO, "Dayo's phone");
    expect(await fx.engine.passkeys.signatures().required(again)).toBe(true);
    expect(await approveAsSeen(fx.engine, again.id, ADE)).toMatchObject({
      ok: false,
      reason: 'signature-required',
    });
    // The records deleted from the store: the sealed marker keeps the click closed.
    await fx.store.set('passkeys:sandbox', []);
    expect(await fx.engine.passkeys.signatures().required(again)).toBe(true);
  });

  test('a delegate’s passkey does not count towards the two that close the click', async ({ fx }) => {
    await add(fx.engine, ADE, fx.clock.now());
    await add(fx.engine, 'U_EKENE', fx.clock.now());
    fx.clock.advance(1_000);
    const dayos = await fileRegistration(fx.engine, DAYO, "Dayo's laptop");
    expect(await fx.engine.passkeys.signatures().required(dayos)).toBe(false);
  });

  test('a backdated click written into the store after the click closed sends nothing and writes no passkey', async ({
    fx,
  }) => {
    const book = fx.engine.passkeys.signatures().book;
    const yesterday = new Date(fx.clock.now().getTime() - 86_400_000);
    await add(fx.engine, ADE, fx.clock.now());
    await add(fx.engine, CHIDI, fx.clock.now());
    fx.clock.advance(1_000);
    // Filing one checks the click, and closes it for good (sealed marker).
    const attackers = await fileRegistration(fx.engine, ADE, 'not Ade’s');
    expect(await fx.engine.passkeys.signatures().required(attackers)).toBe(true);
    expect(await book.clickClosedAt()).toBeDefined();
    const repo = new ApprovalRepository(fx.store, 'sandbox');
    /** The store writer dates the registration and Chidi's click to yesterday, before anyone held one. */
    const backdate = async (id: string) => {
      const stored = await repo.get(id);
      if (!stored) throw new Error('not stored');
      const dated = { ...stored, createdAt: new Date(yesterday.getTime() - 1_000).toISOString() };
      expect(await repo.saveIf(stored, withApproval(dated, CHIDI, yesterday))).toBe(true);
      await partsOf(fx.engine).executor.execute(id);
      await fx.engine.idle();
    };
    await backdate(attackers.id);
    expect(await fx.engine.get(attackers.id)).toMatchObject({
      state: 'failed',
      outcome: { reason: FIRST_PASSKEYS_CLOSED, nothingSent: true },
    });
    expect((await fx.engine.passkeys.passkeysOf(ADE)).map((p) => p.name)).not.toContain('not Ade’s');
    // The marker deleted too: two approvers hold passkeys now, so the click still does not count.
    await fx.store.delete('passkeys:sandbox:click-closed');
    expect(await book.clickClosedAt()).toBeUndefined();
    const again = await fileRegistration(fx.engine, ADE, 'not Ade’s either');
    await fx.store.delete('passkeys:sandbox:click-closed');
    await backdate(again.id);
    expect(await fx.engine.get(again.id)).toMatchObject({
      state: 'failed',
      outcome: { reason: FIRST_PASSKEYS_CLOSED, nothingSent: true },
    });
    expect(await fx.engine.passkeys.passkeysOf(ADE)).toHaveLength(1);
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

describe('the first passkeys, once two approvers have held one', () => {
  const EMEKA = 'U_EMEKA';
  /** Chidi is an approver through the treasury group, which he leaves later. */
  const groupTest = groupApproversTest([ADE, DAYO, EMEKA], [CHIDI]);

  groupTest(
    'the second holder’s registration closes the click for good: their leaving the approvers does not reopen it',
    async ({ fx, group }) => {
      const book = fx.engine.passkeys.signatures().book;
      const ade = await add(fx.engine, ADE, fx.clock.now());
      fx.clock.advance(1_000);
      // Chidi registers the second passkey; Ade signs it: two approvers have now held one.
      const chidis = await fileRegistration(fx.engine, CHIDI, "Chidi's laptop");
      const made = await fx.engine.passkeys.signingChallenge(chidis.id, ADE, chidis.round);
      if (!made.ok || !('challenge' in made)) throw new Error(`no challenge: ${JSON.stringify(made)}`);
      const evidence = ade.assert(made.challenge, made.nonce);
      expect(await fx.engine.approve(chidis.id, ADE, { ...seenOf(chidis), evidence })).toMatchObject({
        ok: true,
      });
      await fx.engine.idle();
      expect((await fx.engine.get(chidis.id))?.state).toBe('completed');
      expect(await book.clickClosedAt()).toBeDefined();
      fx.clock.advance(60_000);
      // Chidi leaves the treasury group; Emeka (no passkey) registers, and Dayo (none either) clicks.
      group.length = 0;
      const emekas = await fileRegistration(fx.engine, EMEKA, "Emeka's laptop");
      expect(await approveAsSeen(fx.engine, emekas.id, DAYO)).toMatchObject({
        ok: false,
        reason: 'signature-required',
      });
      await fx.engine.idle();
      expect(await fx.engine.passkeys.passkeysOf(EMEKA)).toEqual([]);
    },
  );

  groupTest(
    'a book showing two approvers who held passkeys, with no marker, closes the click at the next check',
    async ({ fx }) => {
      const { core, executor } = partsOf(fx.engine);
      const book = fx.engine.passkeys.signatures().book;
      // Emeka's registration was clicked while the click was open, and not yet written.
      const emekas = await fileRegistration(fx.engine, EMEKA, "Emeka's laptop");
      expect(await approveAsSeen(core, emekas.id, DAYO)).toMatchObject({ request: { state: 'approved' } });
      fx.clock.advance(1_000);
      await add(fx.engine, ADE, fx.clock.now());
      const chidi = await add(fx.engine, CHIDI, fx.clock.now());
      // Written by a build that closed the click only at a later registration's check; Chidi's revoked.
      await fx.store.delete('passkeys:sandbox:click-closed');
      await book.revoke(chidi.passkey().credentialId, CHIDI, fx.clock.now());
      // The send's check closes it (two approvers have held one): the click no longer counts.
      await executor.execute(emekas.id);
      await fx.engine.idle();
      expect(await book.clickClosedAt()).toBeDefined();
      expect(await fx.engine.passkeys.passkeysOf(EMEKA)).toEqual([]);
    },
  );
});

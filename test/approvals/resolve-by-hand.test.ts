// A person resolves by hand only what the bot cannot settle itself: a delegation (or an unfreeze, or a
// passkey registration) takes effect in the bot's own store or not at all, and the sweep settles it
// from there, so no one's word may mark one "completed" that the store never recorded (it would be read
// by id at a send, and no revocation would reach it), nor "failed" before the store bars a late write.
import { describe, expect } from 'vitest';
import { partsOf } from '../../src/approvals/engine-parts.js';
import { ApprovalRepository } from '../../src/approvals/repository.js';
import { createStore } from '../../src/store/index.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import { register, TEST_SIGNING } from '../support/passkey-registration.js';
import { StoreControls } from '../support/store-controls.js';
import { ADE, BOLA, CHIDI, DAY, DAYO, policy, test } from './delegation-support.js';

describe('resolving by hand', () => {
  test('refuses a delegation of unknown outcome: the bot settles it from its store', async ({ fx }) => {
    const filed = await fx.engine.fileDelegation(CHIDI, BOLA, new Date(fx.clock.now().getTime() + DAY));
    // Its write interrupted, as the store records it: of unknown outcome, never recorded in the book.
    const repo = new ApprovalRepository(fx.store, 'sandbox');
    const stored = await repo.get(filed.id);
    if (!stored) throw new Error('not stored');
    expect(await repo.saveIf(stored, { ...stored, state: 'outcome-unknown' })).toBe(true);
    expect(await fx.engine.resolveByHand(filed.id, DAYO, 'completed', 'looks fine to me')).toMatchObject({
      ok: false,
      reason: 'settled-by-the-bot',
    });
    expect(await fx.engine.resolveByHand(filed.id, ADE, 'failed', 'not in effect')).toMatchObject({
      ok: false,
      reason: 'settled-by-the-bot',
    });
    expect((await fx.engine.get(filed.id))?.state).toBe('outcome-unknown');
    expect(await partsOf(fx.engine).core.delegations.all()).toEqual([]);
  });

  test('refuses a passkey registration of unknown outcome: its late write would count', async ({
    startEngine,
    defer,
  }) => {
    const store = await createStore('memory://');
    defer(() => store.close());
    const controls = new StoreControls();
    const options = { engine: { policy: policy(), signing: TEST_SIGNING } };
    const { engine } = await startEngine({ ...options, store: controls.wrap(store) });
    const challenge = await engine.passkeys.registrationChallenge(ADE);
    const { response, credential } = register({ challenge: challenge.challenge });
    const filed = await engine.passkeys.filePasskey(ADE, {
      response,
      expectedChallenge: challenge.challenge,
      name: "Ade's MacBook",
    });
    if (!filed.ok) throw new Error(filed.problem);
    // Its write to the book answered with an error, the store still running it.
    const late = controls.answerLate('passkeys:', (next) => JSON.stringify(next).includes(credential.id));
    expect((await approveAsSeen(engine, filed.request.id, CHIDI)).ok).toBe(true);
    await engine.idle();
    expect((await engine.get(filed.request.id))?.state).toBe('outcome-unknown');
    expect(await engine.resolveByHand(filed.request.id, DAYO, 'failed', 'not in the book')).toMatchObject({
      ok: false,
      reason: 'settled-by-the-bot',
    });
    expect((await engine.get(filed.request.id))?.state).toBe('outcome-unknown');
    // The late write lands: the sweep finds it and settles the request as it is, completed.
    expect(await late.landed()).toBe(true);
    await engine.tick();
    expect((await engine.get(filed.request.id))?.state).toBe('completed');
    expect((await engine.passkeys.passkeysOf(ADE)).map((k) => k.name)).toEqual(["Ade's MacBook"]);
  });
});

// A write to the bot's own store that went unanswered (a query timeout on the bot's side, the
// statement still running in the store), on every store kind, with the sweep on another replica: an
// unfreeze or a passkey registration is called failed only once its write is barred, so the write,
// landing afterwards, changes nothing. (The same on one replica, told to people: freeze.test.ts and
// passkey-requests.test.ts.)
import { describe, expect } from 'vitest';
import { approveAsSeen } from '../support/approve-as-seen.js';
import { APPROVER_A, APPROVER_B, engineTest, twoNetworks, withdrawalDraft } from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { register, TEST_SIGNING } from '../support/passkey-registration.js';
import { STORE_KINDS } from '../support/shared-stores.js';
import { StoreControls } from '../support/store-controls.js';

/** Replica A executes (its store's chosen write is answered late), replica B sweeps. */
const test = engineTest.extend('pair', async ({ replicas, startEngine }) => {
  return async (name: string) => {
    const { a, b } = await replicas(`unanswered-${name}`);
    const controls = new StoreControls();
    const options = { engine: { signing: TEST_SIGNING } };
    const executing = await startEngine({ ...options, store: controls.wrap(a) });
    const sweeping = await startEngine({ ...options, store: b });
    return { executing, sweeping, controls };
  };
});

for (const kind of STORE_KINDS) {
  describe.skipIf(!kind.up)(`a write answered late on ${kind.name}`, () => {
    test.override('storeKind', kind.name);

    test('leaves the freeze in place once the unfreeze is failed, and sends nothing held', async ({
      pair,
      sandbox,
    }) => {
      const { executing, sweeping, controls } = await pair('unfreeze');
      const [networkId] = await twoNetworks(executing.client);
      await executing.engine.freezeSends(APPROVER_B, 'checking a look-alike address');
      const held = await fileDraft(executing.engine, withdrawalDraft(networkId, '1500.50'));
      await approveAsSeen(executing.engine, held.id, APPROVER_A);
      await executing.engine.idle();
      const lifting = (next: unknown) => (next as { state?: string }).state === 'lifted';
      const late = controls.answerLate('approvals:freeze:', lifting);
      const filed = await executing.engine.fileUnfreeze(APPROVER_B);
      if (!filed.ok) throw new Error('not filed');
      await approveAsSeen(executing.engine, filed.request.id, APPROVER_A);
      await executing.engine.idle();
      await sweeping.engine.tick();
      await sweeping.engine.idle();
      expect(await sweeping.engine.get(filed.request.id)).toMatchObject({ state: 'failed' });
      expect(await late.landed()).toBe(false);
      expect(await sweeping.engine.currentFreeze()).toBeDefined();
      expect(await executing.engine.currentFreeze()).toBeDefined();
      for (const replica of [sweeping, executing]) {
        await replica.engine.tick();
        await replica.engine.idle();
      }
      expect((await sweeping.engine.get(held.id))?.state).toBe('approved');
      expect(sandbox.count('POST', '/v1/api/withdraw')).toBe(0);
    });

    test('never lets a failed passkey registration count', async ({ pair }) => {
      const { executing, sweeping, controls } = await pair('passkey');
      const options = await executing.engine.passkeys.registrationChallenge(APPROVER_B);
      const { response, credential } = register({ challenge: options.challenge });
      const filing = { response, expectedChallenge: options.challenge, name: "Bola's MacBook" };
      const filed = await executing.engine.passkeys.filePasskey(APPROVER_B, filing);
      if (!filed.ok) throw new Error(filed.problem);
      const late = controls.answerLate('passkeys:', (next) => JSON.stringify(next).includes(credential.id));
      await approveAsSeen(executing.engine, filed.request.id, APPROVER_A);
      await executing.engine.idle();
      await sweeping.engine.tick();
      expect(await sweeping.engine.get(filed.request.id)).toMatchObject({ state: 'failed' });
      expect(await late.landed()).toBe(false);
      expect(await sweeping.engine.passkeys.passkeysOf(APPROVER_B)).toEqual([]);
      expect(await executing.engine.passkeys.passkeysOf(APPROVER_B)).toEqual([]);
    });
  });
}

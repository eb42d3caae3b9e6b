// A freeze racing a send, on every store kind, with the freeze made on another replica: landing
// between the executor's read of the freeze and its sending mark, it still stops the send (the claim
// it ends refuses the mark); landing just after the mark, it names that send as under way, and that
// one call goes out. Either way `/cngn freeze` has answered before anything else is sent.
import { describe, expect } from 'vitest';
import { HELD_ACTION } from '../../src/approvals/index.js';
import type { Store } from '../../src/store/index.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import { APPROVER_A, APPROVER_B, engineTest, twoNetworks, withdrawalDraft } from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { STORE_KINDS } from '../support/shared-stores.js';

interface Race {
  /** Run once, just before the next sending mark is written on a claim (after the freeze was read). */
  beforeMark?: () => Promise<void>;
  /** Run once, just after it. */
  afterMark?: () => Promise<void>;
}

/** The store of a replica whose next sending mark runs the race's steps around it. */
function racing(store: Store, race: Race): Store {
  return new Proxy(store, {
    get: (target, property) => {
      if (property === 'compareAndSet') {
        return async (key: string, expected: unknown, next: unknown) => {
          const marking = key.startsWith('approval-exec:') && (next as { sending?: boolean }).sending;
          const { beforeMark, afterMark } = marking ? race : {};
          if (marking) {
            race.beforeMark = undefined;
            race.afterMark = undefined;
          }
          await beforeMark?.();
          const written = await target.compareAndSet(key, expected, next);
          await afterMark?.();
          return written;
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** Replica A sends (its store races), replica B freezes; a withdrawal to file. */
const test = engineTest.extend('pair', async ({ replicas, startEngine }) => {
  return async (name: string) => {
    const { a, b } = await replicas(`freeze-race-${name}`);
    const race: Race = {};
    const sender = await startEngine({ store: racing(a, race) });
    const freezer = await startEngine({ store: b });
    const [networkId] = await twoNetworks(sender.client);
    return { sender, freezer, race, withdrawal: (amount: string) => withdrawalDraft(networkId, amount) };
  };
});

for (const kind of STORE_KINDS) {
  describe.skipIf(!kind.up)(`a freeze racing a send on ${kind.name}`, () => {
    test.override('storeKind', kind.name);

    test('sends nothing when the freeze lands between the executor reading it and marking its claim', async ({
      pair,
      sandbox,
    }) => {
      const { sender, freezer, race, withdrawal } = await pair('between');
      const request = await fileDraft(sender.engine, withdrawal('3000'));
      let answered: unknown;
      race.beforeMark = async () => {
        answered = await freezer.engine.freezeSends(APPROVER_B, 'stop everything');
      };
      await approveAsSeen(sender.engine, request.id, APPROVER_A);
      await sender.engine.idle();
      expect(answered).toMatchObject({ ok: true, underway: [] });
      expect(sandbox.count('POST', '/v1/api/withdraw')).toBe(0);
      const held = await sender.engine.get(request.id);
      expect(held?.state).toBe('approved');
      expect(held?.history.at(-1)?.action).toBe(HELD_ACTION);
    });

    test('names a send already marked when the freeze came, and lets that one call go out', async ({
      pair,
      sandbox,
    }) => {
      const { sender, freezer, race, withdrawal } = await pair('after');
      const request = await fileDraft(sender.engine, withdrawal('3100'));
      let answered: unknown;
      race.afterMark = async () => {
        answered = await freezer.engine.freezeSends(APPROVER_B, 'stop everything');
      };
      await approveAsSeen(sender.engine, request.id, APPROVER_A);
      await sender.engine.idle();
      expect(answered).toMatchObject({ ok: true, underway: [request.id] });
      expect(sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
      expect((await sender.engine.get(request.id))?.state).toBe('sent');
    });
  });
}

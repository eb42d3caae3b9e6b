// Ending the delegations of someone who may no longer act (made a guest, deactivated, of another
// workspace) against a delegation of theirs waiting for approval and approved at that moment: the
// approval is made to land just after the bot has read which delegations are live. The waiting ones are
// cancelled before that read, so the approval comes too late and nothing of theirs is left in effect
// (cancelled after it, the approved one would be neither read as live nor still waiting).
import { describe, expect } from 'vitest';
import { ApprovalPolicy, parseTiers } from '../../src/access/index.js';
import { createStore } from '../../src/store/index.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import { engineTest as test } from '../support/engine.js';

const ADE = 'U_ADE'; // approver
const CHIDI = 'U_CHIDI'; // approver, away
const BOLA = 'U_BOLA'; // Chidi's delegate, made a guest
const DAY = 86_400_000;

describe('ending the delegations of someone who may no longer act', () => {
  test('leaves none in effect when a waiting one is approved just after the live ones were read', async ({
    startEngine,
    defer,
  }) => {
    const store = await createStore('memory://');
    defer(() => store.close());
    // Armed, the next read of the delegation index runs `meanwhile` once it has read (so what it
    // returns is from before), then answers.
    let meanwhile: (() => Promise<void>) | undefined;
    const watched = new Proxy(store, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver);
        if (typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          const result = await value.apply(target, args);
          const run = meanwhile;
          if (run && key === 'setMembers' && String(args[0]).startsWith('delegations:')) {
            meanwhile = undefined;
            await run();
          }
          return result;
        };
      },
    });
    const policy = new ApprovalPolicy({ approvers: [ADE, CHIDI], tiers: parseTiers('0:1') });
    const fx = await startEngine({ store: watched, engine: { policy } });
    const engine = fx.engine;
    const filed = await engine.fileDelegation(CHIDI, BOLA, new Date(fx.clock.now().getTime() + 3 * DAY));
    const approving: Array<{ ok: boolean }> = [];
    meanwhile = async () => {
      approving.push(await approveAsSeen(engine, filed.id, ADE));
      await engine.idle();
    };

    const done = await engine.endDelegationsOf(BOLA, 'is a guest of the workspace');
    await engine.idle();
    expect(approving).toHaveLength(1); // the approval did come between the two passes

    expect(await engine.liveDelegations()).toEqual([]);
    expect(done.map((r) => r.id)).toEqual([filed.id]);
    const after = await engine.get(filed.id);
    expect(after?.history.at(-1)).toMatchObject({
      action: 'delegation-withdrawn',
      note: 'cancelled by the bot: its delegate is a guest of the workspace',
    });
    expect(approving[0]).toMatchObject({ ok: false });
    expect(await engine.openRequests()).toEqual([]);
  });
});

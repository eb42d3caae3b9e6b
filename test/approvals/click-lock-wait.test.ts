// A click's wait for the request's lock (Approve, Reject, Cancel) ends at its write deadline
// (`writeBy`): the request is then read without the lock, and a refusal the read makes certain (gone,
// moved on, a Cancel by someone else) is said, with nothing written; otherwise the click
// fails, and nothing is written once the lock is let go. A lock that times out inside the click's
// section (a delegate's) is the section's failure, never taken for the request lock's own wait.
import { describe, expect } from 'vitest';
import type { ApprovalEngine } from '../../src/approvals/approval-engine.js';
import { delegationsLockName } from '../../src/approvals/delegation-requests.js';
import { partsOf } from '../../src/approvals/engine-parts.js';
import type { ApprovalRequest } from '../../src/approvals/index.js';
import { transition } from '../../src/approvals/state-machine.js';
import { createStore, LockTimeoutError, type Store } from '../../src/store/index.js';
import { approveAsSeen, rejectAsSeen } from '../support/approve-as-seen.js';
import {
  APPROVER_A,
  APPROVER_B,
  engineTest,
  OUTSIDER,
  REQUESTER,
  twoNetworks,
  withdrawalDraft,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { StoreControls } from '../support/store-controls.js';

/** An engine (one approval sends) on a memory store the test controls, and a withdrawal to file. */
const test = engineTest.extend('controlled', async ({ startEngine, defer }) => {
  const store = await createStore('memory://');
  defer(() => store.close());
  const controls = new StoreControls();
  const fx = await startEngine({ store: controls.wrap(store), tiers: '0:1' });
  const [networkId] = await twoNetworks(fx.client);
  const file = async (amount: string) => (await fileDraft(fx.engine, withdrawalDraft(networkId, amount))).id;
  return { fx, store, controls, file };
});

/** Someone else holds the request's lock until `letGo` (resolved once they hold it). */
async function holdRequestLock(store: Store, id: string) {
  let letGo!: () => void;
  let holding!: Promise<void>;
  await new Promise<void>((held) => {
    holding = store.withLock(`approval:${id}`, async () => {
      held();
      await new Promise<void>((done) => (letGo = done));
    });
  });
  return {
    /** Let go, then take the lock once more: a click still waiting for it would have had its turn. */
    release: async () => {
      letGo();
      await holding;
      await store.withLock(`approval:${id}`, async () => {});
    },
  };
}

/** Approver B's Reject, or the requester's Cancel, with its write deadline. */
function closeClick(engine: ApprovalEngine, action: 'Reject' | 'Cancel', id: string, writeBy: number) {
  return action === 'Reject'
    ? rejectAsSeen(engine, id, APPROVER_B, 'wrong address', { writeBy })
    : engine.cancel(id, REQUESTER, { writeBy });
}

describe('a Reject or Cancel whose wait for the request’s lock outlasts its write deadline', () => {
  test.for(['Reject', 'Cancel'] as const)(
    '%s gives up at it and says a request being sent is too late to stop, lock still held',
    async (action, { controlled: { fx, store, file } }) => {
      const id = await file('1500');
      expect(await approveAsSeen(fx.engine, id, APPROVER_A)).toMatchObject({ ok: true });
      await fx.engine.idle();
      const sent = await fx.engine.get(id);
      expect(sent?.state).toBe('sent');
      const lock = await holdRequestLock(store, id);
      const answer = await closeClick(fx.engine, action, id, Date.now());
      expect(answer).toMatchObject({ ok: false, reason: 'already-sending', request: { state: 'sent' } });
      await lock.release();
      expect(await fx.engine.get(id)).toEqual(sent);
    },
  );

  test.for(['Reject', 'Cancel'] as const)(
    '%s of a request still waiting fails with nothing recorded, and writes nothing once the lock is let go',
    async (action, { controlled: { fx, store, file } }) => {
      const id = await file('1600');
      const waiting = await fx.engine.get(id);
      const lock = await holdRequestLock(store, id);
      const click = closeClick(fx.engine, action, id, Date.now());
      await expect(click).rejects.toBeInstanceOf(LockTimeoutError);
      await lock.release();
      expect(await fx.engine.get(id)).toEqual(waiting);
    },
  );
});

/** Someone's Approve, Reject or Cancel of request `id`, with its write deadline. */
function click(engine: ApprovalEngine, action: 'Approve' | 'Reject' | 'Cancel', id: string, user: string) {
  const writeBy = Date.now();
  if (action === 'Approve') return approveAsSeen(engine, id, user, { writeBy });
  if (action === 'Reject') return rejectAsSeen(engine, id, user, 'wrong address', { writeBy });
  return engine.cancel(id, user, { writeBy });
}

/** Who clicks: an approver for Approve and Reject, the requester for Cancel. */
const clicker = { Approve: APPROVER_A, Reject: APPROVER_B, Cancel: REQUESTER } as const;

describe('a click whose wait for the request’s lock ended, where a read alone tells the refusal', () => {
  test.for(['Approve', 'Reject', 'Cancel'] as const)(
    '%s of a request that does not exist is told it no longer exists, as under the lock',
    async (action, { controlled: { fx, store } }) => {
      const lock = await holdRequestLock(store, 'no-such-request');
      const answer = await click(fx.engine, action, 'no-such-request', clicker[action]);
      expect(answer).toEqual({ ok: false, reason: 'not-found' });
      await lock.release();
    },
  );

  test.for(['Approve', 'Reject', 'Cancel'] as const)(
    '%s of a request read pending past its expiry is not told it expired: the lock’s holder may still approve it',
    async (action, { controlled: { fx, store, file } }) => {
      const id = await file('1800');
      const waiting = await fx.engine.get(id);
      fx.clock.advance(24 * 3_600_000);
      const lock = await holdRequestLock(store, id);
      await expect(click(fx.engine, action, id, clicker[action])).rejects.toBeInstanceOf(LockTimeoutError);
      await lock.release();
      expect(await fx.engine.get(id)).toEqual(waiting);
    },
  );

  test('Cancel by someone other than the requester is told only the requester can, and nothing is written', async ({
    controlled: { fx, store, file },
  }) => {
    const id = await file('1900');
    const waiting = await fx.engine.get(id);
    const lock = await holdRequestLock(store, id);
    const answer = await click(fx.engine, 'Cancel', id, APPROVER_B);
    expect(answer).toMatchObject({ ok: false, reason: 'not-requester', request: { id, state: 'pending' } });
    await lock.release();
    expect(await fx.engine.get(id)).toEqual(waiting);
  });

  test.for(['Approve', 'Reject'] as const)(
    '%s by someone who is not an approver still fails with nothing recorded: only the locked section judges the policy',
    async (action, { controlled: { fx, store, file } }) => {
      const id = await file('2000');
      const waiting = await fx.engine.get(id);
      const lock = await holdRequestLock(store, id);
      await expect(click(fx.engine, action, id, OUTSIDER)).rejects.toBeInstanceOf(LockTimeoutError);
      await lock.release();
      expect(await fx.engine.get(id)).toEqual(waiting);
    },
  );
});

describe('a lock timing out inside a click’s section (the delegations lock of a non-approver)', () => {
  /** As another replica under a lapsed lock would: the request is rejected while the click's section runs. */
  const rejectMeanwhile = (fx: { engine: object }, id: string) => async () => {
    const { core } = partsOf(fx.engine);
    const read = (await core.get(id)) as ApprovalRequest;
    const rejected = transition(read, 'rejected', { action: 'rejected', actor: APPROVER_B, at: new Date() });
    expect(await core.repo.saveIf(read, rejected)).toBe(true);
  };

  test.for(['Approve', 'Reject'] as const)(
    'fails the %s as it is, not answered from a read as if the request lock’s wait had ended',
    async (action, { controlled: { fx, controls, file } }) => {
      const id = await file('1700');
      const { environment } = partsOf(fx.engine).core.options.custody;
      controls.timeOutLock(delegationsLockName(environment), rejectMeanwhile(fx, id));
      const writeBy = Date.now() + 60_000;
      const click =
        action === 'Approve'
          ? approveAsSeen(fx.engine, id, OUTSIDER, { writeBy })
          : rejectAsSeen(fx.engine, id, OUTSIDER, 'wrong address', { writeBy });
      await expect(click).rejects.toBeInstanceOf(LockTimeoutError);
      expect((await fx.engine.get(id))?.history.map((h) => h.action)).toEqual(['filed', 'rejected']);
    },
  );
});

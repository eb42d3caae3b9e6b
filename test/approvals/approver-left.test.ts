// An approval counts only while the approver it counts for is still in the pool: an approver taken out
// of the approver group after approving sends the request back before anything is sent (at the last
// approval, or when a freeze holding it is lifted), a final approver taken out during the re-check of
// a redemption is refused, and a delegate's approval counts while its delegator is in the pool, even
// once the delegation's window has ended. The check before sending never waits on Slack: it judges on
// the group's last known members (read again first, for a short while at most), and an approver whose
// membership was never known still counts. A final approver whose place cannot be read again after the
// re-check leaves no hold behind, and is told of that failure even when lifting the hold fails too.
import { expect } from 'vitest';
import { ApprovalPolicy, ApproverPools, GroupMembers, parseTiers } from '../../src/access/index.js';
import type { EngineLog } from '../../src/approvals/index.js';
import { createStore, type Store } from '../../src/store/index.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import { redemptionDraft } from '../support/drafts.js';
import {
  type EngineFixture,
  engineTest,
  REQUESTER,
  withdrawalDraft,
  withdrawCalls,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { DAY, delegate } from './delegation-support.js';

const GROUP = 'S_APPROVERS';
const ADA = 'U_ADA';
const BAYO = 'U_BAYO';
const CHI = 'U_CHI';
const DELE = 'U_DELE'; // not an approver: Chi's delegate

/**
 * `members`, the approver group's members, changed by a test at run time; the engine's policy reads
 * them afresh at every question (no cache), as the bot does once its two minutes have passed.
 */
const test = engineTest
  .extend('members', () => new Set([ADA, BAYO, CHI]))
  .extend('engineOptions', ({ members }) => ({
    engine: {
      policy: new ApprovalPolicy({
        approvers: [],
        approverGroup: GROUP,
        groupMembers: async () => [...members],
        groupCacheMs: 0,
        tiers: parseTiers('0:1,1000000:2'),
      }),
    },
  }));

/** The request is back with its approvers, its reason saying why and its audited note who left; nothing was sent. */
async function expectSentBack(fx: EngineFixture, id: string, person: string) {
  await fx.engine.idle();
  const after = await fx.engine.get(id);
  expect(after).toMatchObject({ state: 'pending', round: 1, approvals: [] });
  expect(after?.reason).toBe(
    'one approval no longer counts because the person it was given for is no longer an approver for withdrawals; approve again',
  );
  const entry = (await fx.engine.audit(50)).find((e) => e.requestId === id && e.action === 'sent-back');
  // Who left is the entry's subject; the note is plain words, shown escaped wherever it is shown.
  expect(entry?.subject).toBe(person);
  expect(entry?.note).not.toContain('<@');
  expect(after?.history.at(-1)).toMatchObject({ action: 'sent-back', leftPool: person });
  expect(withdrawCalls(fx)).toBe(0);
}

test('sends a withdrawal back when its first approver left the pool before the last approval', async ({
  fx,
  members,
  networkId,
}) => {
  const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '50000000'));
  expect(await approveAsSeen(fx.engine, request.id, ADA)).toMatchObject({ ok: true });
  members.delete(ADA);
  expect(await approveAsSeen(fx.engine, request.id, BAYO)).toMatchObject({ ok: true });
  await expectSentBack(fx, request.id, ADA);
});

test('sends an approved withdrawal back when its approver left the pool before the freeze was lifted', async ({
  fx,
  members,
  networkId,
}) => {
  await fx.engine.freezeSends(BAYO, 'checking a look-alike address');
  const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '1500'));
  expect(await approveAsSeen(fx.engine, request.id, ADA)).toMatchObject({ ok: true });
  await fx.engine.idle();
  expect((await fx.engine.get(request.id))?.state).toBe('approved');
  members.delete(ADA);
  const lift = await fx.engine.fileUnfreeze(BAYO);
  if (!lift.ok) throw new Error(`unfreeze not filed: ${lift.reason}`);
  expect(await approveAsSeen(fx.engine, lift.request.id, CHI)).toMatchObject({ ok: true });
  await fx.engine.idle();
  expect((await fx.engine.get(lift.request.id))?.state).toBe('completed');
  await expectSentBack(fx, request.id, ADA);
});

test('sends a withdrawal back when the approver a delegate approved for left the pool', async ({
  fx,
  members,
  networkId,
}) => {
  await delegate(fx, CHI, DELE, { approver: ADA });
  const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '50000000'));
  expect(await approveAsSeen(fx.engine, request.id, DELE)).toMatchObject({ ok: true });
  members.delete(CHI);
  expect(await approveAsSeen(fx.engine, request.id, BAYO)).toMatchObject({ ok: true });
  await expectSentBack(fx, request.id, CHI);
});

test("counts a delegate's approval given within the window after the window ended", async ({
  fx,
  networkId,
}) => {
  await delegate(fx, CHI, DELE, { approver: ADA, days: 0.5 });
  const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '50000000'));
  expect(await approveAsSeen(fx.engine, request.id, DELE)).toMatchObject({ ok: true });
  fx.clock.advance(DAY / 2 + 60_000);
  expect(await fx.engine.liveDelegations()).toEqual([]);
  expect(await approveAsSeen(fx.engine, request.id, BAYO)).toMatchObject({ ok: true });
  await fx.engine.idle();
  expect((await fx.engine.get(request.id))?.round).toBe(0);
  expect(withdrawCalls(fx)).toBe(1);
});

test('refuses a final approval of a redemption whose approver left the pool during its re-check', async ({
  fx,
  members,
}) => {
  fx.sandbox.setAccountName('0123456789', 'ADA OBI');
  const request = await fileDraft(fx.engine, redemptionDraft(REQUESTER));
  const check = fx.sandbox.hold('POST', '/v1/api/account/verify');
  const approving = approveAsSeen(fx.engine, request.id, ADA); // final: the figures are read again first
  await check.arrived;
  members.delete(ADA);
  check.release();
  expect(await approving).toMatchObject({ ok: false, reason: 'not-approver' });
  await fx.engine.idle();
  const after = await fx.engine.get(request.id);
  expect(after).toMatchObject({ state: 'pending', round: 0, approvals: [] });
  expect(after?.checking).toBeUndefined();
  expect(fx.sandbox.count('POST', '/v1/api/redeemAsset')).toBe(0);
});

/**
 * The approver group as Slack answers its reads: its members, an answer without them ('unknown', as
 * before the client is there), no answer until the test ends ('hang', Slack unreachable and retrying),
 * or an error ('fail').
 */
class SlackGroup {
  readonly members = new Set([ADA]);
  answer: 'members' | 'unknown' | 'hang' | 'fail' = 'members';
  private readonly hung: Array<() => void> = [];

  readonly read = (): Promise<string[] | undefined> => {
    if (this.answer === 'unknown') return Promise.resolve(undefined);
    if (this.answer === 'fail') return Promise.reject(new Error('usergroups.users.list: ratelimited'));
    if (this.answer === 'hang')
      return new Promise((answer) => this.hung.push(() => answer([...this.members])));
    return Promise.resolve([...this.members]);
  };

  release(): void {
    for (const answer of this.hung.splice(0)) answer();
  }
}

/** Bayo and Chi approve by name (no group read needed for them); Ada through the group, read at every question. */
const slackPolicy = (group: SlackGroup) =>
  new ApprovalPolicy({
    approvers: [],
    tiers: parseTiers('0:1,1000000:2'),
    pools: new ApproverPools(
      { approvers: [BAYO, CHI], approverGroup: GROUP },
      new GroupMembers({ read: group.read, cacheMs: 0 }),
    ),
  });

/** A short bound on the group read before sending, so a hung read costs the test milliseconds. */
const BOUND_MS = 20;

/** `group`, the approver group as Slack answers it (hung reads answered when the test ends). */
const slackTest = engineTest
  .extend('group', async ({ defer }) => {
    const group = new SlackGroup();
    defer(() => group.release());
    return group;
  })
  .extend('engineOptions', ({ group }) => ({
    engine: { policy: slackPolicy(group), poolReadBoundMs: BOUND_MS },
  }));

slackTest(
  'sends back a held request whose approver left the group, seen only by the read before sending',
  async ({ fx, group, networkId }) => {
    await fx.engine.freezeSends(BAYO, 'checking a look-alike address');
    const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '1500'));
    expect(await approveAsSeen(fx.engine, request.id, ADA)).toMatchObject({ ok: true });
    await fx.engine.idle();
    group.members.delete(ADA); // nobody reads the group again before the claim's own read
    const lift = await fx.engine.fileUnfreeze(BAYO);
    if (!lift.ok) throw new Error(`unfreeze not filed: ${lift.reason}`);
    expect(await approveAsSeen(fx.engine, lift.request.id, CHI)).toMatchObject({ ok: true });
    await expectSentBack(fx, request.id, ADA);
  },
);

slackTest(
  'sends a request approved through the group after a restart that cannot read the group yet',
  async ({ fx, networkId }) => {
    await fx.engine.freezeSends(BAYO, 'checking a look-alike address');
    const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '1500'));
    expect(await approveAsSeen(fx.engine, request.id, ADA)).toMatchObject({ ok: true });
    await fx.engine.idle();
    expect((await fx.engine.get(request.id))?.state).toBe('approved');
    const restarted = new SlackGroup();
    restarted.answer = 'unknown'; // no Slack client yet: the group was never read by this process
    const { engine } = await fx.another({
      engine: { policy: slackPolicy(restarted), poolReadBoundMs: BOUND_MS },
    });
    try {
      const lift = await engine.fileUnfreeze(BAYO);
      if (!lift.ok) throw new Error(`unfreeze not filed: ${lift.reason}`);
      expect(await approveAsSeen(engine, lift.request.id, CHI)).toMatchObject({ ok: true });
      await engine.idle();
      expect((await engine.get(lift.request.id))?.state).toBe('completed');
      expect(await engine.get(request.id)).toMatchObject({ round: 0, approvals: [{ user: ADA }] });
      expect(withdrawCalls(fx)).toBe(1);
    } finally {
      await engine.stop();
    }
  },
);

slackTest(
  'sends a request when the group, known to hold its approver, is now read as unknown',
  async ({ fx, group, networkId }) => {
    const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '50000000'));
    expect(await approveAsSeen(fx.engine, request.id, ADA)).toMatchObject({ ok: true });
    group.answer = 'unknown';
    expect(await approveAsSeen(fx.engine, request.id, BAYO)).toMatchObject({ ok: true });
    await fx.engine.idle();
    expect(await fx.engine.get(request.id)).toMatchObject({ round: 0 });
    expect(withdrawCalls(fx)).toBe(1);
  },
);

slackTest(
  'sends at the final approval while the group read hangs, judging on its last known members',
  { timeout: 10_000 },
  async ({ fx, group, networkId }) => {
    const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '50000000'));
    expect(await approveAsSeen(fx.engine, request.id, ADA)).toMatchObject({ ok: true });
    group.answer = 'hang';
    expect(await approveAsSeen(fx.engine, request.id, BAYO)).toMatchObject({ ok: true });
    await fx.engine.idle();
    expect(await fx.engine.get(request.id)).toMatchObject({ round: 0 });
    expect(withdrawCalls(fx)).toBe(1);
  },
);

/** The final approver of a redemption (Ada in her own right, or Dele in Chi's place) sees the group read fail at the place's re-check. */
async function placeUnreadable(fx: EngineFixture, group: SlackGroup, approver: string) {
  fx.sandbox.setAccountName('0123456789', 'ADA OBI');
  const request = await fileDraft(fx.engine, redemptionDraft(REQUESTER));
  const check = fx.sandbox.hold('POST', '/v1/api/account/verify');
  const approving = approveAsSeen(fx.engine, request.id, approver); // final: the figures are read again first
  await check.arrived;
  group.answer = 'fail';
  check.release();
  await expect(approving).rejects.toThrow('ratelimited');
  group.answer = 'members';
  return request.id;
}

slackTest(
  'lifts the hold of a final approval whose place cannot be read again after the re-check',
  async ({ fx, group }) => {
    const id = await placeUnreadable(fx, group, ADA);
    expect((await fx.engine.get(id))?.checking).toBeUndefined();
    expect(await approveAsSeen(fx.engine, id, BAYO)).toMatchObject({ ok: true });
  },
);

slackTest(
  "lifts the hold of a delegate's final approval whose place cannot be read again after the re-check",
  async ({ fx, group }) => {
    await delegate(fx, CHI, DELE, { approver: BAYO });
    const id = await placeUnreadable(fx, group, DELE);
    expect((await fx.engine.get(id))?.checking).toBeUndefined();
    expect(await approveAsSeen(fx.engine, id, BAYO)).toMatchObject({ ok: true });
  },
);

slackTest(
  "reports the place's failure, not the store's, when lifting the hold fails too",
  async ({ startEngine, group, defer }) => {
    const inner = await createStore('memory://');
    defer(() => inner.close());
    // Every request write fails while the group read does: the hold cannot be lifted.
    const store = new Proxy(inner, {
      get: (target, property) => {
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== 'function') return value;
        if (property !== 'compareAndSet') return value.bind(target);
        return async (key: string, expected: unknown, next: unknown) => {
          if (group.answer === 'fail' && key.startsWith('approval:'))
            throw new Error('store connection lost');
          return target.compareAndSet(key, expected, next);
        };
      },
    }) as Store;
    const logged: string[] = [];
    const log: EngineLog = { warn: (message) => void logged.push(message) };
    const fx = await startEngine({
      store,
      engine: { policy: slackPolicy(group), poolReadBoundMs: BOUND_MS, log },
    });
    const id = await placeUnreadable(fx, group, ADA);
    expect(logged).toContain("final approval's hold not lifted after its approver's place could not be read");
    expect((await fx.engine.get(id))?.checking?.user).toBe(ADA);
  },
);

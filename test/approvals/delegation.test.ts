// Delegation for an approver who is away, in the engine: the delegation is itself a request another
// approver approves (never its delegator or delegate), then the delegate approves in the delegator's
// place within the window and the cap only, never for the requester, never transitively, and one
// human (and one approver's place) counts once; all of it is audited. Revoking one is in
// delegation-revoking.test.ts.
import { describe, expect } from 'vitest';
import { partsOf } from '../../src/approvals/engine-parts.js';
import { createStore } from '../../src/store/index.js';
import { approveAsSeen, rejectAsSeen } from '../support/approve-as-seen.js';
import { DEST, REQUESTER, twoNetworks } from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import {
  ADE,
  BOLA,
  CHIDI,
  DAY,
  DAYO,
  delegate,
  EKENE,
  policy,
  test,
  withdrawal,
  withdrawCalls,
} from './delegation-support.js';

describe('creating a delegation', () => {
  test('is a request another approver must approve: not its delegator, not its delegate', async ({
    fx,
    engine,
  }) => {
    const until = new Date(fx.clock.now().getTime() + 3 * DAY);
    const filed = await engine.fileDelegation(CHIDI, DAYO, until, '500000.00');
    expect(filed).toMatchObject({
      kind: 'delegation',
      state: 'pending',
      requester: CHIDI,
      requiredApprovals: 1,
    });
    expect(await engine.liveDelegations()).toEqual([]);
    expect(await approveAsSeen(engine, filed.id, CHIDI)).toMatchObject({ ok: false, reason: 'requester' });
    expect(await approveAsSeen(engine, filed.id, DAYO)).toMatchObject({ ok: false, reason: 'delegate' });
    // A delegate of another approver cannot approve a delegation in their place either.
    await delegate(fx, ADE, BOLA, { approver: DAYO });
    expect(await approveAsSeen(engine, filed.id, BOLA)).toMatchObject({ ok: false, reason: 'not-approver' });
    expect(await engine.liveDelegations()).toHaveLength(1);
    expect(await approveAsSeen(engine, filed.id, ADE)).toMatchObject({
      ok: true,
      request: { state: 'approved' },
    });
    await engine.idle();
    expect((await engine.get(filed.id))?.state).toBe('completed');
    const live = await engine.liveDelegations();
    expect(live.map((d) => [d.delegator, d.delegate, d.max, d.approvedBy])).toContainEqual([
      CHIDI,
      DAYO,
      '500000.00',
      [ADE],
    ]);
    // Nothing was sent to the service for it.
    expect(fx.sandbox.requests.filter((r) => r.method === 'POST')).toEqual([]);
  });

  test('expires when its window ends: approved after that, it would never be in effect', async ({
    fx,
    engine,
  }) => {
    const until = new Date(fx.clock.now().getTime() + DAY / 2);
    const filed = await engine.fileDelegation(CHIDI, BOLA, until);
    expect(filed.expiresAt).toBe(until.toISOString()); // sooner than the 24 h lifetime
    fx.clock.advance(DAY / 2);
    expect(await approveAsSeen(engine, filed.id, ADE)).toMatchObject({ ok: false, reason: 'expired' });
    await engine.idle();
    expect(await engine.get(filed.id)).toMatchObject({ state: 'expired', approvals: [] });
    expect(await engine.liveDelegations()).toEqual([]);
  });

  test('refuses to approve a delegation still waiting past its window (one filed to expire later): it would never be in effect', async ({
    fx,
    engine,
  }) => {
    const filed = await engine.fileDelegation(CHIDI, BOLA, new Date(fx.clock.now().getTime() + DAY / 2));
    await fx.store.set(`approval:${filed.id}`, {
      ...filed,
      expiresAt: new Date(fx.clock.now().getTime() + DAY).toISOString(),
    });
    fx.clock.advance(DAY / 2);
    expect(await approveAsSeen(engine, filed.id, ADE)).toMatchObject({ ok: false, reason: 'window-ended' });
    await engine.idle();
    expect(await engine.get(filed.id)).toMatchObject({ state: 'pending', approvals: [] });
    expect(await engine.liveDelegations()).toEqual([]);
    expect(await partsOf(engine).core.options.policy.eligibleFor(filed)).toEqual([]);
    // Its delegator may still cancel it, and an approver reject it.
    expect(await engine.mayReject(filed.id, ADE, filed.round)).not.toHaveProperty('refusal');
  });

  test('refuses a delegation by a non-approver, to oneself, in the past, or longer than 90 days', async ({
    fx,
    engine,
  }) => {
    const soon = new Date(fx.clock.now().getTime() + DAY);
    await expect(engine.fileDelegation(BOLA, EKENE, soon)).rejects.toThrow(/only an approver/);
    await expect(engine.fileDelegation(CHIDI, CHIDI, soon)).rejects.toThrow(/yourself/);
    await expect(engine.fileDelegation(CHIDI, BOLA, new Date(fx.clock.now().getTime() - 1))).rejects.toThrow(
      /future/,
    );
    await expect(
      engine.fileDelegation(CHIDI, BOLA, new Date(fx.clock.now().getTime() + 91 * DAY)),
    ).rejects.toThrow(/90 days/);
    // Nor can a delegate pass on what was delegated to them.
    await delegate(fx, CHIDI, BOLA);
    await expect(engine.fileDelegation(BOLA, EKENE, soon)).rejects.toThrow(/only an approver/);
  });
});

describe('an identical delegation while one waits', () => {
  test('is refused, naming the one waiting, even when five are filed at once; a different cap or end is not', async ({
    fx,
    engine,
  }) => {
    const until = new Date(fx.clock.now().getTime() + 3 * DAY);
    const tries = await Promise.allSettled(
      Array.from({ length: 5 }, () => engine.fileDelegation(CHIDI, BOLA, until, '5000')),
    );
    const filed = tries.flatMap((t) => (t.status === 'fulfilled' ? [t.value] : []));
    expect(filed).toHaveLength(1);
    for (const refused of tries.filter((t) => t.status === 'rejected')) {
      expect(String(refused.reason)).toContain(`already waiting for approval as ${filed[0]?.id}`);
    }
    expect((await engine.openRequests()).filter((r) => r.kind === 'delegation')).toHaveLength(1);
    // Another cap, or another end, is another delegation.
    await engine.fileDelegation(CHIDI, BOLA, until, '6000');
    await engine.fileDelegation(CHIDI, BOLA, new Date(until.getTime() + DAY), '5000');
    // Once the first no longer waits, the same one may be asked for again.
    expect(await engine.cancel(filed[0]?.id ?? '', CHIDI)).toMatchObject({ ok: true });
    await expect(engine.fileDelegation(CHIDI, BOLA, until, '5000')).resolves.toMatchObject({
      state: 'pending',
    });
  });
});

describe('approving in the delegator’s place', () => {
  test('approves within the window and the cap, named as on behalf of the delegator, and audited so', async ({
    fx,
    engine,
    networkId,
  }) => {
    const request = await fileDraft(engine, withdrawal(networkId, '1500'));
    expect(await approveAsSeen(engine, request.id, BOLA)).toMatchObject({
      ok: false,
      reason: 'not-approver',
    });
    const id = await delegate(fx, CHIDI, BOLA, { max: '500000' });
    const result = await approveAsSeen(engine, request.id, BOLA);
    expect(result).toMatchObject({
      ok: true,
      request: { state: 'approved', approvals: [{ user: BOLA, onBehalfOf: CHIDI, delegationId: id }] },
    });
    await engine.idle();
    expect(withdrawCalls(fx)).toBe(1);
    const entry = (await engine.audit(50)).find((e) => e.requestId === request.id && e.action === 'approved');
    expect(entry).toMatchObject({ actor: BOLA, onBehalfOf: CHIDI });
  });

  test('refuses above the cap, and a capped delegation covers no request without an amount', async ({
    fx,
    engine,
    networkId,
  }) => {
    await delegate(fx, CHIDI, BOLA, { max: '500000' });
    expect((await engine.liveDelegations())[0]?.max).toBe('500000.00');
    const above = await fileDraft(engine, withdrawal(networkId, '500000.01'));
    expect(await approveAsSeen(engine, above.id, BOLA)).toMatchObject({ ok: false, reason: 'over-cap' });
    const at = await fileDraft(engine, withdrawal(networkId, '500000'));
    expect(await approveAsSeen(engine, at.id, BOLA)).toMatchObject({ ok: true });
    const whitelist = await fileDraft(engine, {
      kind: 'whitelist',
      payload: { networkId, address: DEST },
      display: {},
      requester: REQUESTER,
    });
    expect(await approveAsSeen(engine, whitelist.id, BOLA)).toMatchObject({
      ok: false,
      reason: 'not-covered',
    });
    expect((await engine.get(above.id))?.approvals).toEqual([]);
  });

  test('refuses after the delegation ends (the time is read at each click)', async ({
    fx,
    engine,
    networkId,
  }) => {
    const id = await delegate(fx, CHIDI, BOLA, { days: 0.5 });
    const request = await fileDraft(engine, withdrawal(networkId, '1500'));
    fx.clock.advance(DAY / 2 - 1_000);
    expect(await partsOf(engine).core.options.policy.check(request, BOLA)).toEqual({
      allowed: true,
      onBehalfOf: CHIDI,
      delegationId: id,
    });
    fx.clock.advance(1_000);
    expect(await approveAsSeen(engine, request.id, BOLA)).toMatchObject({
      ok: false,
      reason: 'delegation-ended',
    });
    expect(await engine.liveDelegations()).toEqual([]);
  });

  test('never lets the requester approve, nor anyone approve in the requester’s place', async ({
    fx,
    engine,
    networkId,
  }) => {
    await delegate(fx, CHIDI, BOLA);
    const bolas = await fileDraft(engine, withdrawal(networkId, '1500', BOLA));
    expect(await approveAsSeen(engine, bolas.id, BOLA)).toMatchObject({ ok: false, reason: 'requester' });
    const chidis = await fileDraft(engine, withdrawal(networkId, '1500', CHIDI));
    expect(await approveAsSeen(engine, chidis.id, BOLA)).toMatchObject({
      ok: false,
      reason: 'delegator-filed',
    });
    await engine.idle();
    expect(withdrawCalls(fx)).toBe(0);
  });

  test('counts one human once on a two-approval tier, whoever approved first', async ({
    fx,
    engine,
    networkId,
  }) => {
    await delegate(fx, CHIDI, BOLA);
    // The delegator approved first: the delegate adds nothing in the same place.
    const first = await fileDraft(engine, withdrawal(networkId, '1000000'));
    expect(await approveAsSeen(engine, first.id, CHIDI)).toMatchObject({ ok: true });
    expect(await approveAsSeen(engine, first.id, BOLA)).toMatchObject({
      ok: false,
      reason: 'delegator-counted',
    });
    // The delegate approved first: neither the delegator nor the delegate again adds a count.
    const second = await fileDraft(engine, withdrawal(networkId, '1000000'));
    expect(await approveAsSeen(engine, second.id, BOLA)).toMatchObject({
      ok: true,
      request: { state: 'pending' },
    });
    expect(await approveAsSeen(engine, second.id, CHIDI)).toMatchObject({
      ok: false,
      reason: 'already-approved',
    });
    expect(await approveAsSeen(engine, second.id, BOLA)).toMatchObject({
      ok: false,
      reason: 'already-approved',
    });
    await engine.idle();
    expect(withdrawCalls(fx)).toBe(0);
    expect(await approveAsSeen(engine, second.id, ADE)).toMatchObject({
      ok: true,
      request: { state: 'approved' },
    });
    await engine.idle();
    expect(withdrawCalls(fx)).toBe(1);
  });

  test('counts a person holding two delegations once, and a delegate who is an approver once', async ({
    fx,
    engine,
    networkId,
  }) => {
    await delegate(fx, CHIDI, BOLA);
    await delegate(fx, DAYO, BOLA);
    const request = await fileDraft(engine, withdrawal(networkId, '1000000'));
    expect(await approveAsSeen(engine, request.id, BOLA)).toMatchObject({
      ok: true,
      request: { state: 'pending' },
    });
    expect(await approveAsSeen(engine, request.id, BOLA)).toMatchObject({
      ok: false,
      reason: 'already-approved',
    });
    // An approver who is also a delegate approves once, in their own right.
    await delegate(fx, CHIDI, ADE, { approver: DAYO });
    const other = await fileDraft(engine, withdrawal(networkId, '1000000'));
    expect(await approveAsSeen(engine, other.id, ADE)).toMatchObject({
      ok: true,
      request: { approvals: [{ user: ADE }] },
    });
    expect(await approveAsSeen(engine, other.id, ADE)).toMatchObject({
      ok: false,
      reason: 'already-approved',
    });
    await engine.idle();
    expect(withdrawCalls(fx)).toBe(0);
  });

  test('is never transitive: a delegate of a delegate stands in only for the one who delegated to them', async ({
    fx,
    engine,
    networkId,
  }) => {
    await delegate(fx, CHIDI, DAYO, { approver: ADE }); // Dayo, an approver, stands in for Chidi
    await delegate(fx, DAYO, EKENE, { approver: ADE }); // Dayo delegates his own place to Ekene
    const request = await fileDraft(engine, withdrawal(networkId, '1000000'));
    expect(await approveAsSeen(engine, request.id, DAYO)).toMatchObject({ ok: true });
    // Dayo counts; Ekene may not take Chidi's place through Dayo.
    expect(await approveAsSeen(engine, request.id, EKENE)).toMatchObject({
      ok: false,
      reason: 'delegator-counted',
    });
    expect((await engine.get(request.id))?.approvals).toHaveLength(1);
  });

  test('lists the delegate among those who may approve a request it covers (DMs, reminders, App Home)', async ({
    fx,
    engine,
    networkId,
  }) => {
    await delegate(fx, CHIDI, BOLA, { max: '2000' });
    const small = await fileDraft(engine, withdrawal(networkId, '1500'));
    const large = await fileDraft(engine, withdrawal(networkId, '2500'));
    expect(await partsOf(fx.engine).core.options.policy.eligibleFor(small)).toEqual([ADE, CHIDI, DAYO, BOLA]);
    expect(await partsOf(fx.engine).core.options.policy.eligibleFor(large)).toEqual([ADE, CHIDI, DAYO]);
  });
});

describe('rejecting and reminders', () => {
  test('lets a delegate reject what the delegation covers, in the delegator’s place, and nothing else', async ({
    fx,
    engine,
    networkId,
  }) => {
    await delegate(fx, CHIDI, BOLA, { max: '2000' });
    const large = await fileDraft(engine, withdrawal(networkId, '2500'));
    expect(await engine.mayReject(large.id, BOLA, large.round)).toMatchObject({ refusal: 'over-cap' });
    expect(await rejectAsSeen(engine, large.id, BOLA, 'looks wrong')).toMatchObject({
      ok: false,
      reason: 'over-cap',
    });
    expect(await rejectAsSeen(engine, large.id, EKENE, 'looks wrong')).toMatchObject({
      ok: false,
      reason: 'not-approver',
    });
    const small = await fileDraft(engine, withdrawal(networkId, '1500'));
    expect(await engine.mayReject(small.id, BOLA, small.round)).not.toHaveProperty('refusal');
    const rejected = await rejectAsSeen(engine, small.id, BOLA, 'not ours');
    expect(rejected).toMatchObject({ ok: true, request: { state: 'rejected' } });
    expect(rejected.ok && rejected.request.history.at(-1)).toMatchObject({ actor: BOLA, onBehalfOf: CHIDI });
  });

  test('reminds a delegate whose delegation covers the request, as an approver who has not acted', async ({
    startEngine,
  }) => {
    const fx = await startEngine({
      engine: { policy: policy(), reminderPoints: [{ share: 0.5, label: '50%' }] },
    });
    const engine = fx.engine;
    const [networkId] = await twoNetworks(fx.client);
    await delegate(fx, CHIDI, BOLA);
    const request = await fileDraft(engine, withdrawal(networkId, '1000000'));
    expect(await approveAsSeen(engine, request.id, ADE)).toMatchObject({ ok: true });
    fx.clock.advance(DAY / 2);
    const [reminded] = await partsOf(engine).reminders.sweep();
    expect(reminded?.history.at(-1)?.reminder?.waiting).toEqual([CHIDI, DAYO, BOLA]);
  });
});

describe('reading the delegations', () => {
  test('reads them once per reminder sweep, however many requests it reminds of, in one store request', async ({
    startEngine,
    defer,
  }) => {
    const store = await createStore('memory://');
    defer(() => store.close());
    const reads = { index: 0, one: 0 }; // index reads; single reads of a granting request
    const granting = new Set<string>();
    // The store as the engine sees it, counting reads of the delegation index and of single requests.
    const counted = new Proxy(store, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (key === 'setMembers' && String(args[0]).startsWith('delegations:')) reads.index += 1;
          if (key === 'get' && granting.has(String(args[0]))) reads.one += 1;
          return value.apply(target, args);
        };
      },
    });
    const fx = await startEngine({
      store: counted,
      engine: { policy: policy(), reminderPoints: [{ share: 0.5, label: '50%' }] },
    });
    const engine = fx.engine;
    const [networkId] = await twoNetworks(fx.client);
    granting.add(`approval:${await delegate(fx, CHIDI, BOLA)}`);
    granting.add(`approval:${await delegate(fx, DAYO, BOLA, { approver: ADE })}`);
    for (const amount of ['1500', '2500', '3500', '4500'])
      await fileDraft(engine, withdrawal(networkId, amount));
    fx.clock.advance(DAY / 2);
    reads.index = 0;
    reads.one = 0;
    const reminded = await partsOf(engine).reminders.sweep();
    expect(reminded).toHaveLength(4);
    for (const request of reminded) expect(request.history.at(-1)?.reminder?.waiting).toContain(BOLA);
    expect(reads.index).toBe(1);
    // The granting requests come in one getMany, not one read each.
    expect(reads.one).toBe(0);
  });
});

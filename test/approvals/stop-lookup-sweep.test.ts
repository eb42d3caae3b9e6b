// A sweep of the stopped requests' lookups, against what happens around it: a stop written between
// the sweep's read of a queued request and its drop keeps its lookup, one request whose give-up
// cannot be recorded does not end the pass for the others, and a give-up tells a person only of a
// request stopped while approved.
import { expect } from 'vitest';
import type { CoreSections } from '../../src/approvals/core-sections.js';
import { partsOf } from '../../src/approvals/engine-parts.js';
import { type ApprovalRequest, STOP_NOT_CHECKED_ACTION } from '../../src/approvals/index.js';
import type { CustodyGateway } from '../../src/approvals/ports.js';
import type { ApprovalRepository } from '../../src/approvals/repository.js';
import { StopLookup } from '../../src/approvals/stop-lookup.js';
import type { EngineLog } from '../../src/approvals/types.js';
import { custodyGateway } from '../../src/cngn/custody-gateway.js';
import { LockTimeoutError, type Store } from '../../src/store/index.js';
import { rejectAsSeen } from '../support/approve-as-seen.js';
import { capturedLog } from '../support/captured-log.js';
import {
  APPROVER_A,
  APPROVER_B,
  type EngineFixture,
  engineTest as test,
  withdrawalDraft,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { LapsedLock } from '../support/lapsed-lock.js';
import { firstNoticeRefused } from './stop-lookup-support.js';

const QUEUE = 'approvals:stop-lookups';

const notChecked = (request: ApprovalRequest | undefined) =>
  request?.history.filter((h) => h.action === STOP_NOT_CHECKED_ACTION) ?? [];

/** Approved through the core, then rejected by a person (the engine's own lookup is not started). */
async function approveThenReject(fx: Pick<EngineFixture, 'engine'>, id: string): Promise<ApprovalRequest> {
  const { core } = partsOf(fx.engine);
  const approved = await core.approve(id, APPROVER_A);
  if (!approved.ok || approved.request.state !== 'approved') throw new Error('not approved');
  const rejecter = { get: (at: string) => fx.engine.get(at), reject: core.reject.bind(core) };
  const result = await rejectAsSeen(rejecter, id, APPROVER_B, 'not needed');
  if (!result.ok) throw new Error('not rejected');
  return result.request;
}

/** `repo` whose first read of request `id` runs `meanwhile` after it is read, before it is answered. */
function readThen(
  repo: ApprovalRepository,
  id: string,
  meanwhile: () => Promise<unknown>,
): ApprovalRepository {
  let first = true;
  return new Proxy(repo, {
    get: (target, property) => {
      const value: unknown = Reflect.get(target, property, target);
      if (property !== 'get' || typeof value !== 'function') {
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return async (asked: string) => {
        const read = (await value.call(target, asked)) as ApprovalRequest | undefined;
        if (asked === id && first) {
          first = false;
          await meanwhile();
        }
        return read;
      };
    },
  });
}

function lookupOn(
  fx: EngineFixture,
  parts: {
    core?: CoreSections;
    custody?: CustodyGateway;
    repo?: ApprovalRepository;
    store?: Store;
    log?: EngineLog;
  },
): StopLookup {
  const { core } = partsOf(fx.engine);
  return new StopLookup({
    core: parts.core ?? core,
    repo: parts.repo ?? core.repo,
    store: parts.store ?? fx.store,
    custody: parts.custody ?? custodyGateway(fx.client),
    binding: () => core.binding,
    now: core.now,
    owner: 'sweeper',
    log: parts.log,
  });
}

test('a stop written between the sweep’s read of its queued request and the drop keeps its lookup', async ({
  fx,
  networkId,
}) => {
  // Queued by a stop whose write was refused: the request was sent back to its approvers meanwhile.
  const filed = await fileDraft(fx.engine, withdrawalDraft(networkId, '2345.81'));
  await fx.store.addToSet(QUEUE, filed.id);
  // The sweep reads it pending (nothing to look up); before it drops the entry, the request is
  // approved and stopped, whose queue write finds the entry already there.
  const repo = readThen(partsOf(fx.engine).core.repo, filed.id, () => approveThenReject(fx, filed.id));
  await lookupOn(fx, { repo }).sweep();
  expect((await fx.engine.get(filed.id))?.state).toBe('rejected');
  expect(await fx.store.setMembers(QUEUE)).toContain(filed.id);
  // The next sweep looks it up (nothing matches) and only then lets it go.
  const reads = fx.sandbox.count('GET', '/v1/api/transactions');
  await lookupOn(fx, {}).sweep();
  expect(fx.sandbox.count('GET', '/v1/api/transactions')).toBe(reads + 1);
  expect(await fx.store.setMembers(QUEUE)).not.toContain(filed.id);
});

/** `store` whose removal of `id` from the stop lookups' queue runs `meanwhile` first. */
function beforeDrop(store: Store, id: string, meanwhile: () => Promise<unknown>): Store {
  return new Proxy(store, {
    get: (target, property) => {
      const value: unknown = Reflect.get(target, property, target);
      if (property !== 'removeFromSet' || typeof value !== 'function') {
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return async (set: string, member: string) => {
        if (set === QUEUE && member === id) await meanwhile();
        return value.call(target, set, member);
      };
    },
  });
}

test('a stop written while a sweep whose lock lapsed drops its entry is queued again', async ({
  fx,
  networkId,
  startEngine,
}) => {
  const filed = await fileDraft(fx.engine, withdrawalDraft(networkId, '2345.85'));
  await fx.store.addToSet(QUEUE, filed.id);
  // The sweeping replica's request lock keeps nobody out: another replica approves and stops the
  // request while the sweep drops the entry it decided on.
  const sweeping = await startEngine({ store: new LapsedLock().wrap(fx.store) });
  const store = beforeDrop(sweeping.store, filed.id, () => approveThenReject(fx, filed.id));
  await lookupOn(sweeping, { store }).sweep();
  expect((await fx.engine.get(filed.id))?.state).toBe('rejected');
  expect(await fx.store.setMembers(QUEUE)).toContain(filed.id);
});

test('a queued request that went another way is dropped once the sweep finds it still so', async ({
  fx,
  networkId,
}) => {
  const filed = await fileDraft(fx.engine, withdrawalDraft(networkId, '2345.82'));
  await fx.store.addToSet(QUEUE, filed.id);
  await lookupOn(fx, {}).sweep();
  expect(await fx.store.setMembers(QUEUE)).not.toContain(filed.id);
});

test('a give-up that cannot be recorded does not end the sweep: the other stopped requests are looked at, and it is logged', async ({
  fx,
  networkId,
}) => {
  const ids: string[] = [];
  for (const amount of ['2345.83', '2345.84']) {
    const filed = await fileDraft(fx.engine, withdrawalDraft(networkId, amount));
    ids.push((await approveThenReject(fx, filed.id)).id);
  }
  const down: CustodyGateway = {
    ...custodyGateway(fx.client),
    transactions: () => Promise.reject(new Error('service unavailable')),
  };
  // The first give-up of the pass: its notice and then its give-up mark are refused by the store.
  let refused: string | undefined;
  const store = new Proxy(fx.store, {
    get: (target, property) => {
      const value: unknown = Reflect.get(target, property, target);
      if (property !== 'set' || typeof value !== 'function') {
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return (key: string, written: unknown, ...rest: unknown[]) => {
        const giveUp = (written as { givenUp?: boolean } | undefined)?.givenUp === true;
        if (giveUp && (refused ?? key) === key) {
          refused = key;
          return Promise.reject(new Error('store unavailable'));
        }
        return value.call(target, key, written, ...rest);
      };
    },
  });
  const { core } = partsOf(fx.engine);
  const log = capturedLog<{ message?: string; requestId?: string }>('warn');
  const lookup = lookupOn(fx, { core: firstNoticeRefused(core).core, custody: down, store, log: log.logger });
  await lookup.sweep();
  fx.clock.advance(61_000);
  await lookup.sweep();
  fx.clock.advance(61_000);
  // The third try gives both up; the first one's notice and mark are refused.
  await expect(lookup.sweep()).resolves.toBeUndefined();
  const told = await Promise.all(ids.map(async (id) => notChecked(await fx.engine.get(id)).length));
  expect(told.sort()).toEqual([0, 1]);
  const stuck = ids[told.indexOf(0)] ?? '';
  expect(refused).toContain(stuck);
  expect(await fx.store.setMembers(QUEUE)).toEqual([stuck]);
  expect(
    log.entries.some((e) => e.requestId === stuck && String(e.message).includes('the others went on')),
  ).toBe(true);
});

/** `store` whose lock of request `id` times out the first `times` times it is asked for. */
function lockTimesOut(store: Store, id: string, times: number): Store {
  let left = times;
  return new Proxy(store, {
    get: (target, property) => {
      const value: unknown = Reflect.get(target, property, target);
      if (property !== 'withLock' || typeof value !== 'function') {
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return (name: string, ...rest: unknown[]) => {
        if (name !== `approval:${id}` || left === 0) return value.call(target, name, ...rest);
        left -= 1;
        return Promise.reject(new LockTimeoutError(`Timed out waiting for lock ${name}`));
      };
    },
  });
}

test('a queued request never stopped whose drop keeps timing out is let go at the give-up, with no notice', async ({
  fx,
  networkId,
  startEngine,
}) => {
  // Queued by a stop whose write was refused; the request went on as it was.
  const filed = await fileDraft(fx.engine, withdrawalDraft(networkId, '2345.86'));
  await fx.store.addToSet(QUEUE, filed.id);
  // The sweeping replica waits in vain for the request's lock three times (another one holds it).
  const sweeping = await startEngine({ store: lockTimesOut(fx.store, filed.id, 3) });
  const lookup = lookupOn(sweeping, {});
  for (const _ of [1, 2, 3]) await lookup.sweep();
  const after = await fx.engine.get(filed.id);
  expect(after?.state).toBe('pending');
  expect(notChecked(after)).toEqual([]);
  expect(await fx.store.setMembers(QUEUE)).not.toContain(filed.id);
});

test('a request still approved at its give-up stays queued, and its stop then gets tries of its own', async ({
  fx,
  networkId,
}) => {
  const filed = await fileDraft(fx.engine, withdrawalDraft(networkId, '2345.87'));
  const { core } = partsOf(fx.engine);
  const approved = await core.approve(filed.id, APPROVER_A);
  if (!approved.ok || approved.request.state !== 'approved') throw new Error('not approved');
  // Queued by its stop, which is not written yet; the first three reads of it fail.
  await fx.store.addToSet(QUEUE, filed.id);
  let reads = 0;
  const repo = new Proxy(core.repo, {
    get: (target, property) => {
      const value: unknown = Reflect.get(target, property, target);
      if (property !== 'get' || typeof value !== 'function') {
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return (id: string) => {
        if (id === filed.id && ++reads <= 3) return Promise.reject(new Error('store unavailable'));
        return value.call(target, id);
      };
    },
  });
  const down: CustodyGateway = {
    ...custodyGateway(fx.client),
    transactions: () => Promise.reject(new Error('service unavailable')),
  };
  const lookup = lookupOn(fx, { repo, custody: down });
  for (const _ of [1, 2, 3]) await lookup.sweep();
  expect(notChecked(await fx.engine.get(filed.id))).toEqual([]);
  expect(await fx.store.setMembers(QUEUE)).toContain(filed.id);
  // The stop lands; the service cannot be read at the next sweep: one try, not a give-up.
  const rejecter = { get: (at: string) => fx.engine.get(at), reject: core.reject.bind(core) };
  if (!(await rejectAsSeen(rejecter, filed.id, APPROVER_B, 'not needed')).ok) throw new Error('not rejected');
  await lookup.sweep();
  expect(notChecked(await fx.engine.get(filed.id))).toEqual([]);
  expect(await fx.store.setMembers(QUEUE)).toContain(filed.id);
});

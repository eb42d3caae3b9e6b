// The tries of a stopped request's lookup: a read our own limiter refused (the budget spent, nothing
// asked) is not a try, and the next sweep reads again; a store read that fails is a try like a failed
// read of the service, so a request never stays queued for ever, and the last one gives a notice.
// A stop is queued under the request's lock before it is written, so none is recorded or told without
// its lookup; a give-up stays queued until its notice is written.
import { expect } from 'vitest';
import type { ServiceBinding } from '../../src/approvals/binding.js';
import type { CoreSections } from '../../src/approvals/core-sections.js';
import { partsOf } from '../../src/approvals/engine-parts.js';
import { type ApprovalRequest, STOP_NOT_CHECKED_ACTION } from '../../src/approvals/index.js';
import type { CustodyGateway } from '../../src/approvals/ports.js';
import { StopLookup } from '../../src/approvals/stop-lookup.js';
import type { EngineLog } from '../../src/approvals/types.js';
import { custodyGateway } from '../../src/cngn/custody-gateway.js';
import { RateBudgetError } from '../../src/cngn/errors.js';
import { createStore, type Store } from '../../src/store/index.js';
import { rejectAsSeen } from '../support/approve-as-seen.js';
import { capturedLog } from '../support/captured-log.js';
import {
  APPROVER_A,
  APPROVER_B,
  type EngineFixture,
  engineTest as test,
  twoNetworks,
  withdrawalDraft,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { firstNoticeRefused } from './stop-lookup-support.js';

const notChecked = (request: ApprovalRequest | undefined) =>
  request?.history.filter((h) => h.action === STOP_NOT_CHECKED_ACTION) ?? [];

/** Approved, then rejected through the core (the engine's own lookup is not started). */
async function stopped(fx: EngineFixture, networkId: string, amount: string): Promise<ApprovalRequest> {
  const { core } = partsOf(fx.engine);
  const filed = await fileDraft(fx.engine, withdrawalDraft(networkId, amount));
  const approved = await core.approve(filed.id, APPROVER_A);
  if (!approved.ok || approved.request.state !== 'approved') throw new Error('not approved');
  const rejecter = { get: (id: string) => fx.engine.get(id), reject: core.reject.bind(core) };
  const result = await rejectAsSeen(rejecter, filed.id, APPROVER_B, 'not needed');
  if (!result.ok) throw new Error('not rejected');
  return result.request;
}

function lookupOn(
  fx: EngineFixture,
  custody: CustodyGateway,
  repo = partsOf(fx.engine).core.repo,
  more: { binding?: ServiceBinding; log?: EngineLog; core?: CoreSections } = {},
): StopLookup {
  const { core } = partsOf(fx.engine);
  return new StopLookup({
    core: more.core ?? core,
    repo,
    store: fx.store,
    custody,
    binding: () => more.binding ?? core.binding,
    now: core.now,
    owner: 'sweeper',
    log: more.log,
  });
}

test('a read the budget refused is not a try: it is read again a minute on, never at every sweep, and no notice is given', async ({
  fx,
  networkId,
}) => {
  const request = await stopped(fx, networkId, '2345.71');
  const real = custodyGateway(fx.client);
  let refusals = 0;
  const custody: CustodyGateway = {
    ...real,
    transactions: (...args) => {
      if (refusals < 5) {
        refusals += 1;
        return Promise.reject(new RateBudgetError(1));
      }
      return real.transactions(...args);
    },
  };
  const lookup = lookupOn(fx, custody);
  await lookup.afterStop(request.id);
  // A sweep within the minute after a refusal asks nothing (a refusal after a first page would have
  // spent that page at every sweep).
  await lookup.sweep();
  expect(refusals).toBe(1);
  for (let sweep = 0; sweep < 4; sweep++) {
    fx.clock.advance(60_000);
    await lookup.sweep();
  }
  expect(refusals).toBe(5);
  fx.clock.advance(60_000);
  expect(notChecked(await fx.engine.get(request.id))).toHaveLength(0);
  // Read at last: nothing matches, and it leaves the queue without a notice.
  const reads = fx.sandbox.count('GET', '/v1/api/transactions');
  await lookup.sweep();
  expect(fx.sandbox.count('GET', '/v1/api/transactions')).toBe(reads + 1);
  await lookup.sweep();
  expect(fx.sandbox.count('GET', '/v1/api/transactions')).toBe(reads + 1);
  expect(notChecked(await fx.engine.get(request.id))).toHaveLength(0);
});

test('a store read that keeps failing is counted as a try: given up after the last, with a notice', async ({
  fx,
  networkId,
}) => {
  const request = await stopped(fx, networkId, '2345.72');
  const { core } = partsOf(fx.engine);
  let gets = 0;
  const repo = new Proxy(core.repo, {
    get: (target, property) => {
      const value: unknown = Reflect.get(target, property, target);
      if (property !== 'get' || typeof value !== 'function') {
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return (id: string) => {
        gets += 1;
        // The first three reads fail; the store answers again for the notice.
        return gets <= 3 ? Promise.reject(new Error('store unavailable')) : value.call(target, id);
      };
    },
  });
  const reads = fx.sandbox.count('GET', '/v1/api/transactions');
  const lookup = lookupOn(fx, custodyGateway(fx.client), repo);
  await lookup.afterStop(request.id);
  for (const _ of [1, 2]) {
    fx.clock.advance(61_000);
    await lookup.sweep();
  }
  const after = await fx.engine.get(request.id);
  expect(after?.state).toBe('rejected');
  expect(notChecked(after)).toHaveLength(1);
  expect(notChecked(after)[0]?.note).toContain('could not be looked up');
  // Out of the queue: later sweeps read neither the store nor the service for it.
  const seen = gets;
  fx.clock.advance(61_000);
  await lookup.sweep();
  expect([gets, fx.sandbox.count('GET', '/v1/api/transactions')]).toEqual([seen, reads]);
});

test('a stop of an approved request is queued for its lookup before the stop is answered', async ({
  startEngine,
  defer,
}) => {
  const store = await createStore('memory://');
  defer(() => store.close());
  // The queue's write takes a few turns of the event loop, as a store across the network would.
  const slowQueue = new Proxy(store, {
    get: (target, property) => {
      const value: unknown = Reflect.get(target, property, target);
      if (property !== 'addToSet' || typeof value !== 'function') {
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return async (set: string, member: string) => {
        for (let turn = 0; turn < 5; turn++) await new Promise((next) => setImmediate(next));
        return value.call(target, set, member);
      };
    },
  });
  const fx = await startEngine({ store: slowQueue });
  const [networkId] = await twoNetworks(fx.client);
  const { core } = partsOf(fx.engine);
  const filed = await fileDraft(fx.engine, withdrawalDraft(networkId, '2345.73'));
  expect(await core.approve(filed.id, APPROVER_A)).toMatchObject({ ok: true });
  expect(await rejectAsSeen(fx.engine, filed.id, APPROVER_B, 'not needed')).toMatchObject({ ok: true });
  expect(await store.setMembers('approvals:stop-lookups')).toContain(filed.id);
  await fx.engine.idle();
});

test('a stopped request filed for another environment is not looked up, and a log line says so', async ({
  fx,
  networkId,
}) => {
  const request = await stopped(fx, networkId, '2345.74');
  const log = capturedLog<{ message?: string; requestId?: string }>('info');
  const reads = fx.sandbox.count('GET', '/v1/api/transactions');
  const lookup = lookupOn(fx, custodyGateway(fx.client), undefined, {
    binding: { environment: request.environment === 'sandbox' ? 'live' : 'sandbox' },
    log: log.logger,
  });
  await lookup.afterStop(request.id);
  expect(fx.sandbox.count('GET', '/v1/api/transactions')).toBe(reads);
  expect(
    log.entries.some(
      (e) => e.requestId === request.id && String(e.message).includes('another key or environment'),
    ),
  ).toBe(true);
});

/** `store` whose writes to the stop lookups' queue run `around` (which may fail them or run before them). */
function aroundQueue(store: Store, around: (write: () => Promise<void>) => Promise<void>): Store {
  return new Proxy(store, {
    get: (target, property) => {
      const value: unknown = Reflect.get(target, property, target);
      if (property !== 'addToSet' || typeof value !== 'function') {
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return (set: string, member: string) => {
        const write = () => value.call(target, set, member) as Promise<void>;
        return set === 'approvals:stop-lookups' ? around(write) : write();
      };
    },
  });
}

test('a stop of an approved request is queued for its lookup before anyone is told of it', async ({
  startEngine,
  defer,
}) => {
  const store = await createStore('memory://');
  defer(() => store.close());
  const fx = await startEngine({ store });
  const [networkId] = await twoNetworks(fx.client);
  const { core } = partsOf(fx.engine);
  const filed = await fileDraft(fx.engine, withdrawalDraft(networkId, '2345.75'));
  expect(await core.approve(filed.id, APPROVER_A)).toMatchObject({ ok: true });
  const queuedWhenTold: boolean[] = [];
  const queued = async () => (await store.setMembers('approvals:stop-lookups')).includes(filed.id);
  fx.engine.onChange(async (request) => {
    if (request.id === filed.id && request.state === 'rejected') queuedWhenTold.push(await queued());
  });
  let queuedWhenRecorded: Promise<boolean> | undefined;
  const onRecorded = () => {
    queuedWhenRecorded = queued();
  };
  const rejected = await rejectAsSeen(fx.engine, filed.id, APPROVER_B, 'not needed', { onRecorded });
  expect(rejected).toMatchObject({ ok: true });
  expect(await queuedWhenRecorded).toBe(true);
  expect(queuedWhenTold).toEqual([true]);
  await fx.engine.idle();
});

test('a stop whose lookup cannot be queued is not recorded: the click fails, the request stays approved, nobody is told', async ({
  startEngine,
  defer,
}) => {
  const store = await createStore('memory://');
  defer(() => store.close());
  const failing = aroundQueue(store, () => Promise.reject(new Error('store unavailable')));
  const fx = await startEngine({ store: failing });
  const [networkId] = await twoNetworks(fx.client);
  const { core } = partsOf(fx.engine);
  const filed = await fileDraft(fx.engine, withdrawalDraft(networkId, '2345.76'));
  expect(await core.approve(filed.id, APPROVER_A)).toMatchObject({ ok: true });
  const told: string[] = [];
  fx.engine.onChange(async (request) => {
    if (request.id === filed.id) told.push(request.state);
  });
  await expect(rejectAsSeen(fx.engine, filed.id, APPROVER_B, 'not needed')).rejects.toThrow(
    'store unavailable',
  );
  await fx.engine.idle();
  expect((await fx.engine.get(filed.id))?.state).toBe('approved');
  expect(told).toEqual([]);
});

test('a request queued just before its stop is written stays queued while it is still approved', async ({
  fx,
  networkId,
}) => {
  const { core } = partsOf(fx.engine);
  const filed = await fileDraft(fx.engine, withdrawalDraft(networkId, '2345.77'));
  expect(await core.approve(filed.id, APPROVER_A)).toMatchObject({ ok: true });
  // Another replica's sweep comes between the queue write and the stop's.
  await lookupOn(fx, custodyGateway(fx.client)).afterStop(filed.id);
  expect(await fx.store.setMembers('approvals:stop-lookups')).toContain(filed.id);
});

test('a give-up whose notice cannot be written stays queued, and the notice is written once at a later sweep', async ({
  fx,
  networkId,
}) => {
  const request = await stopped(fx, networkId, '2345.78');
  const { core } = partsOf(fx.engine);
  const down: CustodyGateway = {
    ...custodyGateway(fx.client),
    transactions: () => Promise.reject(new Error('service unavailable')),
  };
  const failingNotice = firstNoticeRefused(core);
  const lookup = lookupOn(fx, down, undefined, { core: failingNotice.core });
  await lookup.afterStop(request.id);
  for (const _ of [1, 2]) {
    fx.clock.advance(61_000);
    await lookup.sweep();
  }
  expect(failingNotice.notices()).toBe(1);
  expect(notChecked(await fx.engine.get(request.id))).toHaveLength(0);
  expect(await fx.store.setMembers('approvals:stop-lookups')).toContain(request.id);
  const reads = fx.sandbox.count('GET', '/v1/api/transactions');
  for (const _ of [1, 2]) {
    fx.clock.advance(61_000);
    await lookup.sweep();
  }
  const after = await fx.engine.get(request.id);
  expect(notChecked(after)).toHaveLength(1);
  expect(notChecked(after)[0]?.note).toContain('could not be looked up (3 tries)');
  expect(await fx.store.setMembers('approvals:stop-lookups')).not.toContain(request.id);
  // Only the notice was tried again: the service was not read for it.
  expect(fx.sandbox.count('GET', '/v1/api/transactions')).toBe(reads);
});

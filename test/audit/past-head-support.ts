// The set-up the tests of entries past the signed head share: the sandbox log's keys, a replica's first
// entries, what its incident listeners are told, a store whose methods a test wraps (an appender whose
// lock lapsed, a writer that acts right after the head moves), and a store writer's forged entry.
import type { AuditEntry } from '../../src/approvals/types.js';
import { chainEntry } from '../../src/audit/chain.js';
import { AuditLog, auditHeadKey, auditListKey } from '../../src/audit/log.js';
import type { AuditSeal, HeadProblem } from '../../src/audit/signing.js';
import type { Store } from '../../src/store/index.js';
import type { AuditReplica, ReplicaOptions } from '../support/audit-archive.js';
import { auditDraft } from '../support/engine.js';

export const LIST = auditListKey('sandbox');
export const HEAD = auditHeadKey('sandbox');

export async function appendMany(replica: AuditReplica, count: number): Promise<void> {
  for (let n = 0; n < count; n++) await replica.log.append('sandbox', auditDraft(n));
}

/**
 * A replica on the store `replicas(name)` opens, what its incident listeners are told (`listen`), and
 * its first `count` entries appended.
 */
export async function loggedReplica(
  fixtures: {
    replicas: (name: string) => Promise<{ a: Store }>;
    auditReplica: (store: Store, options?: ReplicaOptions) => AuditReplica;
  },
  name: string,
  count: number,
): Promise<{ store: Store; replica: AuditReplica; told: ReturnType<typeof listen> }> {
  const { a: store } = await fixtures.replicas(name);
  const replica = fixtures.auditReplica(store);
  const told = listen(replica.log);
  await appendMany(replica, count);
  return { store, replica, told };
}

/** What the incident listeners of `log` are told, as kinds and the seq of the finding's entry. */
export function listen(log: AuditLog): Array<[HeadProblem['kind'], number | undefined]> {
  const told: Array<[HeadProblem['kind'], number | undefined]> = [];
  log.onIncident((_environment, problem, entry) => void told.push([problem.kind, entry.seq]));
  return told;
}

type StoreWraps = Partial<Record<keyof Store, (...args: never[]) => unknown>>;

/** `store` with its methods wrapped by `wrap` (the others as they are). */
export function wrapped(store: Store, wrap: StoreWraps): Store {
  return new Proxy(store, {
    get: (target, property) => {
      const own = wrap[property as keyof Store];
      if (own) return own;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** A store's `withLock` as an appender whose lock lapsed sees it: it runs at once, whoever holds it. */
export const lockLapsed: StoreWraps = {
  withLock: ((_name: string, fn: () => Promise<unknown>) => fn()) as never,
};

/** A log on `store` that appends past its lock, as one whose lock lapsed, signing with `seal`. */
export function lapsedLog(store: Store, seal: AuditSeal): AuditLog {
  const log = new AuditLog(wrapped(store, lockLapsed));
  log.signWith(seal);
  return log;
}

/** A store's `compareAndSet` that, each time it moves the head, awaits `then` before it answers. */
export function afterHeadMoves(store: Store, then: () => Promise<unknown>): StoreWraps {
  return {
    compareAndSet: (async (key: string, ...rest: unknown[]) => {
      const done = await (store.compareAndSet as (...a: unknown[]) => Promise<boolean>).call(
        store,
        key,
        ...rest,
      );
      if (key === HEAD && done) await then();
      return done;
    }) as never,
  };
}

/** A correctly chained entry a store writer appends after the list's last one. */
export async function forgePastHead(store: Store, n: number): Promise<AuditEntry> {
  const [last] = await store.readList<AuditEntry>(LIST, -1, -1);
  const forged = chainEntry({ ...auditDraft(n), amount: '5000000.00', environment: 'sandbox' }, last);
  await store.appendToList(LIST, forged);
  return forged;
}

/** Where a stalled appender waits: `stall` tells `reached` and waits for `release`. */
function stallGate(): { reached: Promise<void>; release: () => void; stall: () => Promise<void> } {
  let stalled!: () => void;
  const reached = new Promise<void>((resolve) => (stalled = resolve));
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const stall = async () => {
    stalled();
    await gate;
  };
  return { reached, release, stall };
}

/**
 * An appender whose lock lapsed and that stalls right after it moved the head (a pause, a slow store),
 * until the test lets it go on: `reached` once it stalls, `release` to wake it.
 */
export function stallingAfterHeadMoves(store: Store): {
  store: Store;
  reached: Promise<void>;
  release: () => void;
} {
  const { reached, release, stall } = stallGate();
  return { store: wrapped(store, { ...lockLapsed, ...afterHeadMoves(store, stall) }), reached, release };
}

/**
 * An appender whose lock lapsed and that stalls between its check that the list does not hold its
 * entry and its write of it, until the test lets it go on: `reached` once it stalls, `release` to wake it.
 */
export function stallingBeforeListWrite(store: Store): {
  store: Store;
  reached: Promise<void>;
  release: () => void;
} {
  const { reached, release, stall } = stallGate();
  const appendToList = (async (key: string, value: unknown) => {
    if (key === LIST) await stall();
    return store.appendToList(key, value);
  }) as never;
  return { store: wrapped(store, { ...lockLapsed, appendToList }), reached, release };
}

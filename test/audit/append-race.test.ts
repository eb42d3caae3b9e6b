// Two appends to the audit chain whose lock no longer keeps them apart (it lapsed: a stalled holder)
// both read the same last entry. The head moves only by compare-and-set, so one of them chains again
// onto the other's entry: the chain verifies, its seqs run without a gap, the head is the newest.
import { describe, expect } from 'vitest';
import type { ChainHead } from '../../src/audit/chain.js';
import { AuditLog } from '../../src/audit/log.js';
import type { Store } from '../../src/store/index.js';
import { auditDraft } from '../support/engine.js';
import { STORE_KINDS, storesTest as test } from '../support/shared-stores.js';

const HEAD = 'approvals:audit-head:sandbox';

/**
 * The store as a replica whose audit lock lapsed: `withLock` keeps nobody out, and the first two
 * writes of the head wait for each other, so both appends have read the log before either moves it.
 */
function lapsed(store: Store, meet: { arrive(): Promise<void> }): Store {
  return new Proxy(store, {
    get: (target, property) => {
      if (property === 'withLock') return (_name: string, fn: () => Promise<unknown>) => fn();
      if (property === 'set' || property === 'compareAndSet') {
        return async (key: string, ...rest: unknown[]) => {
          if (key === HEAD) await meet.arrive();
          return (Reflect.get(target, property, target) as (...a: unknown[]) => Promise<unknown>).call(
            target,
            key,
            ...rest,
          );
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** The first two arrivals wait for each other; later ones pass. */
function meeting() {
  let arrived = 0;
  let open!: () => void;
  const both = new Promise<void>((resolve) => (open = resolve));
  return {
    arrive: async () => {
      arrived += 1;
      if (arrived === 2) open();
      if (arrived <= 2) await both;
    },
  };
}

for (const kind of STORE_KINDS) {
  describe.skipIf(!kind.up)(`two audit appends past a lapsed lock on ${kind.name}`, () => {
    test.override('storeKind', kind.name);

    test('chain one after the other: verify passes, seqs run without a gap', async ({ replicas }) => {
      const { a, b } = await replicas(`audit-race-${kind.name}`);
      await new AuditLog(a).append('sandbox', auditDraft(0));
      const meet = meeting();
      const [one, two] = await Promise.all([
        new AuditLog(lapsed(a, meet)).append('sandbox', auditDraft(1)),
        new AuditLog(lapsed(b, meet)).append('sandbox', auditDraft(2)),
      ]);
      expect([one.seq, two.seq].sort()).toEqual([1, 2]);
      const log = new AuditLog(a);
      expect((await log.verify('sandbox')).ok).toBe(true);
      const entries = await log.entries('sandbox');
      expect(entries.map((e) => e.seq)).toEqual([0, 1, 2]);
      expect(entries.map((e) => e.requestId).sort()).toEqual([0, 1, 2].map((n) => auditDraft(n).requestId));
      expect((await a.get<ChainHead>(HEAD))?.seq).toBe(2);
    });

    test('puts in the entry of an appender that stopped after moving the head', async ({ oneReplica }) => {
      const a = await oneReplica(`audit-stop-${kind.name}`);
      const log = new AuditLog(a);
      await log.append('sandbox', auditDraft(0));
      const stopping = new Proxy(a, {
        get: (target, property) => {
          if (property === 'appendToList') return () => Promise.reject(new Error('stopped'));
          const value: unknown = Reflect.get(target, property, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      await expect(new AuditLog(stopping).append('sandbox', auditDraft(1))).rejects.toThrow('stopped');
      await log.append('sandbox', auditDraft(2));
      expect((await log.verify('sandbox')).ok).toBe(true);
      expect((await log.entries('sandbox')).map((e) => [e.seq, e.requestId])).toEqual(
        [0, 1, 2].map((n) => [n, auditDraft(n).requestId]),
      );
    });
  });
}

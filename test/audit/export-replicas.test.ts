// Audit exports on a store replicas share (Redis, PostgreSQL): one replica's export under way is left
// alone by another until its lease runs out (it may still be uploading); then that one is told, once.
import { describe, expect } from 'vitest';
import { AUDIT_EXPORT_LEASE_MS, AuditExports } from '../../src/audit/exports-under-way.js';
import type { AuditExportRecord } from '../../src/audit/index.js';
import { AuditLog } from '../../src/audit/log.js';
import type { Store } from '../../src/store/index.js';
import { testPrefix } from '../support/redis.js';
import { storesTest as it, STORE_KINDS } from '../support/shared-stores.js';

const requested = (at: Date) => ({
  at: at.toISOString(),
  kind: 'audit' as const,
  action: 'export-requested',
  actor: 'UAPPROVERA',
  subject: 'start..now',
});

for (const { name, up } of STORE_KINDS.filter((kind) => kind.shared)) {
  describe.skipIf(!up)(`audit exports on one ${name}`, () => {
    it("leaves another replica's export alone while its lease lasts, then tells its asker once", async ({
      storeKinds,
      defer,
    }) => {
      // Two handles on one store under one prefix: two replicas, cleared and closed after the test.
      const kind = storeKinds.find((k) => k.name === name);
      if (!kind) throw new Error(`no ${name} store`);
      const { a: storeA, b: storeB, close } = await kind.replicas(testPrefix('audit-export-replicas'));
      defer(close);
      const stores = [storeA, storeB];
      let now = new Date('2026-11-23T08:00:00.000Z');
      const replica = async () => {
        const store = stores.shift() as Store;
        const exports = new AuditExports(store, new AuditLog(store), 'sandbox', () => now);
        const told: AuditExportRecord[] = [];
        exports.onUndelivered(async (record) => void told.push(record));
        return { exports, told, log: new AuditLog(store) };
      };
      const a = await replica();
      const b = await replica();
      await a.exports.begin(
        { actor: 'UAPPROVERA', words: '7d', subject: 'start..now', entries: 3 },
        requested(now),
      );
      // A is uploading: B must not call it interrupted, nor may A itself.
      expect(await b.exports.settle()).toBe(0);
      expect(await a.exports.settle()).toBe(0);
      now = new Date(now.getTime() + AUDIT_EXPORT_LEASE_MS + 1);
      // A died meanwhile (its record was never finished): B tells its asker, and only once.
      const [first, second] = await Promise.all([b.exports.settle(), b.exports.settle()]);
      expect(first + second).toBe(1);
      expect(b.told.map((r) => [r.actor, r.words])).toEqual([['UAPPROVERA', '7d']]);
      expect(await a.exports.settle()).toBe(0);
      const actions = (await b.log.entries('sandbox')).map((e) => e.action);
      expect(actions).toEqual(['export-requested', 'export-undelivered']);
    });
  });
}

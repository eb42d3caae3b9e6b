// What every store kind does for a holder that lets go: compare-and-delete removes a claim only while
// it is still the holder's (a lease that lapsed and was taken by another replica stays taken), and a
// locker that gives up after waitMs is told so with LockTimeoutError. Two replicas' handles each:
// their own connections on Redis and PostgreSQL, the process's one store on memory and SQLite.
import { describe, expect } from 'vitest';
import { LockTimeoutError, StoreErrorCode } from '../../src/store/index.js';
import { STORE_KINDS, storesTest as test } from '../support/shared-stores.js';

for (const kind of STORE_KINDS) {
  describe.skipIf(!kind.up)(`releasing and waiting on ${kind.name}`, () => {
    test.override('storeKind', kind.name);

    test('deletes with compare-and-delete only a live value equal to the one given, once among racers', async ({
      replicas,
    }) => {
      const { a, b } = await replicas(`cad-${kind.name}`);
      expect(await a.compareAndDelete('claim', 'replica-a')).toBe(false);
      expect(await a.setIfAbsent('claim', 'replica-a', 60_000)).toBe(true);
      expect(await b.compareAndDelete('claim', 'replica-b')).toBe(false);
      expect(await b.get('claim')).toBe('replica-a');
      const racers = Array.from({ length: 20 }, (_, i) =>
        (i % 2 ? a : b).compareAndDelete('claim', 'replica-a'),
      );
      expect((await Promise.all(racers)).filter(Boolean)).toHaveLength(1);
      // Taken afresh by another holder: the first one's late delete leaves it.
      expect(await b.setIfAbsent('claim', 'replica-b', 60_000)).toBe(true);
      expect(await a.compareAndDelete('claim', 'replica-a')).toBe(false);
      expect(await a.get('claim')).toBe('replica-b');
      // Equal as JSON, keyv's escaped strings included; a number is neither a boolean nor a string.
      await a.set('state', { step: 1, note: ':colon' });
      expect(await b.compareAndDelete('state', { step: 2, note: ':colon' })).toBe(false);
      expect(await b.compareAndDelete('state', { step: 1, note: ':colon' })).toBe(true);
      expect(await a.get('state')).toBeUndefined();
      await a.set('flag', 1);
      expect(await b.compareAndDelete('flag', true)).toBe(false);
      expect(await b.compareAndDelete('flag', '1')).toBe(false);
      expect(await a.get('flag')).toBe(1);
      // An expired value is nothing to delete.
      await a.set('lease', 'old', 1);
      await expect.poll(() => a.get('lease'), { timeout: 10_000 }).toBeUndefined();
      expect(await b.compareAndDelete('lease', 'old')).toBe(false);
    });

    test('gives up on a held lock after waitMs with LockTimeoutError, and the lock works after', async ({
      replicas,
    }) => {
      const { a, b } = await replicas(`lock-wait-${kind.name}`);
      let letGo!: () => void;
      const held = new Promise<void>((resolve) => (letGo = resolve));
      let entered!: () => void;
      const inside = new Promise<void>((resolve) => (entered = resolve));
      const first = a.withLock('busy', async () => {
        entered();
        await held;
        return 'first';
      });
      await inside;
      const ran: string[] = [];
      const impatient = b.withLock('busy', async () => void ran.push('impatient'), { waitMs: 50 });
      await expect(impatient).rejects.toBeInstanceOf(LockTimeoutError);
      await expect(impatient).rejects.toMatchObject({ code: StoreErrorCode.LockTimeout });
      // One that gave up passes its turn on: one waiting behind it still gets the lock.
      const patient = b.withLock('busy', async () => void ran.push('patient'), { waitMs: 30_000 });
      letGo();
      expect(await first).toBe('first');
      await patient;
      expect(await a.withLock('busy', async () => 'after', { waitMs: 5_000 })).toBe('after');
      expect(ran).toEqual(['patient']);
    });
  });
}

// The passkey book on every store: a passkey added counts everywhere, a revoked one at once, a
// credential is added once, and a nonce or link is used once only.
import { describe, expect, it } from 'vitest';
import type { Passkey } from '../../src/access/index.js';
import { COUNTED_MOST, ONE_TIME_MS, PasskeyBook } from '../../src/approvals/passkey-book.js';
import { processSealer } from '../../src/approvals/passkey-seal.js';
import { createStore } from '../../src/store/index.js';
import { LapsedLock } from '../support/lapsed-lock.js';
import { STORE_KINDS, storesTest as test } from '../support/shared-stores.js';

const passkey = (credentialId: string, user = 'U_BOLA'): Passkey => ({
  credentialId,
  user,
  name: "Bola's MacBook",
  publicKey: 'pk',
  counter: 0,
  addedAt: '2026-11-01T10:00:00.000Z',
  registration: { requestId: 'AR-1', approvedBy: ['U_CHIDI'] },
});

for (const kind of STORE_KINDS) {
  describe.skipIf(!kind.up)(`the passkey book on ${kind.name}`, () => {
    test.override('storeKind', kind.name);

    test('keeps passkeys for every replica, and ends a revoked one at once', async ({ replicas }) => {
      const { a, b } = await replicas('passkey-book');
      const one = new PasskeyBook(a, 'sandbox');
      const other = new PasskeyBook(b, 'sandbox');
      expect(await one.add(passkey('c1'))).toBe(true);
      expect(await other.add(passkey('c1'))).toBe(false);
      expect(await one.add(passkey('c2', 'U_CHIDI'))).toBe(true);
      expect((await other.heldBy('U_BOLA')).map((p) => p.credentialId)).toEqual(['c1']);
      expect(await other.holders()).toBe(2);
      expect(await other.revoke('c1', 'U_BOLA', new Date('2026-11-02T00:00:00Z'))).toBe(true);
      expect(await one.heldBy('U_BOLA')).toEqual([]);
      expect((await one.byCredential('c1'))?.revoked?.by).toBe('U_BOLA');
      expect(await one.revoke('c1', 'U_BOLA', new Date())).toBe(false);
      expect(await one.advanceCounter('c2', 7, 'n1', new Date('2026-11-03T00:00:00Z'))).toBe(true);
      expect(await other.byCredential('c2')).toMatchObject({
        counter: 7,
        lastUsedAt: '2026-11-03T00:00:00.000Z',
      });
    });

    test('moves a signature counter up only, in one step, on whichever replica', async ({ replicas }) => {
      const { a, b } = await replicas('passkey-counter');
      const one = new PasskeyBook(a, 'sandbox');
      const other = new PasskeyBook(b, 'sandbox');
      await one.add(passkey('c1'));
      await one.add(passkey('c0'));
      const at = new Date('2026-11-03T00:00:00Z');
      // One counter, two assertions at once (a cloned authenticator): one counts.
      const both = await Promise.all([
        one.advanceCounter('c1', 5, 'n1', at),
        other.advanceCounter('c1', 5, 'n2', at),
      ]);
      expect(both.filter((b) => b === true)).toHaveLength(1);
      expect(both).toContain('counter-went-back');
      expect(await one.advanceCounter('c1', 4, 'n3', at)).toBe('counter-went-back');
      // The assertion that counted, met again (a section run again), still counts.
      const counted = (await one.byCredential('c1'))?.counted?.at(-1)?.nonce ?? '';
      expect(await other.advanceCounter('c1', 5, counted, at)).toBe(true);
      expect(await other.advanceCounter('c1', 6, 'n4', at)).toBe(true);
      expect(await other.byCredential('c1')).toMatchObject({
        counter: 6,
        counted: [{ counter: 5 }, { nonce: 'n4', counter: 6 }],
      });
      // Met again after n4 moved the counter (its approval's write was refused meanwhile): still taken,
      // only with the counter it set.
      expect(await one.advanceCounter('c1', 5, counted, at)).toBe(true);
      expect(await one.advanceCounter('c1', 6, counted, at)).toBe('counter-went-back');
      // An authenticator that keeps no counter: 0 each time.
      expect(await one.advanceCounter('c0', 0, 'n5', at)).toBe(true);
      expect(await other.advanceCounter('c0', 0, 'n6', at)).toBe(true);
      expect(await one.advanceCounter('unknown', 1, 'n7', at)).toBe('unknown-passkey');
    });

    test('bars a registration whose write went unanswered: an add still running finds the bar and writes nothing', async ({
      replicas,
    }) => {
      const { a, b } = await replicas('passkey-barred');
      const lapsed = new LapsedLock('passkeys:');
      const stalled = new PasskeyBook(lapsed.wrap(a), 'sandbox');
      const sweeper = new PasskeyBook(b, 'sandbox');
      const at = new Date('2026-11-02T00:00:00Z');
      // The stalled holder's write waits while the sweeper bars its request: refused, and its next
      // try reads the bar.
      const gate = lapsed.holdWrite(() => true);
      const adding = stalled.add(passkey('c1'));
      await gate.arrived;
      expect(await sweeper.barRegistration('AR-1', 'c1', at)).toBe('barred');
      gate.release();
      expect(await adding).toBe(false);
      expect(await sweeper.byCredential('c1')).toBeUndefined();
      expect(await sweeper.all()).toEqual([]);
      expect(await sweeper.barRegistration('AR-1', 'c1', at)).toBe('barred');
      // Another request's credential is added as ever; one found written is settled as written.
      const other = { ...passkey('c2'), registration: { requestId: 'AR-2', approvedBy: [] } };
      expect(await sweeper.add(other)).toBe(true);
      expect(await stalled.barRegistration('AR-2', 'c2', at)).toBe('written');
      expect((await stalled.heldBy('U_BOLA')).map((p) => p.credentialId)).toEqual(['c2']);
    });

    test('knows a counted assertion again for its nonce’s life, however many counted since', async ({
      replicas,
    }) => {
      const { a, b } = await replicas('passkey-counted');
      const one = new PasskeyBook(a, 'sandbox');
      const other = new PasskeyBook(b, 'sandbox');
      await one.add(passkey('c1'));
      const start = Date.parse('2026-11-03T00:00:00Z');
      const after = (ms: number) => new Date(start + ms);
      expect(await one.advanceCounter('c1', 1, 'first', after(0))).toBe(true);
      // Twenty more by the same passkey while the first's step waits to run again.
      for (let i = 2; i <= 21; i++)
        expect(await other.advanceCounter('c1', i, `n${i}`, after(i * 1000))).toBe(true);
      expect(await one.advanceCounter('c1', 1, 'first', after(ONE_TIME_MS - 1))).toBe(true);
      // Once its nonce's life is over it is forgotten (at the next write) and no longer taken.
      expect(await other.advanceCounter('c1', 22, 'n22', after(ONE_TIME_MS))).toBe(true);
      const nonces = (await one.byCredential('c1'))?.counted?.map((c) => c.nonce);
      expect(nonces).not.toContain('first');
      expect(nonces).toContain('n2');
      expect(await one.advanceCounter('c1', 1, 'first', after(ONE_TIME_MS))).toBe('counter-went-back');
      // However many count within one life, the book keeps at most the newest COUNTED_MOST.
      for (let i = 23; i <= 23 + COUNTED_MOST; i++)
        await one.advanceCounter('c1', i, `n${i}`, after(ONE_TIME_MS));
      const kept = (await other.byCredential('c1'))?.counted ?? [];
      expect(kept).toHaveLength(COUNTED_MOST);
      expect(kept.at(-1)).toMatchObject({
        nonce: `n${23 + COUNTED_MOST}`,
        at: after(ONE_TIME_MS).toISOString(),
      });
    });

    test('keeps a revocation made while a replica whose lock lapsed was changing the book', async ({
      replicas,
    }) => {
      const { a, b } = await replicas('passkey-lapsed');
      const lapsed = new LapsedLock('passkeys:');
      const stalled = new PasskeyBook(lapsed.wrap(a), 'sandbox');
      const other = new PasskeyBook(b, 'sandbox');
      await other.add(passkey('c1'));
      const at = new Date('2026-11-03T00:00:00Z');
      // The stalled replica read the book and waits to write its counter; meanwhile c1 is revoked.
      const gate = lapsed.holdWrite(() => true);
      const advancing = stalled.advanceCounter('c1', 5, 'n1', at);
      await gate.arrived;
      expect(await other.revoke('c1', 'U_BOLA', at)).toBe(true);
      gate.release();
      // Decided again on the book with the revocation: refused, and its late write did not bring c1 back.
      expect(await advancing).toBe('revoked-passkey');
      expect(await other.heldBy('U_BOLA')).toEqual([]);
      expect(await other.byCredential('c1')).toMatchObject({ revoked: { by: 'U_BOLA' }, counter: 0 });
      expect((await other.byCredential('c1'))?.counted).toBeUndefined();
    });

    test('moves no counter of a revoked passkey, not even for an assertion counted before', async ({
      replicas,
    }) => {
      const { a, b } = await replicas('passkey-revoked');
      const one = new PasskeyBook(a, 'sandbox');
      const other = new PasskeyBook(b, 'sandbox');
      await one.add(passkey('c1'));
      const at = new Date('2026-11-03T00:00:00Z');
      expect(await one.advanceCounter('c1', 1, 'n1', at)).toBe(true);
      expect(await other.revoke('c1', 'U_CHIDI', at)).toBe(true);
      expect(await one.advanceCounter('c1', 2, 'n2', at)).toBe('revoked-passkey');
      // Its step run again after the revocation: refused too.
      expect(await one.advanceCounter('c1', 1, 'n1', at)).toBe('revoked-passkey');
      expect(await other.byCredential('c1')).toMatchObject({ counter: 1, counted: [{ nonce: 'n1' }] });
    });

    test('gives out a nonce and a link that work once, on whichever replica', async ({ replicas }) => {
      const { a, b } = await replicas('passkey-once');
      const one = new PasskeyBook(a, 'sandbox');
      const other = new PasskeyBook(b, 'sandbox');
      const nonce = await one.issueNonce({ requestId: 'AR-1', user: 'U_BOLA', round: 0 });
      const taken = await Promise.all([one.takeNonce(nonce), other.takeNonce(nonce)]);
      expect(taken.filter(Boolean)).toEqual([{ requestId: 'AR-1', user: 'U_BOLA', round: 0 }]);
      const what = { page: 'register' as const, user: 'U_BOLA', team: 'T1' };
      const link = await one.issueLink(what);
      expect(await other.peekLink(link)).toEqual({ ok: true, link: what });
      const used = await Promise.all([other.useLink(link), one.useLink(link), other.useLink(link)]);
      expect(used.filter((u) => u.ok)).toEqual([{ ok: true, link: what }]);
      expect(used.filter((u) => !u.ok)).toEqual([
        { ok: false, why: 'used', link: what },
        { ok: false, why: 'used', link: what },
      ]);
      // Used, it still says whose it was (peeked or used again), on every replica.
      expect(await one.peekLink(link)).toEqual({ ok: false, why: 'used', link: what });
      expect(await one.peekLink('bm90LWEtdG9rZW4')).toEqual({ ok: false, why: 'unknown' });
    });

    test('keeps an expired link’s record, refused as expired and never used', async ({ replicas }) => {
      const { a, b } = await replicas('passkey-expired');
      let at = new Date('2026-11-29T08:00:00Z');
      const one = new PasskeyBook(a, 'sandbox', undefined, () => at);
      const other = new PasskeyBook(b, 'sandbox', undefined, () => at);
      const what = { page: 'sign' as const, user: 'U_BOLA', team: 'T1', requestId: 'AR-1', round: 0 };
      const link = await one.issueLink(what);
      at = new Date('2026-11-29T08:09:59Z');
      expect(await other.peekLink(link)).toEqual({ ok: true, link: what });
      at = new Date('2026-11-29T08:10:00Z');
      expect(await other.peekLink(link)).toEqual({ ok: false, why: 'expired', link: what });
      expect(await other.useLink(link)).toEqual({ ok: false, why: 'expired', link: what });
      expect(await one.useLink(link)).toEqual({ ok: false, why: 'expired', link: what });
    });
  });
}

describe('the passkey book asking who counts towards the first two', () => {
  it('never under its lock: an answer that never comes holds no revocation and no counter', async () => {
    const store = await createStore('memory://');
    const hung = new Promise<boolean>(() => undefined);
    const sealer = processSealer();
    const book = new PasskeyBook(store, 'sandbox', sealer, undefined, () => hung);
    const plain = new PasskeyBook(store, 'sandbox', sealer);
    expect(await plain.add(passkey('c1'))).toBe(true);
    expect(await plain.add(passkey('c2', 'U_CHIDI'))).toBe(true);
    // A registration being written whose check of who counts hangs (Slack not answering, say).
    void book.add(passkey('c3', 'U_DAYO'));
    await Promise.resolve();
    expect(await book.advanceCounter('c2', 3, 'n1', new Date('2026-11-03T00:00:00Z'))).toBe(true);
    expect(await book.revoke('c1', 'U_CHIDI', new Date('2026-11-04T00:00:00Z'))).toBe(true);
    expect(await book.heldBy('U_BOLA')).toEqual([]);
  });
});

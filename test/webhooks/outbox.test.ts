// The outbox's own records of an entry: its order (seq) and the time it was accepted name one moment;
// and the scan of its indexes, one store call however many shards its pending index has.
import { describe, expect, it } from 'vitest';
import { createStore, type Store } from '../../src/store/index.js';
import type { AlertSink } from '../../src/webhooks/alert-sink.js';
import { Deliverer } from '../../src/webhooks/deliverer.js';
import { Outbox } from '../../src/webhooks/outbox.js';

/** `store` with the name of each of its methods called pushed onto `calls`. */
function counting(store: Store, calls: string[]): Store {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(String(property));
        return value.apply(target, args);
      };
    },
  });
}

describe('Outbox', () => {
  it("stamps an entry's order and its accepted time from one reading of the clock", async () => {
    const store = await createStore('memory://');
    // A clock that moves on at each reading, as a busy process's would between two of them.
    let clock = Date.parse('2026-11-23T08:00:00.000Z');
    const outbox = new Outbox(store, undefined, () => clock++);
    const event = { event: 'deposit.completed', data: { transactionId: 'T-1', trx_ref: 'R-1' } };
    const created = await outbox.enqueue({
      id: 'a1b2c3',
      origin: 'webhook',
      environment: 'sandbox',
      event,
      orderKey: 'R-1',
    });
    expect(created).toBe(true);
    const entry = await outbox.get('a1b2c3');
    expect(Math.floor((entry?.seq ?? 0) / 1000)).toBe(Date.parse(entry?.enqueuedAt ?? ''));
    await store.close();
  });

  it('finds the pending entries of every shard with one store call', async () => {
    const store = await createStore('memory://');
    const calls: string[] = [];
    const outbox = new Outbox(counting(store, calls));
    // The first four hex digits pick the shard: these fall in shards 0, 1, 7 and 15.
    const ids = ['0000aa', '0001bb', '0007cc', '000fdd'];
    for (const id of ids) {
      const event = { event: 'deposit.completed', data: { transactionId: `T-${id}` } };
      await outbox.enqueue({ id, origin: 'webhook', environment: 'sandbox', event });
    }
    calls.length = 0;
    expect((await outbox.pendingIds()).sort()).toEqual(ids);
    expect(calls).toEqual(['setMembersMany']);
    await store.close();
  });

  it("reads the outbox's indexes with one store call at a deliverer's start and at its scan", async () => {
    const store = await createStore('memory://');
    const calls: string[] = [];
    const counted = counting(store, calls);
    const nothingToPost = () => Promise.reject(new Error('nothing waits, so nothing is posted'));
    const sink: AlertSink = { post: nothingToPost, update: nothingToPost };
    const deliverer = new Deliverer({
      outbox: new Outbox(counted),
      store: counted,
      sink,
      render: () => ({ text: '', blocks: [] }),
      route: () => 'CALERTS',
      rescanMs: 3_600_000,
    });
    // On memory, start releases the claims a dead process left (one read of the indexes), then scans.
    await deliverer.start();
    await deliverer.stop(); // waits for the scan start began
    expect(calls.filter((call) => call.startsWith('set'))).toEqual(['setMembersMany', 'setMembersMany']);
    await store.close();
  });
});

describe('Outbox.stillToPostAlone', () => {
  it('leaves an entry to a digest that finishes between its reads: never posted alone as well', async () => {
    const store = await createStore('memory://');
    const digest = new Outbox(store);
    const event = { event: 'deposit.completed', data: { transactionId: 'T-d1', trx_ref: 'R-d1' } };
    await digest.enqueue({ id: 'd1e1', origin: 'webhook', environment: 'sandbox', event });
    const record = {
      id: 'D1',
      channel: 'CALERTS',
      part: 1,
      more: false,
      entryIds: ['d1e1'],
      createdAt: '2026-11-23T08:00:00.000Z',
    };
    await digest.openDigest(record);
    // Another replica took the entry's lapsed claim; its read of the entry lands just before the
    // digest marks the entry delivered and closes.
    expect(await digest.claim('d1e1', 'B', 60_000)).toBe(true);
    let finished = false;
    const racing = new Proxy(store, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (property !== 'get' || typeof value !== 'function') return value;
        return async (key: string) => {
          const read = await value.call(target, key);
          if (key === 'webhooks:outbox:entry:d1e1' && !finished) {
            finished = true;
            const entry = await digest.get('d1e1');
            if (entry) await digest.markDelivered(entry, '1.1', 'CALERTS', 'A', record);
            await digest.closeDigest('D1', 'A');
          }
          return read;
        };
      },
    });
    expect(await new Outbox(racing).stillToPostAlone('d1e1', 'B')).toBeUndefined();
    expect(finished).toBe(true);
    expect((await digest.get('d1e1'))?.digestId).toBe('D1');
    await store.close();
  });
});

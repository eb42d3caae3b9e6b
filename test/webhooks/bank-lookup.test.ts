// A redemption's alert names the receiver's bank, looked up from its code in the service's bank list.
// That read can hang (three tries of up to 15 s each, longer with a slow body): it runs before the
// alert is claimed and is bounded, so no claim or post lock is held across it, and a name not known
// in time shows the bank code instead. Two deliverers on one store stand for two replicas; fake time
// moves the claim's lease and the post lock's cap, which no test sits out in real time.
import { afterEach, expect, test, vi } from 'vitest';
import { createStore, type Store } from '../../src/store/index.js';
import type { AlertSink } from '../../src/webhooks/alert-sink.js';
import { Deliverer } from '../../src/webhooks/deliverer.js';
import { bankNamesFrom } from '../../src/webhooks/index.js';
import { Outbox } from '../../src/webhooks/outbox.js';
import type { AlertInput } from '../../src/webhooks/types.js';

afterEach(() => {
  vi.useRealTimers();
});

// Hex, as outbox ids are (the pending index is sharded by their first digits).
const ID = 'f0a1b2c3';
const CLAIM = `webhooks:outbox:claim:${ID}`;
/** The deliverer's default claim lease and the post lock's margin past it (post-lock.ts). */
const LEASE_MS = 60_000;
const HOLD_MARGIN_MS = 20_000;

/** A stand-in for the service whose bank list read hangs until `answer()`. */
function hangingBanks() {
  const waiting: Array<(banks: Array<{ code: string; name: string }>) => void> = [];
  let arrived!: () => void;
  const firstAsked = new Promise<void>((resolve) => (arrived = resolve));
  const api = {
    getBanks: () =>
      new Promise<Array<{ code: string; name: string }>>((resolve) => {
        waiting.push(resolve);
        arrived();
      }),
  };
  const answer = () => {
    for (const resolve of waiting.splice(0)) resolve([{ code: '058', name: 'Guaranty Trust Bank' }]);
  };
  return { api, firstAsked, answer };
}

/** A sink that records each post's text and takes it. */
function recordingSink(): AlertSink & { posted: string[] } {
  const posted: string[] = [];
  const post: AlertSink['post'] = async (message) => {
    posted.push(message.text);
    return { ok: true, ts: `${posted.length}.0` };
  };
  return { posted, post, update: post };
}

function deliverer(store: Store, sink: AlertSink, bankName: (code: string) => Promise<string | undefined>) {
  return new Deliverer({
    outbox: new Outbox(store),
    store,
    sink,
    render: (input: AlertInput) => ({
      text: `failed redemption to ${input.bankName ?? 'bank 058'}`,
      blocks: [],
    }),
    route: () => 'CALERTS',
    rescanMs: 3_600_000,
    bankName,
  });
}

async function enqueueFailedRedemption(store: Store): Promise<void> {
  const event = {
    event: 'transaction.failed',
    data: {
      transactionId: 'T-1',
      trx_ref: 'R-1',
      trx_type: 'fiat_redeem',
      status: 'failed',
      receiver: '058:0123456789:ADA OBI',
    },
  };
  await new Outbox(store).enqueue({ id: ID, origin: 'webhook', environment: 'sandbox', event });
}

test('a failed redemption is posted once, with its bank code, when the bank list read hangs past the claim', async ({
  onTestFinished,
}) => {
  vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
  const store = await createStore('memory://');
  onTestFinished(() => store.close());
  const service = hangingBanks();
  const lookup = bankNamesFrom(service.api);
  const [sinkA, sinkB] = [recordingSink(), recordingSink()];
  // Both replicas are up before the alert arrives (a memory store's deliverer frees claims at start).
  const [a, b] = [deliverer(store, sinkA, lookup), deliverer(store, sinkB, lookup)];
  await b.start();
  await enqueueFailedRedemption(store);
  await a.start();
  await service.firstAsked;
  // Nothing is held while the bank is looked up: no claim another replica must wait out.
  expect.soft(await store.get(CLAIM)).toBeUndefined();
  // The service stays silent past the claim's lease and the post lock's cap.
  await vi.advanceTimersByTimeAsync(LEASE_MS + HOLD_MARGIN_MS + 1_000);
  // The other replica scans now: the alert is posted already, or still claimed by the first.
  b.kick();
  await vi.advanceTimersByTimeAsync(LEASE_MS + HOLD_MARGIN_MS + 1_000);
  service.answer();
  await vi.advanceTimersByTimeAsync(1_000);
  await Promise.all([a.stop(), b.stop()]);
  expect([...sinkA.posted, ...sinkB.posted]).toEqual(['failed redemption to bank 058']);
  expect(await new Outbox(store).pendingCount()).toBe(0);
});

test('a bank name the service gives in time is shown', async ({ onTestFinished }) => {
  const store = await createStore('memory://');
  onTestFinished(() => store.close());
  const service = hangingBanks();
  const sink = recordingSink();
  const a = deliverer(store, sink, bankNamesFrom(service.api));
  await enqueueFailedRedemption(store);
  await a.start();
  await service.firstAsked;
  service.answer();
  await expect
    .poll(() => sink.posted, { timeout: 10_000 })
    .toEqual(['failed redemption to Guaranty Trust Bank']);
  await a.stop();
});

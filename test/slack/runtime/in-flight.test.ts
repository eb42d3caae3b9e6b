// Work after the ack never runs on the tick of the ack, and at most one piece of it starts per turn
// of the event loop, so the requests read in between are acked first. Before, run() started the work
// at once, on the tick that had just written the ack, ahead of the next requests.
import { describe, expect, it } from 'vitest';
import { afterAck, createInFlight, createSlackTraffic } from '../../../src/slack/runtime/in-flight.js';
import { capturedLog } from '../../support/captured-log.js';

/** Counts turns of the event loop (one setImmediate each) until stopped. */
function countTurns(): { now(): number; stop(): void } {
  let turn = 0;
  let counting = true;
  const count = () => {
    turn++;
    if (counting) setImmediate(count);
  };
  setImmediate(count);
  return {
    now: () => turn,
    stop: () => {
      counting = false;
    },
  };
}

describe('work after the ack', () => {
  it('does not start on the tick that queued it', async () => {
    const inFlight = createInFlight();
    const order: string[] = [];
    const answer = inFlight.run(async () => {
      order.push('answer');
      return 42;
    });
    order.push('ack');
    await Promise.resolve();
    order.push('microtasks of the ack');
    expect(await answer).toBe(42);
    expect(order).toEqual(['ack', 'microtasks of the ack', 'answer']);
  });

  it('starts one piece per turn of the event loop, in the order queued', async () => {
    const inFlight = createInFlight();
    const loop = countTurns();
    const started: Array<{ name: string; turn: number }> = [];
    for (const name of ['a', 'b', 'c', 'd']) {
      void inFlight.run(async () => {
        started.push({ name, turn: loop.now() });
      });
    }
    await inFlight.drain(5_000);
    loop.stop();
    expect(started.map((s) => s.name)).toEqual(['a', 'b', 'c', 'd']);
    expect(new Set(started.map((s) => s.turn)).size).toBe(4);
  });

  it('spreads pieces that resume together (one service read answering many) over turns of their own', async () => {
    const inFlight = createInFlight();
    const loop = countTurns();
    let release: () => void = () => undefined;
    const read = new Promise<void>((resolve) => {
      release = resolve;
    });
    const sent: number[] = [];
    let waiting = 0;
    for (let i = 0; i < 5; i++) {
      void inFlight.run(async () => {
        waiting++;
        await read;
        await inFlight.turn();
        sent.push(loop.now());
      });
    }
    await expect.poll(() => waiting).toBe(5); // every piece waits on the one read
    release();
    await inFlight.drain(5_000);
    loop.stop();
    expect(sent).toHaveLength(5);
    expect(new Set(sent).size).toBe(5);
  });

  it('hands back the error of a piece that fails, and shutdown still waits for the queue', async () => {
    const inFlight = createInFlight();
    const failed = inFlight.run(async () => {
      throw new Error('service down');
    });
    let finished = false;
    void inFlight.run(async () => {
      finished = true;
    });
    expect(inFlight.size).toBe(2);
    await expect(failed).rejects.toThrow('service down');
    await inFlight.drain(5_000);
    expect(finished).toBe(true);
    expect(inFlight.size).toBe(0);
  });
});

// Answers make way for acks: while Slack requests keep arriving, queued answers wait for a quiet
// moment (at most maxWaitMs). A clock the test moves stands in for time; turns of the loop are real.
describe('work after the ack, while Slack requests arrive', () => {
  const turns = (n: number) =>
    new Promise<void>((resolve) => {
      let left = n;
      const next = () => (--left <= 0 ? resolve() : setImmediate(next));
      setImmediate(next);
    });
  const waitUntil = async (test: () => boolean) => {
    while (!test()) await new Promise((r) => setTimeout(r, 1));
  };

  it('counts a request being acked as traffic until it is answered, then for the quiet window', () => {
    let now = 0;
    const traffic = createSlackTraffic(5, () => now);
    expect(traffic.busy()).toBe(false);
    traffic.arrived();
    expect(traffic.busy()).toBe(true);
    now = 5;
    expect(traffic.busy()).toBe(false); // still sending its body: nothing to make way for yet
    const answered = traffic.acking();
    now = 100;
    expect(traffic.busy()).toBe(true); // being acked, however long it takes
    answered();
    answered(); // told twice: counted once
    expect(traffic.busy()).toBe(true);
    now = 104;
    expect(traffic.busy()).toBe(true);
    now = 105;
    expect(traffic.busy()).toBe(false);
  });

  it('starts nothing while a request is being acked, and starts it once the request is answered', async () => {
    let now = 0;
    const traffic = createSlackTraffic(5, () => now);
    const inFlight = createInFlight({ traffic, now: () => now, recheckMs: 1 });
    const answered = traffic.acking();
    let started = false;
    const answer = inFlight.run(async () => {
      started = true;
    });
    await turns(20);
    await new Promise((r) => setTimeout(r, 10)); // a few rechecks too
    expect(started).toBe(false);
    answered();
    now += 5; // and the quiet window passes
    await answer;
    expect(started).toBe(true);
  });

  it('starts a piece that has waited maxWaitMs even while requests keep coming', async () => {
    let now = 0;
    const traffic = createSlackTraffic(5, () => now);
    const inFlight = createInFlight({ traffic, now: () => now, maxWaitMs: 2_000, recheckMs: 1 });
    traffic.acking(); // never answered: the burst does not end
    const order: string[] = [];
    void inFlight.run(async () => {
      order.push('first');
    });
    now = 1_500;
    void inFlight.run(async () => {
      order.push('second');
    });
    await turns(10);
    expect(order).toEqual([]);
    now = 2_000; // the first has waited its maximum; the second only 500 ms
    await waitUntil(() => order.length > 0);
    await turns(10);
    expect(order).toEqual(['first']);
    now = 3_500;
    await inFlight.drain(5_000);
    expect(order).toEqual(['first', 'second']);
  });

  it('staggers callers one per turn, in order, without waiting for the traffic their own request makes', async () => {
    // A read made before its own ack (a picker's options) joins a shared one: its request is open, so
    // waiting for a quiet moment would hold it for the whole maxWaitMs, past Slack's deadline.
    const now = 0; // the clock does not move: nothing may wait for time to pass
    const traffic = createSlackTraffic(5, () => now);
    const inFlight = createInFlight({ traffic, now: () => now, maxWaitMs: 2_000 });
    traffic.acking(); // never answered while the callers wait
    const loop = countTurns();
    const resumed: Array<{ name: string; turn: number }> = [];
    await Promise.all(
      ['a', 'b', 'c'].map((name) => inFlight.stagger().then(() => resumed.push({ name, turn: loop.now() }))),
    );
    loop.stop();
    expect(resumed.map((r) => r.name)).toEqual(['a', 'b', 'c']);
    expect(new Set(resumed.map((r) => r.turn)).size).toBe(3);
  });
});

describe('afterAck', () => {
  it('returns before the work has run, and logs a failure the work let through with its request id', async () => {
    const { logger, entries } = capturedLog('info');
    const inFlight = createInFlight();
    const returned = afterAck(
      inFlight,
      async () => {
        throw new Error('Slack refused the response_url post (HTTP 404)');
      },
      logger,
      '/cngn',
      '13345224609.738474920.8088930838d88f008e0',
    );
    expect(returned).toBeUndefined();
    expect(inFlight.size).toBe(1);
    await inFlight.drain(5_000);
    await new Promise((r) => setImmediate(r));
    expect(entries).toEqual([
      expect.objectContaining({
        level: 'error',
        message: 'an answer after the ack could not be delivered',
        what: '/cngn',
        slackRequestId: '13345224609.738474920.8088930838d88f008e0',
        error: expect.objectContaining({
          type: 'Error',
          message: 'Slack refused the response_url post (HTTP 404)',
          stack: expect.stringContaining('in-flight.test.ts'),
        }),
      }),
    ]);
  });
});

// Work after the ack never runs on the tick of the ack, and at most one piece of it starts per turn
// of the event loop, so the requests read in between are acked first. Before, run() started the work
// at once, on the tick that had just written the ack, ahead of the next requests.
import { describe, expect, it } from 'vitest';
import { createInFlight } from '../../src/slack/in-flight.js';

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
    let turn = 0;
    let counting = true;
    const count = () => {
      turn++;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    const started: Array<{ name: string; turn: number }> = [];
    for (const name of ['a', 'b', 'c', 'd']) {
      void inFlight.run(async () => {
        started.push({ name, turn });
      });
    }
    await inFlight.drain(5_000);
    counting = false;
    expect(started.map((s) => s.name)).toEqual(['a', 'b', 'c', 'd']);
    expect(new Set(started.map((s) => s.turn)).size).toBe(4);
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

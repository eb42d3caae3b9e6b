// The in-process queue in front of a shared lock: a waiter that gives up leaves the line without
// holding up the ones behind it.
import { describe, expect, it } from 'vitest';
import { KeyedMutex } from '../../src/store/mutex.js';

describe('keyed mutex', () => {
  it('gives up a wait that runs out, and passes the turn on to the next waiter', async () => {
    const mutex = new KeyedMutex();
    const endFirst = await mutex.acquire('l', 1_000);
    expect(endFirst).toBeTypeOf('function');
    const second = mutex.acquire('l', 20);
    const third = mutex.acquire('l', 10_000);
    expect(await second).toBeUndefined();
    endFirst?.();
    const endThird = await third;
    expect(endThird).toBeTypeOf('function');
    let ran = false;
    const fourth = mutex.run('l', async () => {
      ran = true;
    });
    expect(ran).toBe(false); // still the third's turn
    endThird?.();
    await fourth;
    expect(ran).toBe(true);
  });
});

// The rule App Home's publishes share reads by: join only a read begun after the publish was asked
// for, never reuse a finished one, and a read that fails fails only those that joined it.
import { expect, test } from 'vitest';
import { SharedReads } from '../../../../src/slack/approvals/home/shared-reads.js';

/** A read answered when the test says, counting how many began. */
function heldRead() {
  let began = 0;
  const answers: Array<{ resolve: (v: number) => void; reject: (e: Error) => void }> = [];
  const start = () => {
    began += 1;
    return new Promise<number>((resolve, reject) => answers.push({ resolve, reject }));
  };
  return { start, began: () => began, answers };
}

test('joins a read begun after the ask, never one begun before it, nor a finished one', async () => {
  const reads = new SharedReads<'x'>();
  const held = heldRead();
  const first = reads.ask();
  const second = reads.ask();
  const a = reads.read('x', first, held.start);
  const b = reads.read('x', second, held.start);
  expect(held.began()).toBe(1);
  const late = reads.read('x', reads.ask(), held.start); // asked for after the read began
  expect(held.began()).toBe(2);
  held.answers[0]?.resolve(1);
  held.answers[1]?.resolve(2);
  expect([await a, await b, await late]).toEqual([1, 1, 2]);
  const again = reads.read('x', first, held.start); // both reads finished: a new one
  expect(held.began()).toBe(3);
  held.answers[2]?.resolve(3);
  expect(await again).toBe(3);
});

test('a read that fails fails only those that joined it, and clears itself', async () => {
  const reads = new SharedReads<'x' | 'y'>();
  const held = heldRead();
  const since = reads.ask();
  const a = reads.read('x', since, held.start);
  const b = reads.read('x', since, held.start);
  const other = reads.read('y', since, held.start); // another key, another read
  expect(held.began()).toBe(2);
  held.answers[0]?.reject(new Error('store down'));
  await expect(a).rejects.toThrow('store down');
  await expect(b).rejects.toThrow('store down');
  const next = reads.read('x', since, held.start);
  expect(held.began()).toBe(3);
  held.answers[1]?.resolve(7);
  held.answers[2]?.resolve(8);
  expect([await other, await next]).toEqual([7, 8]);
});

test('a read that throws at once is a failed read, not a thrown publish', async () => {
  const reads = new SharedReads<'x'>();
  const failing = reads.read('x', reads.ask(), () => {
    throw new Error('no store');
  });
  await expect(failing).rejects.toThrow('no store');
});

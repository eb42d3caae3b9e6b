import { describe, expect } from 'vitest';
import { expectEachShownOnce, refsShown, test } from './digest-support.js';

describe('a digest across a crash', () => {
  test('crash before posting: the next process posts the digest once', async ({ crashDuring }) => {
    let dead = false;
    const { fake, refs } = await crashDuring((fake, freeze) => {
      fake.on('chat.postMessage', () => {
        if (dead) return undefined;
        dead = true;
        freeze();
        // The process died before its request reached Slack: nothing is posted.
        return { status: 500, body: { ok: false, error: 'internal_error' } };
      });
    });
    expect(dead).toBe(true);
    expect(fake.messages()).toHaveLength(1);
    expectEachShownOnce(fake, refs);
  });

  test('crash after the placeholder was posted, before its ts was recorded: an empty placeholder, no event twice', async ({
    crashDuring,
  }) => {
    let dead = false;
    const { fake, refs } = await crashDuring((fake, freeze) => {
      fake.on('chat.postMessage', () => {
        if (!dead) {
          dead = true;
          freeze();
        }
        return undefined;
      });
    });
    const [orphan, digest] = fake.messages();
    expect(fake.messages()).toHaveLength(2);
    expect(orphan?.updates).toBe(0);
    expect(refsShown(orphan!)).toEqual([]);
    expect(refsShown(digest!)).toHaveLength(40);
    expectEachShownOnce(fake, refs);
  });

  test('crash after Slack took the events, before they were recorded as delivered: filled again in place, never twice', async ({
    crashDuring,
  }) => {
    let dead = false;
    const { fake, refs } = await crashDuring((fake, freeze) => {
      fake.on('chat.update', () => {
        if (!dead) {
          dead = true;
          freeze();
        }
        return undefined;
      });
    });
    expect(fake.messages()).toHaveLength(1);
    // Filled by the process that died and again, identically, by the next one.
    expect(fake.messages()[0]?.updates).toBe(2);
    expect(fake.callsTo('chat.update').map((c) => c.body.ts)).toEqual([
      fake.messages()[0]?.ts,
      fake.messages()[0]?.ts,
    ]);
    expectEachShownOnce(fake, refs);
  });
});

// SQLite reads parse keyv's layout without keyv; whatever keyv wrote must read back exactly as keyv
// itself reads it, escaped strings, buffers and expiry included.
import { join } from 'node:path';
import KeyvSqlite from '@keyv/sqlite';
import fc from 'fast-check';
import Keyv from 'keyv';
import { describe, expect } from 'vitest';
import { createStore } from '../../src/store/index.js';
import { memoryDirTest as it } from '../support/fixtures.js';
import { assertFuzz, OBJECT_MEMBER_NAMES } from '../support/fuzz-inputs.js';

// Strings that keyv escapes (a leading ':', ':base64:') and ones that only look close to it.
const text = fc.oneof(
  fc.string(),
  fc.string().map((s) => `:${s}`),
  fc.string().map((s) => `::${s}`),
  fc.constantFrom(':base64:', ':base64:aGk=', '":', ',":', '[":', 'a":b', '\\":'),
  fc.constantFrom(...OBJECT_MEMBER_NAMES),
);
const value = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small' },
    text,
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('node'), { maxLength: 4 }),
    fc.dictionary(text, tie('node'), { maxKeys: 4 }),
  ),
})).node;

describe('sqlite store reads', () => {
  it('reads back what keyv wrote, as keyv reads it', async ({ tempDir: dir }) => {
    const file = join(dir, 'values.sqlite');
    const store = await createStore(`sqlite://${file}`, { prefix: 'desk' });
    const plain = new Keyv({ store: new KeyvSqlite({ uri: `sqlite://${file}` }), namespace: 'desk' });
    try {
      let n = 0;
      await assertFuzz(
        fc.asyncProperty(value, async (written) => {
          const key = `k${n++}`;
          await store.set(key, written);
          const expected = (await plain.get(key)) ?? undefined; // the store answers undefined for null
          expect(await store.get(key)).toEqual(expected);
          expect(await store.getMany([key, 'absent'])).toEqual([expected, undefined]);
        }),
        300,
      );
    } finally {
      await plain.disconnect();
      await store.close();
    }
  });

  it('reads a buffer keyv wrote as a buffer, and an expired value as none', async ({ tempDir: dir }) => {
    const store = await createStore(`sqlite://${join(dir, 'buffer.sqlite')}`);
    try {
      await store.set('bytes', Buffer.from('hi'));
      expect(Buffer.isBuffer(await store.get('bytes'))).toBe(true);
      await store.set('soon', 'gone', 1);
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect(await store.get('soon')).toBeUndefined();
      expect(await store.getMany(['soon', 'bytes'])).toEqual([undefined, Buffer.from('hi')]);
    } finally {
      await store.close();
    }
  });
});

/** What keyv serializes: a value (any of the kinds above, a date, buffers) and maybe an expiry. */
const stored = fc.record(
  {
    value: fc.oneof(
      value,
      fc.date({ noInvalidDate: true }),
      fc.uint8Array({ maxLength: 6 }).map((bytes) => Buffer.from(bytes)),
      fc.dictionary(
        text,
        fc.uint8Array({ maxLength: 3 }).map((bytes) => Buffer.from(bytes)),
      ),
      // What a stored record may also hold: absent members, dates inside, a toJSON of its own, bytes
      // that are not a Buffer.
      fc.record({
        missing: fc.constant(undefined),
        at: fc.date({ noInvalidDate: true }),
        amount: text.map((shown) => ({ toJSON: () => shown })),
        bytes: fc.uint8Array({ maxLength: 3 }),
        list: fc.array(fc.oneof(text, fc.constant(undefined)), { maxLength: 3 }),
      }),
    ),
    expires: fc.option(fc.integer({ min: 0 }), { nil: undefined }),
  },
  { requiredKeys: ['value'] },
);

describe('sqlite store writes', () => {
  it('writes exactly the text keyv would write', async () => {
    const keyv = new Keyv();
    const serialize = keyv.serialize as (data: unknown) => string;
    const { writeStored } = await import('../../src/store/sqlite-values.js');
    await assertFuzz(
      fc.asyncProperty(stored, async (data) => {
        expect(await writeStored(data, serialize)).toBe(await serialize(data));
      }),
      1000,
    );
  });

  it('gives every store a keyv that writes and reads back exactly what keyv itself does', async () => {
    const keyv = new Keyv();
    const serialize = keyv.serialize as (data: unknown) => string;
    const deserialize = keyv.deserialize as (text: string) => unknown;
    const { withJsonSpeed } = await import('../../src/store/sqlite-values.js');
    const fast = withJsonSpeed(new Keyv());
    await assertFuzz(
      fc.asyncProperty(stored, async (data) => {
        const text = await serialize(data);
        expect(await fast.serialize?.(data as never)).toBe(text);
        expect(await fast.deserialize?.(text)).toEqual(await deserialize(text));
      }),
      1000,
    );
  });

  it('deletes in one statement and says whether there was a value', async ({ tempDir: dir }) => {
    const store = await createStore(`sqlite://${join(dir, 'delete.sqlite')}`);
    try {
      await store.set('here', { n: 1 });
      expect(await store.delete('here')).toBe(true);
      expect(await store.delete('here')).toBe(false);
      expect(await store.get('here')).toBeUndefined();
    } finally {
      await store.close();
    }
  });
});

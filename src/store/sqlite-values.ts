// keyv's layout on the SQLite file, read and written directly: a value is the JSON
// `{"value":…,"expires":…}` of keyv's serializer, with strings that start with ':' escaped by one more
// ':' (and buffers as ':base64:…'). Going through keyv costs several promises, hooks and a JSON reviver
// per value, and its serializer builds the text in JavaScript; on the webhook path that is a good part
// of each event. Here a value is read with plain JSON.parse and written with plain JSON.stringify
// unless it holds such a string (or a buffer), in which case keyv's own code does it, so both agree.
// Every store's keyv serializes that way too (withJsonSpeed): the same text, read back the same.
import type Keyv from 'keyv';

/**
 * A JSON string that starts with ':' opens right after a structural character (`:` `,` `[`): every
 * escaped string matches. Text that only looks like one (a key starting with ':') takes the exact path.
 */
const ESCAPED_STRING = /[:,[]":/;

type Deserialize = NonNullable<Keyv['deserialize']>;
type Serialize = NonNullable<Keyv['serialize']>;

interface StoredValue {
  value?: unknown;
  expires?: unknown;
}

/** The value keyv stored in `raw`, or undefined when there is none or it has expired at `now`. */
export async function readStored<T>(
  raw: unknown,
  now: number,
  deserialize: Deserialize | undefined,
): Promise<T | undefined> {
  if (typeof raw !== 'string') return undefined;
  const data = (ESCAPED_STRING.test(raw) && deserialize ? await deserialize(raw) : JSON.parse(raw)) as
    | StoredValue
    | null
    | undefined;
  if (data === null || typeof data !== 'object') return undefined;
  if (typeof data.expires === 'number' && now > data.expires) return undefined;
  return (data.value ?? undefined) as T | undefined;
}

/**
 * `keyv` with a serializer and a deserializer that write and read exactly what its own do, at JSON's
 * speed: keyv's own build the text in JavaScript character by character and pass every string of a
 * value read through a reviver; on the memory store they were a fifth of the webhook pipeline's CPU.
 */
export function withJsonSpeed(keyv: Keyv): Keyv {
  const { serialize, deserialize } = keyv;
  if (!serialize || !deserialize) return keyv;
  keyv.serialize = ((data: unknown) => {
    const text = JSON.stringify(data);
    return keyvWritesOtherwise(text) ? serialize(data as never) : text;
  }) as Serialize;
  keyv.deserialize = ((raw: string) =>
    ESCAPED_STRING.test(raw) ? deserialize(raw) : JSON.parse(raw)) as Deserialize;
  return keyv;
}

/** JSON.stringify's text holds a string keyv escapes, or a buffer: keyv's serializer writes it otherwise. */
const keyvWritesOtherwise = (text: string) => ESCAPED_STRING.test(text) || text.includes('"type":"Buffer"');

/** What keyv's serializer writes for `data`: JSON.stringify's text where the two are the same. */
export async function writeStored(
  data: { value: unknown; expires?: number | undefined },
  serialize: Serialize,
): Promise<string> {
  const text = JSON.stringify(data);
  return keyvWritesOtherwise(text) ? serialize(data) : text;
}

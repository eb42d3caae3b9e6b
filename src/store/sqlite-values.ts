// Reading keyv's layout on the SQLite file directly: a value is the JSON `{"value":…,"expires":…}`
// that keyv's serializer wrote, with strings that start with ':' escaped by one more ':' (and buffers
// as ':base64:…'). Going through keyv costs several promises, hooks and a JSON reviver per value; on
// the webhook path that is a good part of each event. Here a value parses with plain JSON.parse unless
// it holds such a string, in which case keyv's own deserializer reads it, so both read alike.
import type Keyv from 'keyv';

/**
 * A JSON string that starts with ':' opens right after a structural character (`:` `,` `[`): every
 * escaped string matches. Text that only looks like one (a key starting with ':') takes the exact path.
 */
const ESCAPED_STRING = /[:,[]":/;

type Deserialize = NonNullable<Keyv['deserialize']>;

export interface StoredValue {
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

// keyv's layout on the SQLite file, read and written directly: a value is the JSON
// `{"value":…,"expires":…}` of keyv's serializer, with strings that start with ':' escaped by one more
// ':' (and buffers as ':base64:…'). Going through keyv costs several promises, hooks and a JSON reviver
// per value, and its serializer builds the text in JavaScript; on the webhook path that is a good part
// of each event. Here a value is read with plain JSON.parse unless it holds such a string (or a
// buffer), in which case keyv's own reader does it, and written by JSON.stringify: its own text when
// nothing in it needs keyv's escapes, else with them as its replacer, so both agree. The same two, installed as keyv's own serializer (withJsonSpeed),
// serve what goes through keyv (memory://, Redis, SQLite's lists): the same text, without keyv's
// JavaScript writer, which builds the text a piece at a time, and its reviver.
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

/** What keyv's serializer writes for `data`. */
export async function writeStored(
  data: { value: unknown; expires?: number | undefined },
  serialize: Serialize,
): Promise<string> {
  return storedText(data, serialize);
}

/**
 * keyv's escapes, as JSON.stringify meets each value (after its toJSON, the holder still has the
 * value before it): a string that starts with ':' gets one more, a buffer is ':base64:…'. A string
 * that a toJSON gave (a Date's) is written as it is, as keyv writes it.
 */
function keyvEscapes(this: Record<string, unknown>, key: string, value: unknown): unknown {
  if (typeof value === 'string') return value.startsWith(':') && this[key] === value ? `:${value}` : value;
  if (typeof value !== 'object' || value === null) return value;
  const original = this[key];
  return Buffer.isBuffer(original) ? `:base64:${original.toString('base64')}` : value;
}

/**
 * What keyv escapes, as JSON.stringify writes an object or array without a replacer: a string value
 * that opens with ':' (inside one, always right after `:` `,` or `[`), or a buffer (its toJSON's
 * object). Text that only looks like one takes the exact path.
 */
const MAY_NEED_ESCAPES = /[:,[]":|"type":"Buffer"/;

/**
 * writeStored's text, given at once: for keyv's `{value, expires}` object, JSON.stringify's own text
 * when nothing in it needs keyv's escapes (V8 writes that without calling back into JavaScript for
 * each value), else one pass with them. Text holding one (a status line's `:emoji:`) pays both passes.
 */
function storedText(data: unknown, serialize: Serialize): string | Promise<string> {
  const plain =
    typeof data === 'object' && data !== null ? (JSON.stringify(data) as string | undefined) : undefined;
  if (plain !== undefined && !MAY_NEED_ESCAPES.test(plain)) return plain;
  return JSON.stringify(data, keyvEscapes) ?? serialize(data as Parameters<Serialize>[0]);
}

/**
 * `keyv` writing with JSON.stringify and keyv's escapes, and reading with JSON.parse, its own reader (a
 * reviver per value) kept for text with an escaped string or a buffer: the same text as keyv's
 * serializer, the same values as its reader. On the memory store keyv's own were a fifth of the
 * webhook pipeline's CPU.
 */
export function withJsonSpeed(keyv: Keyv): Keyv {
  const { serialize, deserialize } = keyv;
  if (!serialize || !deserialize) return keyv;
  keyv.serialize = (data) => storedText(data, serialize);
  keyv.deserialize = ((text: string) =>
    ESCAPED_STRING.test(text) ? deserialize(text) : JSON.parse(text)) as Deserialize;
  return keyv;
}

// The text a JSON number had in its source. JSON.parse turns `1e309` into Infinity and a 400-digit
// integer into 1e+400's nearest double, so what a sender wrote is gone from the parsed value; this reads
// it back from the text, for the one field that must be shown exactly as sent.

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);
const VALUE_END = new Set([',', '}', ']', ' ', '\t', '\n', '\r']);

interface Frame {
  kind: 'object' | 'array';
  /** How many keys of the path lead here (this container is the value at path[0..depth-1]). */
  depth: number;
  /** Whether every key on the way here is the path's. */
  onPath: boolean;
  /** In an object: the key whose value comes next (undefined while a key is expected). */
  key: string | undefined;
}

/**
 * The source text of the number at `path` (object keys from the top) in `json`, which must be valid JSON
 * (parse it first). Undefined when the value there is not a number or there is none. A key given twice
 * counts as its last value, as JSON.parse reads it. Walks without recursion: nesting depth costs nothing.
 */
export function numberSourceAt(json: string, path: readonly string[]): string | undefined {
  const stack: Frame[] = [];
  let found: string | undefined;
  let i = 0;
  /** Whether the value starting now sits at the whole path. */
  const atPath = (): { onPath: boolean; depth: number } => {
    const top = stack.at(-1);
    if (!top) return { onPath: true, depth: 0 };
    if (top.kind === 'array') return { onPath: false, depth: top.depth + 1 };
    const depth = top.depth + 1;
    return { onPath: top.onPath && depth <= path.length && path[depth - 1] === top.key, depth };
  };
  const valueDone = () => {
    const top = stack.at(-1);
    if (top?.kind === 'object') top.key = undefined;
  };
  while (i < json.length) {
    const c = json[i] as string;
    if (WHITESPACE.has(c) || c === ',' || c === ':') {
      i += 1;
      continue;
    }
    if (c === '"') {
      let end = i + 1;
      while (end < json.length && json[end] !== '"') end += json[end] === '\\' ? 2 : 1;
      const text = json.slice(i, end + 1);
      i = end + 1;
      const top = stack.at(-1);
      if (top?.kind === 'object' && top.key === undefined) {
        top.key = JSON.parse(text) as string;
        continue;
      }
      const { onPath, depth } = atPath();
      if (onPath && depth === path.length) found = undefined;
      valueDone();
      continue;
    }
    if (c === '{' || c === '[') {
      const { onPath, depth } = atPath();
      if (onPath && depth === path.length) found = undefined;
      stack.push({ kind: c === '{' ? 'object' : 'array', depth, onPath, key: undefined });
      i += 1;
      continue;
    }
    if (c === '}' || c === ']') {
      stack.pop();
      valueDone();
      i += 1;
      continue;
    }
    // A number or a literal (true, false, null): up to the next delimiter.
    let end = i;
    while (end < json.length && !VALUE_END.has(json[end] as string)) end += 1;
    const token = json.slice(i, end);
    const { onPath, depth } = atPath();
    if (onPath && depth === path.length) found = /^-?\d/.test(token) ? token : undefined;
    valueDone();
    i = end;
  }
  return found;
}

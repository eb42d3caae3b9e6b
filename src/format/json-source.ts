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
  const walk = new PathWalk(json, path);
  let i = 0;
  while (i < json.length) i = walk.step(i);
  return walk.found;
}

/** One pass over the text, keeping the containers it is inside and the number found so far. */
class PathWalk {
  private readonly stack: Frame[] = [];
  found: string | undefined;

  constructor(
    private readonly json: string,
    private readonly path: readonly string[],
  ) {}

  /** Read the token at `i`; answers where the next one starts. */
  step(i: number): number {
    const c = this.json[i] as string;
    if (WHITESPACE.has(c) || c === ',' || c === ':') return i + 1;
    if (c === '"') return this.string(i);
    if (c === '{' || c === '[') return this.open(c, i);
    if (c === '}' || c === ']') {
      this.stack.pop();
      this.valueDone();
      return i + 1;
    }
    return this.scalar(i);
  }

  /** A key, or a string value (which is not a number, so one at the path clears what was found). */
  private string(i: number): number {
    const { json } = this;
    let end = i + 1;
    while (end < json.length && json[end] !== '"') end += json[end] === '\\' ? 2 : 1;
    const top = this.stack.at(-1);
    if (top?.kind === 'object' && top.key === undefined) {
      top.key = JSON.parse(json.slice(i, end + 1)) as string;
      return end + 1;
    }
    if (this.endsPath()) this.found = undefined;
    this.valueDone();
    return end + 1;
  }

  private open(c: '{' | '[', i: number): number {
    const { onPath, depth } = this.place();
    if (onPath && depth === this.path.length) this.found = undefined;
    this.stack.push({ kind: c === '{' ? 'object' : 'array', depth, onPath, key: undefined });
    return i + 1;
  }

  /** A number or a literal (true, false, null): up to the next delimiter. */
  private scalar(i: number): number {
    const { json } = this;
    let end = i;
    while (end < json.length && !VALUE_END.has(json[end] as string)) end += 1;
    const token = json.slice(i, end);
    if (this.endsPath()) this.found = /^-?\d/.test(token) ? token : undefined;
    this.valueDone();
    return end;
  }

  /** Whether the value starting now sits on the path, and how many of its keys lead to it. */
  private place(): { onPath: boolean; depth: number } {
    const top = this.stack.at(-1);
    if (!top) return { onPath: true, depth: 0 };
    if (top.kind === 'array') return { onPath: false, depth: top.depth + 1 };
    const depth = top.depth + 1;
    return { onPath: top.onPath && depth <= this.path.length && this.path[depth - 1] === top.key, depth };
  }

  /** Whether the value starting now is the one at the whole path. */
  private endsPath(): boolean {
    const { onPath, depth } = this.place();
    return onPath && depth === this.path.length;
  }

  private valueDone(): void {
    const top = this.stack.at(-1);
    if (top?.kind === 'object') top.key = undefined;
  }
}

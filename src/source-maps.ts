// Stack traces the logger writes name the TypeScript source, not a position in the bundle, through
// Node's own source-map support (node:module's SourceMap): a frame in a file with a linked map beside
// it (`dist/*.js.map`) is looked up when an error is logged, and only then. The map is dropped once
// the stack is mapped; the last frames' answers are kept. Node's --enable-source-maps would keep every
// map parsed for the life of the process (tens of MB of an idle bot); started with it, Node has
// already mapped the stack and this leaves it alone. Decision: docs/decisions/pino-for-logs.md.
import { readFileSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** `    at name (file:///…/main.js:1:234)` or `    at file:///…/main.js:1:234`. */
const FRAME = /^(\s*at (?:.*\()?)((?:file:\/\/)?\/[^()\s]*\.m?js):(\d+):(\d+)(\)?)$/;
const CACHE_LIMIT = 2_000;
const answered = new Map<string, string>();

/** `stack` with each frame in a bundled file replaced by its place in the source. */
export function sourceMappedStack(stack: string): string {
  if ((process as { sourceMapsEnabled?: boolean }).sourceMapsEnabled) return stack;
  const maps = new Map<string, { map: SourceMap; root: string } | null>();
  return stack
    .split('\n')
    .map((line) => {
      const known = answered.get(line);
      if (known !== undefined) return known;
      const frame = FRAME.exec(line);
      if (!frame) return line;
      const [, prefix = '', location = '', row, column, suffix = ''] = frame;
      const file = location.startsWith('file:') ? fileURLToPath(location) : location;
      if (!maps.has(file)) maps.set(file, load(file));
      const found = maps.get(file);
      if (!found) return line;
      const origin = found.map.findOrigin(Number(row), Number(column));
      if (!('fileName' in origin)) return line;
      const source = shown(resolve(found.root, origin.fileName));
      const mapped = `${prefix}${source}:${origin.lineNumber}:${origin.columnNumber}${suffix}`;
      if (answered.size >= CACHE_LIMIT) answered.clear();
      answered.set(line, mapped);
      return mapped;
    })
    .join('\n');
}

/** The file's linked map, or null: no map (or none readable) leaves its frames as they are. */
function load(file: string): { map: SourceMap; root: string } | null {
  try {
    const payload = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as SourceMapPayload;
    return { map: new SourceMap(payload), root: resolve(dirname(file), payload.sourceRoot ?? '') };
  } catch {
    return null;
  }
}

/** A source inside the working directory as a relative path (`src/main.ts`), any other as it is. */
function shown(path: string): string {
  const inside = relative(process.cwd(), path);
  return inside && !inside.startsWith('..') && !isAbsolute(inside) ? inside : path;
}

// Stack traces the logger writes name the TypeScript source, not a position in the minified bundle.
// A frame in a file with a source map beside it (`dist/*.js.map`, linked by the build) is looked up
// in that map when an error is logged, and only then: Node's own --enable-source-maps would hold the
// parsed maps for the life of the process. Decision: docs/decisions/pino-for-logs.md.
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** `    at name (file:///…/main.js:1:234)` or `    at file:///…/main.js:1:234`. */
const FRAME = /^(\s*at (?:.*\()?)((?:file:\/\/)?\/[^()\s]*\.m?js):(\d+):(\d+)(\)?)$/;
const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < BASE64.length; i++) DIGIT[BASE64.charCodeAt(i)] = i;
const SEMICOLON = 59;
const COMMA = 44;
// Frames already mapped (a repeated error costs nothing more), and files known to have no map.
const CACHE_LIMIT = 2_000;
const mapped = new Map<string, string>();
const withoutMap = new Set<string>();

interface Position {
  /** 0-based, as in the map. */
  line: number;
  column: number;
}

interface Origin extends Position {
  source: number;
}

/** `stack` with every frame in a bundled file replaced by its place in the source. */
export function mapStack(stack: string): string {
  const lines = stack.split('\n');
  const pending = new Map<string, Array<{ index: number; at: Position; prefix: string; suffix: string }>>();
  lines.forEach((text, index) => {
    const cached = mapped.get(text);
    if (cached !== undefined) {
      lines[index] = cached;
      return;
    }
    const frame = FRAME.exec(text);
    if (!frame) return;
    const [, prefix = '', location = '', line, column, suffix = ''] = frame;
    const file = location.startsWith('file:') ? fileURLToPath(location) : location;
    if (withoutMap.has(file)) return;
    const at = { line: Number(line) - 1, column: Number(column) - 1 };
    pending.set(file, [...(pending.get(file) ?? []), { index, at, prefix, suffix }]);
  });
  for (const [file, frames] of pending) {
    const map = readMap(file);
    if (!map) continue;
    const origins = originalPositions(
      map.mappings,
      frames.map((frame) => frame.at),
    );
    frames.forEach((frame, k) => {
      const origin = origins[k];
      const source = origin && map.sources[origin.source];
      if (!origin || source === undefined) return;
      const text = `${frame.prefix}${shown(resolve(dirname(file), map.sourceRoot, source))}:${origin.line + 1}:${origin.column + 1}${frame.suffix}`;
      remember(lines[frame.index] ?? '', text);
      lines[frame.index] = text;
    });
  }
  return lines.join('\n');
}

function readMap(file: string): { mappings: string; sources: string[]; sourceRoot: string } | undefined {
  try {
    const map = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as Record<string, unknown>;
    if (typeof map.mappings !== 'string' || !Array.isArray(map.sources)) throw new Error('not a source map');
    const sourceRoot = typeof map.sourceRoot === 'string' ? map.sourceRoot : '';
    return { mappings: map.mappings, sources: map.sources.map(String), sourceRoot };
  } catch {
    if (withoutMap.size >= CACHE_LIMIT) withoutMap.clear();
    withoutMap.add(file); // no map (or none readable): its frames stay as they are
    return undefined;
  }
}

function remember(frame: string, text: string): void {
  if (mapped.size >= CACHE_LIMIT) mapped.clear();
  mapped.set(frame, text);
}

/** A source inside the working directory as a relative path (`src/main.ts`), any other as it is. */
function shown(path: string): string {
  const inside = relative(process.cwd(), path);
  return inside && !inside.startsWith('..') && !isAbsolute(inside) ? inside : path;
}

/**
 * Where each generated position comes from, in one pass over the map's VLQ mappings (source map v3)
 * that stops after the last line asked for and keeps nothing: decoding a whole map holds tens of MB.
 * A position takes the last segment at or before it, as Node's own lookup does.
 */
export function originalPositions(
  mappings: string,
  positions: readonly Position[],
): Array<Origin | undefined> {
  const found: Array<Origin | undefined> = positions.map(() => undefined);
  const byLine = new Map<number, number[]>();
  positions.forEach((position, k) => {
    byLine.set(position.line, [...(byLine.get(position.line) ?? []), k]);
  });
  const lastLine = Math.max(-1, ...byLine.keys());
  const fields = [0, 0, 0, 0, 0];
  // The running values of the last segment; `mapped` when it named a source.
  let line = 0;
  let column = 0;
  let source = 0;
  let originalLine = 0;
  let originalColumn = 0;
  let mapped = false;
  const origin = (): Origin | undefined =>
    mapped ? { source, line: originalLine, column: originalColumn } : undefined;
  let here = byLine.get(0);
  let i = 0;
  while (i < mappings.length) {
    const code = mappings.charCodeAt(i);
    if (code === SEMICOLON) {
      if (++line > lastLine) break;
      column = 0;
      i++;
      here = byLine.get(line);
      // Before its line's first segment, a position belongs to the last segment of an earlier line.
      if (here) for (const k of here) found[k] = origin();
      continue;
    }
    if (code === COMMA) {
      i++;
      continue;
    }
    let count = 0;
    while (i < mappings.length) {
      const next = mappings.charCodeAt(i);
      if (next === COMMA || next === SEMICOLON) break;
      let value = 0;
      let shift = 0;
      let digit: number;
      do {
        digit = DIGIT[mappings.charCodeAt(i++)] ?? -1;
        if (digit < 0) return found; // not base64: a broken map maps nothing further
        value += (digit & 31) * 2 ** shift;
        shift += 5;
      } while (digit & 32);
      if (count < fields.length) fields[count] = value % 2 === 1 ? -(value - 1) / 2 : value / 2;
      count++;
    }
    column += fields[0] ?? 0;
    mapped = count >= 4;
    if (mapped) {
      source += fields[1] ?? 0;
      originalLine += fields[2] ?? 0;
      originalColumn += fields[3] ?? 0;
    }
    if (!here) continue;
    // Segments of a line come in column order: the last one at or before a position is its origin.
    for (const k of here) if (column <= (positions[k]?.column ?? -1)) found[k] = origin();
  }
  // Lines past the last segment belong to it too.
  for (const [after, ks] of byLine) if (after > line) for (const k of ks) found[k] = origin();
  return found;
}

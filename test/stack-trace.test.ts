// Stack traces from a bundle name the TypeScript source: each frame in a file with a linked source map
// is looked up in it (the same answers as Node's own lookup); other frames, and a broken map, leave
// the stack as it was.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mapStack, originalPositions } from '../src/stack-trace.js';

const SOURCE = `export function chargeFee(amount: number): number {
  if (amount < 0) {
    throw new RangeError(\`a negative amount: \${amount}\`);
  }
  return amount;
}

export function settle(amounts: number[]): number {
  return amounts.map((amount) => chargeFee(amount)).reduce((a, b) => a + b, 0);
}
`;

let dir: string;
let bundle: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cngn-stack-'));
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'src', 'fees.ts'), SOURCE);
  bundle = join(dir, 'dist', 'fees.js');
  const esbuild = await import('esbuild');
  try {
    await esbuild.build({
      entryPoints: [join(dir, 'src', 'fees.ts')],
      outfile: bundle,
      bundle: true,
      format: 'esm',
      platform: 'node',
      minifyWhitespace: true, // as the production build: the whole module on one line
      sourcemap: 'linked',
      sourcesContent: false,
      logLevel: 'silent',
    });
  } finally {
    await esbuild.stop();
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The stack of what the bundle throws, as V8 writes it in a process without source maps. */
function thrownBy(amounts: number[]): string {
  const script = `import(${JSON.stringify(pathToFileURL(bundle).href)}).then((fees) => {
    try { fees.settle(${JSON.stringify(amounts)}); } catch (error) { process.stdout.write(error.stack); }
  });`;
  const { NODE_OPTIONS: _options, ...env } = process.env;
  return execFileSync(process.execPath, ['--input-type=module', '-e', script], { env, encoding: 'utf8' });
}

describe('mapStack', () => {
  it('names the TypeScript file, line and column of each frame in the bundle', async () => {
    const stack = thrownBy([1, -2]);
    expect(stack).toContain('fees.js:1:'); // what V8 says: the bundle's one line
    const mapped = mapStack(stack);
    expect(mapped).toMatch(/\n {4}at chargeFee \(\S*src\/fees\.ts:3:11\)\n/);
    expect(mapped).toMatch(/\n {4}at \S*src\/fees\.ts:9:34\n/); // the arrow function
    expect(mapped).toMatch(/\n {4}at (Module\.)?settle \(\S*src\/fees\.ts:9:18\)\n/);
    expect(mapped).not.toContain('fees.js');
    expect(mapped.split('\n')[0]).toBe('RangeError: a negative amount: -2');
    // A frame in no file is left as it was.
    expect(mapped).toContain('\n    at Array.map (<anonymous>)\n');
  });

  it('gives the same answer again from what it already looked up', async () => {
    const stack = thrownBy([-1]);
    const first = mapStack(stack);
    const map = readFileSync(`${bundle}.map`, 'utf8');
    writeFileSync(`${bundle}.map`, 'not a source map'); // read once: the answer does not change
    try {
      expect(mapStack(stack)).toBe(first);
    } finally {
      writeFileSync(`${bundle}.map`, map);
    }
  });

  it('leaves a frame as it was when its map cannot be read', () => {
    const stack = 'Error: x\n    at f (file:///nowhere/dist/gone.js:1:2345)\n    at node:internal/x:1:2';
    expect(mapStack(stack)).toBe(stack);
  });
});

describe('originalPositions', () => {
  it("agrees with Node's own source map lookup at every column of the bundle", () => {
    const payload = JSON.parse(readFileSync(`${bundle}.map`, 'utf8')) as {
      mappings: string;
      sources: string[];
    };
    const node = new SourceMap(payload as never);
    const lines = readFileSync(bundle, 'latin1').split('\n');
    const positions = lines.flatMap((text, line) =>
      Array.from({ length: text.length + 2 }, (_, column) => ({ line, column })),
    );
    const ours = originalPositions(payload.mappings, positions);
    positions.forEach((position, k) => {
      const theirs = node.findEntry(position.line, position.column) as {
        originalSource?: string;
        originalLine?: number;
        originalColumn?: number;
      };
      const mine = ours[k];
      expect({
        position,
        found: mine ? [payload.sources[mine.source], mine.line, mine.column] : undefined,
      }).toEqual({
        position,
        found:
          theirs.originalSource === undefined
            ? undefined
            : [
                payload.sources.find((source) =>
                  theirs.originalSource?.endsWith(source.replace(/^(\.\.\/)+/, '')),
                ),
                theirs.originalLine,
                theirs.originalColumn,
              ],
      });
    });
  });

  it('maps nothing from a map that is not base64 VLQ', () => {
    expect(originalPositions('AAAA,!!!!', [{ line: 0, column: 9 }])).toEqual([
      { source: 0, line: 0, column: 0 },
    ]);
    expect(originalPositions('', [{ line: 0, column: 0 }])).toEqual([undefined]);
  });
});

// Stack traces from a bundle name the TypeScript source: each frame in a file with a linked source map
// is looked up in it with Node's own SourceMap when an error is logged; other frames, and a broken map,
// leave the stack as it was. A process started with --enable-source-maps has Node map them itself.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test as base, describe, expect } from 'vitest';
import { buildThenStop } from '../src/esbuild-builds.mjs';
import { sourceMappedStack } from '../src/source-maps.js';
import { capturedLog } from './support/captured-log.js';

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

/**
 * `built`: SOURCE bundled once for the file, as the production build bundles (minified, with a linked
 * map) in a folder of its own: `dir`, and `bundle`, the bundle's path. The folder goes after the file.
 */
const it = base
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('built', { scope: 'file' }, async ({}, { onCleanup }) => {
    const dir = mkdtempSync(join(tmpdir(), 'cngn-stack-'));
    onCleanup(() => rmSync(dir, { recursive: true, force: true }));
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'src', 'fees.ts'), SOURCE);
    const bundle = join(dir, 'dist', 'fees.js');
    const esbuild = await import('esbuild');
    await buildThenStop(esbuild, {
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
    return { dir, bundle };
  });

/** The stack of what the bundle throws, from a process of its own (with `flags`). */
function thrownBy(bundle: string, amounts: number[], flags: string[] = []): string {
  const script = `import(${JSON.stringify(pathToFileURL(bundle).href)}).then((fees) => {
    try { fees.settle(${JSON.stringify(amounts)}); } catch (error) { process.stdout.write(error.stack); }
  });`;
  const { NODE_OPTIONS: _options, ...env } = process.env;
  return execFileSync(process.execPath, [...flags, '--input-type=module', '-e', script], {
    env,
    encoding: 'utf8',
  });
}

describe('a logged stack', () => {
  it('names the TypeScript file, line and column of each frame in the bundle', ({ built: { bundle } }) => {
    const stack = thrownBy(bundle, [1, -2]);
    expect(stack).toContain('fees.js:1:'); // what V8 says: the bundle's one line
    const mapped = sourceMappedStack(stack);
    expect(mapped).toMatch(/\n {4}at chargeFee \(\S*src\/fees\.ts:3:11\)\n/);
    expect(mapped).toMatch(/\n {4}at (Module\.)?settle \(\S*src\/fees\.ts:9:18\)\n/);
    expect(mapped).not.toContain('fees.js');
    expect(mapped.split('\n')[0]).toBe('RangeError: a negative amount: -2');
    expect(mapped).toContain('\n    at Array.map (<anonymous>)\n'); // a frame in no file stays
  });

  it('is what the logger writes for an error', ({ built: { bundle } }) => {
    const error = new RangeError('a negative amount: -2');
    error.stack = thrownBy(bundle, [-2]);
    const { logger, entries } = capturedLog<{ error: { stack: string } }>('error');
    logger.error('failed', { error });
    expect(entries[0]?.error.stack).toMatch(/at chargeFee \(\S*src\/fees\.ts:3:11\)/);
  });

  it('agrees with what Node itself says under --enable-source-maps', ({ built: { bundle } }) => {
    const byNode = thrownBy(bundle, [-3], ['--enable-source-maps']);
    const frame = (stack: string) => /at chargeFee \((\S*fees\.ts:\d+:\d+)\)/.exec(stack)?.[1] ?? '';
    expect(frame(byNode).endsWith(frame(sourceMappedStack(thrownBy(bundle, [-3]))))).toBe(true);
    expect(sourceMappedStack(byNode)).toBe(byNode); // already mapped: left alone
  });

  it('leaves the frames of a file whose map is broken as they were', ({ built: { dir } }) => {
    const broken = join(dir, 'dist', 'other.js');
    writeFileSync(broken, '');
    writeFileSync(`${broken}.map`, 'not a source map');
    const stack = `Error: x\n    at f (${broken}:1:5)`;
    expect(sourceMappedStack(stack)).toBe(stack);
  });
});

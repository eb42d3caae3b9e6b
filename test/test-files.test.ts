// The rules a test file keeps so that it can share a worker with others (vitest's isolate: false runs
// file after file in one module graph): what a file sets up or changes lives and ends with that file.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const TEST_ROOT = fileURLToPath(new URL('.', import.meta.url));

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const FILES = testFiles(TEST_ROOT).map((path) => ({
  name: relative(TEST_ROOT, path),
  text: readFileSync(path, 'utf8'),
}));

it('never overrides a fixture at a file’s top level, where it would outlive the file in its worker', () => {
  // vitest applies a top-level `x.override(…)` to the fixture object itself, which is shared by every
  // file of the worker that imports it: the next file would run with this file's settings. A file's
  // own settings are `const test = engineTest.extend('engineOptions', …)`; a describe's, an override
  // inside it.
  const found = FILES.flatMap(({ name, text }) =>
    text
      .split('\n')
      .map((line, i) => ({ line, at: `${name}:${i + 1}` }))
      .filter(({ line }) => /^[A-Za-z_$][\w$]*\.override\(/.test(line))
      .map(({ at }) => at),
  );
  expect(found).toEqual([]);
});

it('gets its set-up from fixtures: no set-up hooks, no hand-closed engine', () => {
  // A hook is left only for what a fixture cannot hold: fake timers, or a spy on a global put back.
  const forGlobals = /useFakeTimers|useRealTimers|mockRestore|restoreAllMocks|unstubAll/;
  const found = FILES.filter(({ name }) => name.endsWith('.test.ts')).flatMap(({ name, text }) => {
    const lines = text.split('\n');
    return lines.flatMap((line, i) => {
      const at = `${name}:${i + 1}`;
      if (/\bstartEngineFixture\(/.test(line)) return [`${at} starts an engine by hand`];
      if (!/\b(beforeEach|afterEach|beforeAll|afterAll)\(/.test(line)) return [];
      return forGlobals.test(lines.slice(i, i + 4).join('\n')) ? [] : [`${at} sets up in a hook`];
    });
  });
  expect(found).toEqual([]);
});

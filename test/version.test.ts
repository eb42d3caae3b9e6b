// Which build answers (/healthz, the start-up line, cngn_build_info): the version in package.json and
// the commit from the release's REVISION file, or else from the checkout's .git (a worktree's too).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { buildInfo } from '../src/version.js';
import { test as base } from './support/fixtures.js';

const COMMIT = '0123456789abcdef0123456789abcdef01234567';

/** `tree(files)`: a folder of its own holding `files`, removed after the test. */
const it = base.extend('tree', async ({ defer }) => (files: Record<string, string>): string => {
  const root = mkdtempSync(join(tmpdir(), 'cngn-version-'));
  defer(() => rmSync(root, { recursive: true, force: true }));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
});

it('is the version of package.json and the Node.js it runs on', () => {
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  expect(buildInfo()).toMatchObject({ version, node: process.version });
});

it("reads the commit from the release's REVISION file, shortened", ({ tree }) => {
  const root = tree({ 'package.json': '{"version":"1.2.3"}', REVISION: `${COMMIT}\n` });
  expect(buildInfo(root)).toEqual({ version: '1.2.3', commit: COMMIT.slice(0, 12), node: process.version });
});

it("reads it from a worktree's .git, through its common directory's packed refs", ({ tree }) => {
  const root = tree({
    'package.json': '{"version":"1.2.3"}',
    '.git': 'gitdir: repo/.git/worktrees/wt\n',
    'repo/.git/worktrees/wt/HEAD': 'ref: refs/heads/topic\n',
    'repo/.git/worktrees/wt/commondir': '../..\n',
    'repo/.git/packed-refs': `# pack-refs\n${COMMIT} refs/heads/topic\n`,
  });
  expect(buildInfo(root).commit).toBe(COMMIT.slice(0, 12));
});

it('says unknown without either, or with something that is no commit', ({ tree }) => {
  expect(buildInfo(tree({ 'package.json': '{"version":"1.2.3"}' })).commit).toBe('unknown');
  expect(buildInfo(tree({ 'package.json': '{}', REVISION: 'not a commit' }))).toMatchObject({
    version: 'unknown',
    commit: 'unknown',
  });
});

// The /cngn registry is the one list of subcommands: the manifest's usage_hint and the README's command
// table name exactly its entries, a sub-word (`whitelist add`, `audit verify`) finds its own entry, and
// every entry that needs a feature says so: on a bot without approvals it answers that they are not
// configured, while the reads still answer.
import { readFileSync } from 'node:fs';
import { describe, expect } from 'vitest';
import { findSubcommand, REGISTRY, SUBCOMMANDS } from '../../../src/slack/commands/registry.js';
import type { SlackCall } from '../../support/fake-slack.js';
import type { Harness } from '../../support/harness.js';
import { fileHarness, harnessTest } from '../../support/harness-fixtures.js';
import { commandAnswer } from '../../support/slack-requests.js';

/** The bot the file starts: one without approvals (no approvals channel), shared by its tests. */
const test = harnessTest.extend(
  'h',
  { scope: 'file' },
  fileHarness({ config: { approvalsChannel: undefined } }),
);

const read = (path: string) => readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');
const sorted = (names: Iterable<string>) => [...names].sort();
const names = REGISTRY.map((entry) => entry.name);

/** The subcommands the manifest's usage_hint lists, each `|`-separated part whole (`audit verify`). */
function manifestHint(): string[] {
  const hint = /^\s*usage_hint:\s*"([^"]*)"\s*$/m.exec(read('manifest.yml'))?.[1];
  expect(hint, 'manifest.yml has a usage_hint').toBeDefined();
  return (hint ?? '').split(' | ').map((part) => part.trim());
}

/**
 * The subcommands of the README's command table: each row's first code span, up to its first
 * argument (`delegate @person until …` is `delegate`, `whitelist add [network] …` is `whitelist add`).
 */
function readmeTable(): string[] {
  const readme = read('README.md');
  const start = readme.indexOf('## `/cngn` subcommands');
  expect(start, 'README.md has a /cngn subcommands section').toBeGreaterThan(-1);
  const section = readme.slice(start).split(/\n(?=## )/)[0] ?? '';
  return section
    .split('\n')
    .map((line) => /^\|\s*`([^`]+)`/.exec(line)?.[1])
    .filter((code): code is string => code !== undefined)
    .map((code) => {
      const words = code.split(' ');
      const end = words.findIndex((word) => !/^[a-z]+$/.test(word));
      return words.slice(0, end === -1 ? undefined : end).join(' ');
    });
}

describe('the /cngn registry', () => {
  test('has one entry per name, each with a usage and an example that start with its name', () => {
    expect(new Set(names).size).toBe(names.length);
    for (const entry of REGISTRY) {
      expect(entry.usage.startsWith(entry.name), entry.name).toBe(true);
      expect(entry.example.startsWith(entry.name), entry.name).toBe(true);
      expect(
        entry.who === 'anyone' || ['reader', 'requester', 'auditor', 'approver'].includes(entry.who.role),
      ).toBe(true);
    }
  });

  test('shows every entry in the help but the one whose line another shows', () => {
    expect(names.filter((name) => !SUBCOMMANDS.some((entry) => entry.name === name))).toEqual([
      'whitelist add',
    ]);
    expect(SUBCOMMANDS.find((entry) => entry.name === 'whitelist')?.usage).toContain('[add]');
  });

  test("lists exactly the registry's subcommands in the manifest's usage_hint", () => {
    const hint = manifestHint();
    expect(new Set(hint).size, 'no subcommand twice').toBe(hint.length);
    expect(sorted(hint)).toEqual(sorted(names));
  });

  test("lists exactly the registry's subcommands in the README's command table", () => {
    const table = readmeTable();
    expect(new Set(table).size, 'no subcommand twice').toBe(table.length);
    expect(sorted(table)).toEqual(sorted(names));
  });

  test('finds a sub-word before the word, in any case, and passes on the words after it', () => {
    const find = (text: string) => {
      const found = findSubcommand(text.split(' '));
      return found && { name: found.entry.name, args: found.args };
    };
    expect(find('WHITELIST Add base 0xabc')).toEqual({ name: 'whitelist add', args: ['base', '0xabc'] });
    expect(find('whitelist')).toEqual({ name: 'whitelist', args: [] });
    expect(find('whitelist base')).toEqual({ name: 'whitelist', args: ['base'] });
    expect(find('audit Verify')).toEqual({ name: 'audit verify', args: [] });
    expect(find('audit export 7d now')).toEqual({ name: 'audit export', args: ['7d', 'now'] });
    expect(find('audit 50')).toEqual({ name: 'audit', args: ['50'] });
    expect(find('verify')).toBeUndefined();
    expect(find('balanse')).toBeUndefined();
  });
});

describe('a bot without approvals', () => {
  const run = (h: Harness, text: string): Promise<SlackCall> => commandAnswer(h, text, 'UAPPROVERA');
  const NOT_CONFIGURED = 'Approvals are not configured: set CNGN_APPROVALS_CHANNEL and CNGN_APPROVERS.';

  test('answers every subcommand that needs a feature with what to configure', async ({ h }) => {
    const needing = REGISTRY.filter((entry) => entry.needs !== undefined);
    expect(needing.length).toBeGreaterThan(10);
    for (const entry of needing) {
      expect(JSON.stringify((await run(h, entry.example)).body), entry.name).toContain(NOT_CONFIGURED);
    }
  });

  test('still answers the reads, `whitelist` among them', async ({ h }) => {
    for (const text of ['balance', 'whitelist', 'networks', 'help']) {
      expect(JSON.stringify((await run(h, text)).body), text).not.toContain('not configured');
    }
  });
});

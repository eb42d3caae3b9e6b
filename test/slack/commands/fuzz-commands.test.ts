// Property-based: `/cngn` with any text (any unicode, and every subcommand with odd arguments), signed,
// through the real bot. Each is acknowledged at once (an empty 200), each gets an answer (a private
// message at its response_url, or a modal), no listener fails, nothing goes unhandled, and the bot
// still answers /healthz.
import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { hasHiddenCharacters } from '../../../src/format/mrkdwn.js';
import { SUBCOMMANDS } from '../../../src/slack/commands/registry.js';
import {
  ANY_CHARACTER,
  assertFuzz,
  FUZZ_TIMEOUT_MS,
  type FuzzBot,
  HIDDEN_TEXT,
  OBJECT_MEMBER_NAMES,
  runs,
  text,
} from '../../support/fuzz.js';
import { harnessTest as test } from '../../support/harness-fixtures.js';
import { newTriggerId, slashCommand } from '../../support/slack-requests.js';
import { slackTexts } from '../builders/support.js';

const ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';
const sent: Array<{ name: string; triggerId: string; text: string }> = [];

async function send(bot: FuzzBot, text: string): Promise<void> {
  const name = `c${sent.length}`;
  const triggerId = newTriggerId();
  sent.push({ name, triggerId, text });
  const answer = await slashCommand(bot.h.sender, {
    text,
    triggerId,
    userId: sent.length % 2 ? 'UREQ' : 'UAPPROVERA',
    responseUrl: bot.h.slack.responseUrl(name),
  });
  expect(answer.status, text).toBe(200);
  expect(answer.body, text).toBe('');
}

const word = fc.oneof(
  text({ unit: ANY_CHARACTER, maxLength: 20 }),
  fc.constantFrom(...OBJECT_MEMBER_NAMES),
  fc.constantFrom(...HIDDEN_TEXT),
  fc.constantFrom('1500', '-1', '0.001', '1e9', 'base', 'bsc', ADDRESS, '0123456789', 'gtbank', 'add'),
  fc.constantFrom('completed', 'failed', 'AR-1A2B3C4D5E', '@U1', '<@U1>', 'max', 'until', 'verify', 'export'),
);

describe('fuzzed slash commands', { timeout: FUZZ_TIMEOUT_MS }, () => {
  test('acknowledges any text at all', async ({ fuzzBot: bot }) => {
    await assertFuzz(
      fc.asyncProperty(text({ unit: ANY_CHARACTER, maxLength: 200 }), (t) => send(bot, t)),
      runs(1_100),
    );
  });

  test('acknowledges every subcommand with odd arguments', async ({ fuzzBot: bot }) => {
    const names = SUBCOMMANDS.map((s) => s.name);
    await assertFuzz(
      fc.asyncProperty(
        fc.constantFrom(
          ...names,
          'whitelist add',
          'audit verify',
          'audit export',
          'tx',
          ...OBJECT_MEMBER_NAMES,
        ),
        fc.array(word, { maxLength: 5 }),
        fc.constantFrom(' ', '  ', '\t', '\n', '\u00a0'),
        (name, args, space) => send(bot, [name, ...args].join(space)),
      ),
      runs(1_000),
    );
  });

  test('answered every one, left no listener failing and nothing unhandled, and the bot still answers', async ({
    fuzzBot: bot,
  }) => {
    expect(await bot.healthz()).toBe(200);
    await bot.h.bot.stop(); // lets the work after each ack finish
    const answered = new Set(bot.h.slack.calls.map((c) => c.method));
    const opened = new Set(bot.h.slack.callsTo('views.open').map((c) => c.body.trigger_id));
    const unanswered = sent.filter(
      (c) => !answered.has(`response_url:${c.name}`) && !opened.has(c.triggerId),
    );
    expect(unanswered.map((c) => c.text)).toEqual([]);
    // What the answers quote of the text shows its hidden characters as markers, never raw.
    const raw = bot.h.slack.calls.flatMap((c) =>
      [...slackTexts(c.body.view ?? c.body).mrkdwn, ...slackTexts(c.body.view ?? c.body).plain].filter(
        hasHiddenCharacters,
      ),
    );
    expect(raw.slice(0, 5)).toEqual([]);
    expect(bot.listenerFailures()).toEqual([]);
    expect(bot.faults).toEqual([]);
  });
});

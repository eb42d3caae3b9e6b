// Where a builder cuts a long text to fit Slack, the cut reads as a cut: it ends with the one cut mark
// and leaves no half escape (`&am`), no half emoji, no half link or mention and no code span left open
// (the rest of the message would read as code). Values are shifted a character at a time, so that some
// cut lands in each of those places.
import { describe, expect, it } from 'vitest';
import { CUT_MARK } from '../../../src/format/mrkdwn.js';
import { pendingList } from '../../../src/slack/approvals/blocks/lists.js';
import { reviewAllResultView } from '../../../src/slack/approvals/blocks/review-all.js';
import { delegationList } from '../../../src/slack/ui/delegations.js';
import { alertLookupBuilders, deadLetterBuilders, webhookAlertBuilders } from './alerts.js';
import { forEveryBuilder } from './every-builder.js';
import type { Add } from './inputs.js';
import { NOW, requestsOf, slackTexts } from './support.js';

/**
 * Whether the text holds no lone surrogate (half an emoji). The engine's own check (ES2024, in Node 20)
 * reads it many times faster than a regular expression with a look-behind, and the checks here read
 * some hundred million characters.
 */
const isWellFormed = (text: string): boolean => (text as string & { isWellFormed(): boolean }).isWellFormed();
const HALF_ESCAPE = /&(?!amp;|lt;|gt;|quot;|#\d+;)/;

/** What is wrong with how a text was cut, if anything. */
function cutProblems(text: string): string[] {
  const problems: string[] = [];
  if (!isWellFormed(text)) problems.push('half an emoji');
  if (HALF_ESCAPE.test(text)) problems.push('half an escape');
  if (text.split('<').length !== text.split('>').length) problems.push('half a link or mention');
  const outsideBlocks = text.split('```');
  if (outsideBlocks.length % 2 === 0) problems.push('a code block left open');
  else if (
    outsideBlocks
      .filter((_, i) => i % 2 === 0)
      .join('')
      .split('`').length %
      2 ===
    0
  ) {
    problems.push('a code span left open');
  }
  return problems;
}

/** Values whose escapes and emoji fall at every offset of a cut. */
const SHIFTED = [0, 1, 2, 3, 4].flatMap((shift) => [
  `${'a'.repeat(shift)}${'&'.repeat(700)}`,
  `${'a'.repeat(shift)}${'😀'.repeat(1600)}`,
]);

const problemsOf = (name: string, built: unknown) =>
  slackTexts(built).mrkdwn.flatMap((text) => cutProblems(text).map((p) => `${name}: ${p}`));

describe('a cut text', () => {
  it('leaves no half escape, emoji, link or code span in any builder', () => {
    // Three values keep this to a few seconds: every builder's own cuts go through one helper. Each
    // output is checked as it is built, so they are not all held at once.
    const problems = new Set<string>();
    for (const value of SHIFTED.filter((_, i) => i < 2 || i === 3)) {
      forEveryBuilder(value, (name, built) => {
        for (const problem of problemsOf(name, built)) problems.add(problem);
      });
    }
    expect([...problems]).toEqual([]);
  });

  it('says it was cut with the one cut mark: an amount that is no amount, in an alert', () => {
    const said: string[] = [];
    const add: Add = (_name, built) =>
      said.push(...slackTexts(built).mrkdwn.filter((text) => text.includes('is not a valid amount')));
    for (const alerts of [webhookAlertBuilders, alertLookupBuilders, deadLetterBuilders]) {
      alerts('9'.repeat(400), add);
    }
    expect(said.length).toBeGreaterThan(0);
    // After the code span, so the mark reads as the bot's words rather than as part of the amount.
    expect(said.filter((text) => !/`[0-9]{24}`…\(cut\) \(400 characters\)/.test(text))).toEqual([]);
  });

  it.each(SHIFTED.map((value, i) => [i, value] as const))(
    'ends with the cut mark in the pending list, the delegations and review all (value %i)',
    (_i, value) => {
      const requests = Array.from({ length: 4 }, () => requestsOf(value, value)).flat();
      const delegation = {
        id: value,
        delegator: 'UAPPROVERA',
        delegate: 'UAPPROVERB',
        from: '2026-11-23T07:00:00.000Z',
        until: '2026-11-24T07:00:00.000Z',
        max: value,
        approvedBy: ['UREQ'],
      };
      const outcomes = Array.from({ length: 10 }, () => ({
        id: 'AR-1',
        outcome: 'not-approved' as const,
        text: value,
      }));
      const built = {
        'pending list': pendingList(requests, NOW, 'LIVE'),
        delegations: delegationList(Array(5).fill(delegation), NOW, value, true),
        'review all results': reviewAllResultView(outcomes),
      };
      for (const [name, one] of Object.entries(built)) {
        expect(problemsOf(name, one)).toEqual([]);
        // The blocks' texts: the notification text may be far longer than a section.
        const longest = slackTexts({ blocks: one.blocks }).mrkdwn.reduce(
          (a, b) => (b.length > a.length ? b : a),
          '',
        );
        expect(longest.endsWith(CUT_MARK), name).toBe(true);
      }
    },
  );
});

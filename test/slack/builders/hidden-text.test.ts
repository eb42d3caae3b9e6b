// Text from outside cannot disguise itself: every builder, fed a right-to-left override, zero-width
// characters, bidi isolates and marks, or Slack formatting in every field that comes from a person, the
// service or a webhook, hands Slack no raw hidden character (in mrkdwn or plain text) and no formatting
// of the outside text's own; each hidden character is shown as a marker such as ⟨U+202E⟩.
import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../../src/approvals/types.js';
import { hasHiddenCharacters } from '../../../src/format/mrkdwn.js';
import { approvalDm } from '../../../src/slack/approvals/blocks/dm.js';
import { pendingList } from '../../../src/slack/approvals/blocks/lists.js';
import { approvalMessage, staleRoundNotice } from '../../../src/slack/approvals/blocks/message.js';
import { reviewModal } from '../../../src/slack/approvals/blocks/review.js';
import { reviewAllModal } from '../../../src/slack/approvals/blocks/review-all.js';
import { homeView } from '../../../src/slack/approvals/home/blocks.js';
import { type Built, builtTexts, everyBuilder, fallbackAlert } from './every-builder.js';
import { NOW, requestsOf, slackTexts } from './support.js';

/** One value per class of character: what a bank, a person or a webhook could send. */
const CLASSES = {
  'right-to-left override': 'ADA OBI \u202eSESIRPRETNE',
  'zero-width characters': 'A\u200bD\u200cA\u200d O\u2060B\ufeffI',
  'bidi embeddings': 'ADA \u202aOBI\u202c \u202bSONS\u202c \u202dLTD\u202c',
  'bidi isolates and marks': '\u2066ADA\u2069 \u2067OBI\u2069 \u2068SONS\u2069 \u200eLTD\u200f\u061c',
  formatting: '*ADA* _OBI_ ~SONS~ `LTD`',
} as const;

/** Outside formatting that must not reach Slack as formatting: the pairs of the `formatting` value. */
const OWN_FORMATTING = ['*ADA*', '_OBI_', '~SONS~', '`LTD`'];

async function builtWith(text: string): Promise<Built[]> {
  return [...everyBuilder(text), { name: 'alert fallback', built: await fallbackAlert(text) }];
}

describe('hidden and formatting characters from outside', () => {
  it.each(Object.entries(CLASSES))('reach Slack shown, never raw: %s', async (kind, value) => {
    const { mrkdwn, plain } = builtTexts(await builtWith(value));
    const leaks: string[] = [];
    for (const { name, text } of [...mrkdwn, ...plain]) {
      if (hasHiddenCharacters(text)) leaks.push(`${name} (raw hidden character): ${JSON.stringify(text)}`);
    }
    for (const { name, text } of mrkdwn) {
      // An engine notice is the bot's own sentence, with its own code spans (escapeOwnSentence): only
      // its hidden characters are checked here.
      if (
        /^thread reply .* (execution-delayed|ambiguous-match|needs-manual-check|bridge-callback|held-frozen)$/.test(
          name,
        )
      )
        continue;
      for (const pair of OWN_FORMATTING) {
        if (text.includes(pair)) leaks.push(`${name} (outside formatting ${pair}): ${text}`);
      }
    }
    expect([...new Set(leaks)].slice(0, 10), kind).toEqual([]);
    // The value did go through: each hidden character is there as a marker, the marks as look-alikes.
    const all = mrkdwn.map(({ text }) => text).join('\n');
    if (kind === 'formatting') expect(all).toContain('＊ADA＊ ＿OBI＿ ～SONS～ ｀LTD｀');
    else expect(all).toMatch(/⟨U\+[0-9A-F]{4}⟩/);
    if (kind === 'right-to-left override') expect(all).toContain('ADA OBI ⟨U+202E⟩SESIRPRETNE');
  });
});

describe('a name with hidden characters is called out in words', () => {
  const WORDS = 'the account name contains hidden characters';
  const [, redeem, , , settlement] = requestsOf('x', 'https://basescan.org/tx/0xabc') as ApprovalRequest[];
  const named = (request: ApprovalRequest | undefined, accountName: string): ApprovalRequest => {
    const r = request as ApprovalRequest;
    return r.kind === 'settlement'
      ? { ...r, payload: { ...r.payload, bankAccountName: accountName } }
      : { ...r, display: { ...r.display, accountName } };
  };

  it.each([
    ['a redemption', redeem],
    ['a settlement account change', settlement],
  ])('in the approval message, its DM copy, the review and review all of %s', (_what, request) => {
    const hidden = named(request, CLASSES['right-to-left override']);
    const texts = [
      approvalMessage(hidden, NOW),
      approvalDm(hidden, NOW, 'UAPPROVERB'),
      staleRoundNotice(hidden, NOW),
      reviewModal(hidden, NOW, { id: hidden.id, round: 1, environment: 'live' }),
      reviewAllModal([hidden], NOW, 'LIVE', '{}'),
    ].map((built) => slackTexts(built).mrkdwn.join('\n'));
    for (const text of texts) {
      expect(text).toContain('ADA OBI ⟨U+202E⟩SESIRPRETNE');
      expect(text).toContain(WORDS);
    }
  });

  it('names each field that holds them, and says nothing of a name without any', () => {
    const hidden = named(redeem, 'ADA\u200bOBI');
    const both = { ...hidden, display: { ...hidden.display, bankName: 'GT\u200dBank' } } as ApprovalRequest;
    expect(slackTexts(approvalMessage(both, NOW)).mrkdwn.join('\n')).toContain(
      'the bank name and the account name contain hidden characters',
    );
    for (const name of ['Adébáyọ̀ Ọlánrewájú', 'Ngozi Chukwuemeka 👨‍👩‍👧', '*ADA* _OBI_']) {
      const shown = slackTexts(approvalMessage(named(redeem, name), NOW)).mrkdwn.join('\n');
      expect(shown, name).not.toContain('hidden characters');
    }
  });
});

describe('a purpose with hidden characters is called out in words', () => {
  const [withdraw, redeem, bridge] = requestsOf('x', 'https://basescan.org/tx/0xabc') as ApprovalRequest[];

  it.each([
    ['a withdrawal', withdraw],
    ['a redemption', redeem],
    ['a bridge', bridge],
  ])('wherever approvers read %s', (_what, request) => {
    const hidden = { ...(request as ApprovalRequest), purpose: CLASSES['right-to-left override'] };
    const texts = [
      approvalMessage(hidden, NOW),
      approvalDm(hidden, NOW, 'UAPPROVERB'),
      staleRoundNotice(hidden, NOW),
      reviewModal(hidden, NOW, { id: hidden.id, round: 1, environment: 'live' }),
      reviewAllModal([hidden], NOW, 'LIVE', '{}'),
      homeView({ now: NOW, environment: 'live', waiting: [hidden], mine: [], alerts: [] }),
    ].map((built) => slackTexts(built).mrkdwn.join('\n'));
    for (const text of texts) {
      expect(text).toContain('ADA OBI ⟨U+202E⟩SESIRPRETNE');
      expect(text).toContain('the purpose contains hidden characters');
    }
    expect(slackTexts(pendingList([hidden], NOW, 'LIVE')).mrkdwn.join('\n')).toContain(
      'ADA OBI ⟨U+202E⟩SESIRPRETNE',
    );
  });
});

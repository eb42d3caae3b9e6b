// A title or preview cut to a Slack limit is cut on a character's edge and says it was cut: an amount
// that is no amount in its alert, a modal's title (24 characters), a report's header (150).
import { describe, expect, it } from 'vitest';
import { webhookEventSchema } from '../../../src/cngn/schemas.js';
import { CUT_MARK } from '../../../src/format/mrkdwn.js';
import type { Report } from '../../../src/reports/types.js';
import { webhookMessage } from '../../../src/slack/alerts/message-blocks.js';
import { reportSummary } from '../../../src/slack/reports/blocks.js';
import { modal, noticeView } from '../../../src/slack/ui/modal.js';
import { NOW, slackTexts } from './support.js';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/u;

/** A text whose emoji fall on every offset of a cut, `shift` letters in. */
const shifted = (shift: number, emoji = 40) => `${'a'.repeat(shift)}${'😀'.repeat(emoji)}`;

describe('an amount that is no amount, in its alert', () => {
  it.each([0, 1, 2, 3])('is cut on a character’s edge and marked (shift %i)', (shift) => {
    const event = webhookEventSchema.parse({
      event: 'deposit.completed',
      data: { transactionId: 'tx-1', trx_ref: 'ref-1', amount: shifted(shift) },
    });
    const built = webhookMessage({ event, origin: 'webhook', environment: 'live' });
    const said = slackTexts(built).mrkdwn.filter((text) => text.includes('is not a valid amount'));
    expect(said.length).toBeGreaterThan(0);
    for (const text of said) {
      expect(text).not.toMatch(LONE_SURROGATE);
      // The mark after the code span: the bot's words, not part of the amount.
      expect(text).toMatch(/`a*(😀)+`…\(cut\) \(\d+ characters\)/u);
    }
  });
});

describe('an amount that is no amount, a few characters over what is shown', () => {
  const said = (amount: string) => {
    const event = webhookEventSchema.parse({
      event: 'deposit.completed',
      data: { transactionId: 'tx-1', trx_ref: 'ref-1', amount },
    });
    const built = webhookMessage({ event, origin: 'webhook', environment: 'live' });
    return slackTexts(built).mrkdwn.filter((text) => text.includes('is not a valid amount'));
  };

  it.each([25, 30])('shows 24 characters of one of %i, marked', (length) => {
    const texts = said('x'.repeat(length));
    expect(texts.length).toBeGreaterThan(0);
    for (const text of texts)
      expect(text).toContain(`\`${'x'.repeat(24)}\`${CUT_MARK} (${length} characters)`);
  });

  it('shows the mark alone, no empty code span, when its first character is longer than that', () => {
    const texts = said(`e${'\u0301'.repeat(40)}`);
    expect(texts.length).toBeGreaterThan(0);
    for (const text of texts) {
      expect(text).toContain(`the amount ${CUT_MARK} (41 characters)`);
      expect(text).not.toContain('``');
    }
  });
});

describe('a modal’s title', () => {
  it.each([0, 1, 2, 3])(
    'is cut to 24 characters on a character’s edge, with the mark (shift %i)',
    (shift) => {
      const title = shifted(shift, 20);
      const views = [modal('x', title, [], { environment: 'live' }), noticeView(title, 'said')];
      for (const view of views) {
        const text = view.title.text;
        expect(text.length).toBeLessThanOrEqual(24);
        expect(text).not.toMatch(LONE_SURROGATE);
        expect(text.endsWith(CUT_MARK)).toBe(true);
      }
    },
  );

  it('keeps a title that fits as it is', () => {
    expect(noticeView('Not filed', 'said').title.text).toBe('Not filed');
  });
});

describe('a report’s header', () => {
  const zero = { deposit: '0', withdrawal: '0', redemption: '0', bridge: '0', other: '0' };
  const reportIn = (label: string): Report => ({
    period: { label, from: NOW, to: NOW, days: [] },
    treasury: {
      environment: 'live',
      opening: '0',
      closing: '0',
      inflows: zero,
      outflows: zero,
      fees: '0',
      largest: [],
      failures: [],
      days: [],
      movements: [],
    },
    approvals: { filed: 0, approved: 0, rejected: 0, expired: 0, perApprover: [] },
  });
  const headerOf = (report: Report) => {
    const header = reportSummary(report, { madeAt: NOW }).blocks.find((b) => b.type === 'header');
    return header?.type === 'header' ? header.text.text : undefined;
  };

  it.each([0, 1, 2, 3])(
    'is cut to 150 characters on a character’s edge, with the mark (shift %i)',
    (shift) => {
      const text = headerOf(reportIn(shifted(shift, 100))) ?? '';
      expect(text.length).toBeLessThanOrEqual(150);
      expect(text).not.toMatch(LONE_SURROGATE);
      expect(text.endsWith(CUT_MARK)).toBe(true);
    },
  );

  it('keeps a header that fits as it is', () => {
    expect(headerOf(reportIn('last 7 days'))).toBe('cNGN treasury — last 7 days (live)');
  });
});

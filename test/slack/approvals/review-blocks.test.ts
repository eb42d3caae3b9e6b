// The review modal's submit button names the amount within Slack's 24 characters, never rounding it,
// and the modal itself passes Slack's own rules for views.
import type { HeaderBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../../src/approvals/types.js';
import { CUT_MARK } from '../../../src/format/mrkdwn.js';
import { reviewModal, reviewSubmitText } from '../../../src/slack/approvals/blocks/review.js';
import { checkView } from '../../../src/workbench/slack-rules.js';
import { requestsOf } from '../builders/support.js';

const NOW = new Date('2026-11-23T08:00:00.000Z');
const [withdrawal] = requestsOf('ordinary', 'https://basescan.org/tx/0xabc');

/** A delegation with one approval so far, given by a delegate in an approver's place. */
const delegation = {
  ...withdrawal,
  kind: 'delegation',
  amount: undefined,
  payload: { delegator: 'UREQ', delegate: 'UAPPROVERB', until: '2026-11-30T23:00:00.000Z' },
  display: {},
  approvals: [{ user: 'UAPPROVERB', onBehalfOf: 'UAPPROVERA', at: '2026-11-23T07:59:00.000Z' }],
} as ApprovalRequest;

function withAmount(amount: string): ApprovalRequest {
  if (!withdrawal) throw new Error('no fixture');
  return { ...withdrawal, amount } as ApprovalRequest;
}

describe('the review modal’s submit button', () => {
  it.each([
    ['1500', 'Approve ₦1,500.00'],
    ['1500.5', 'Approve ₦1,500.50'],
    ['999999999.99', 'Approve ₦999,999,999.99'],
    // Too long with its kobo: whole naira drop the `.00`, still exact.
    ['1000000000', 'Approve ₦1,000,000,000'],
    // Still too long: never rounded on the button; the exact figure is in the modal's header.
    ['1000000000.50', 'Approve the amount above'],
    ['12345678901234', 'Approve the amount above'],
  ])('reads well for %s', (amount, text) => {
    const label = reviewSubmitText(withAmount(amount));
    expect(label).toBe(text);
    expect(label.length).toBeLessThanOrEqual(24);
  });

  it('names what is approved when there is no amount', () => {
    const whitelist = requestsOf('ordinary', 'https://basescan.org/tx/0xabc').find(
      (r) => r.kind === 'whitelist',
    );
    expect(reviewSubmitText(whitelist as ApprovalRequest)).toBe('Approve address');
    expect(reviewSubmitText(delegation)).toBe('Approve delegation');
    const view = reviewModal(delegation, NOW, { id: 'AR-1', round: 0, environment: 'live' });
    expect(() => checkView(view, 'modal')).not.toThrow();
    expect(JSON.stringify(view)).toContain('Approve delegation');
    expect(JSON.stringify(view)).not.toContain('Approve address');
  });

  it('says a delegate’s approval so far was given on behalf of the approver, as the message does', () => {
    const view = reviewModal(delegation, NOW, { id: 'AR-1', round: 0, environment: 'live' });
    expect(JSON.stringify(view)).toContain('<@UAPPROVERB> on behalf of <@UAPPROVERA> at ');
  });

  it('passes Slack’s rules for a view, the exact amount in its header', () => {
    for (const amount of ['1500', '1000000000.50']) {
      const view = reviewModal(withAmount(amount), NOW, { id: 'AR-1', round: 0, environment: 'live' });
      expect(() => checkView(view, 'modal')).not.toThrow();
      expect(JSON.stringify(view.blocks)).toContain(amount === '1500' ? '₦1,500.00' : '₦1,000,000,000.50');
    }
  });

  it('says its header was cut when the amount is too long for Slack’s 150 characters', () => {
    const view = reviewModal(withAmount('9'.repeat(200)), NOW, { id: 'AR-1', round: 0, environment: 'live' });
    expect(() => checkView(view, 'modal')).not.toThrow();
    const header = view.blocks.find((b): b is HeaderBlock => b.type === 'header');
    const text = header?.text.text ?? '';
    expect(text.startsWith('₦99,999,999,')).toBe(true);
    expect(text.endsWith(CUT_MARK)).toBe(true);
    expect(text.length).toBeLessThanOrEqual(150);
  });
});

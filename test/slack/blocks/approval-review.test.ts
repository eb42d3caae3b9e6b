// The review modal's submit button names the amount within Slack's 24 characters, never rounding it,
// and the modal itself passes Slack's own rules for views.
import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../../src/approvals/types.js';
import { reviewModal, reviewSubmitText } from '../../../src/slack/blocks/approval-review.js';
import { checkView } from '../../../src/workbench/slack-rules.js';
import { requestsOf } from './support.js';

const NOW = new Date('2026-11-23T08:00:00.000Z');
const [withdrawal] = requestsOf('ordinary', 'https://basescan.org/tx/0xabc');

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
  });

  it('passes Slack’s rules for a view, the exact amount in its header', () => {
    for (const amount of ['1500', '1000000000.50']) {
      const view = reviewModal(withAmount(amount), NOW, { id: 'AR-1', round: 0, environment: 'live' });
      expect(() => checkView(view, 'modal')).not.toThrow();
      expect(JSON.stringify(view.blocks)).toContain(amount === '1500' ? '₦1,500.00' : '₦1,000,000,000.50');
    }
  });
});

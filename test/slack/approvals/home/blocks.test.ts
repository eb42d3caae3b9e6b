// App Home stays within Slack's 100 blocks at its fullest: the freeze banner and the top sections kept,
// as many waiting requests as fit, then a pointer to /cngn pending for the rest.
import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../../../src/approvals/types.js';
import { homeView } from '../../../../src/slack/approvals/home/blocks.js';
import { checkView } from '../../../../src/workbench/slack-rules.js';
import { NOW, requestsOf } from '../../builders/support.js';

const [withdrawal] = requestsOf('rent\u200b for the office', 'https://basescan.org/tx/0xabc');

/** A waiting request with every block it can have: purpose, hidden characters, tier line, checks. */
function waiting(n: number): ApprovalRequest {
  if (!withdrawal) throw new Error('no fixture');
  return {
    ...withdrawal,
    id: `AR-${n}`,
    tierBasis: { by: 'requester', total: '1200000.00', windowMs: 86_400_000 },
    preflight: {
      at: '2026-11-23T07:00:00.000Z',
      network: { name: 'Base', enabled: true },
      whitelisted: true,
      firstPayment: true,
      unread: ['the balance: the service is busy'],
    },
  } as ApprovalRequest;
}

describe('App Home at its fullest', () => {
  it('never passes 100 blocks: as many waiting requests as fit, then how many more', () => {
    const view = homeView({
      now: NOW,
      environment: 'live',
      waiting: Array.from({ length: 20 }, (_, i) => waiting(i)),
      mine: Array.from({ length: 12 }, (_, i) => ({ request: waiting(100 + i) })),
      alerts: [],
      delegations: [
        {
          id: 'AR-9',
          delegator: 'UAPPROVERA',
          delegate: 'UAPPROVERB',
          from: '2026-11-22T00:00:00.000Z',
          until: '2026-11-30T23:00:00.000Z',
          approvedBy: ['UREQ'],
        },
      ],
      freeze: { by: 'UAPPROVERB', at: '2026-11-23T06:00:00.000Z', reason: 'audit' },
    } as Parameters<typeof homeView>[0]);
    expect(view.blocks.length).toBeLessThanOrEqual(100);
    expect(() => checkView(view, 'home')).not.toThrow();
    const text = JSON.stringify(view.blocks);
    expect(text).toContain('Frozen by');
    const shown = view.blocks.filter((b) => b.block_id?.startsWith('home.waiting.')).length;
    expect(shown).toBeGreaterThan(0);
    expect(text).toContain(`…and ${20 - shown} more: \`/cngn pending\` lists them all.`);
    expect(text).toContain('Last alerts');
  });
});

// The report's summary as Slack takes it: whatever the service's references and amounts, every text
// stays within Slack's limits, so the summary is never refused whole.
import type { KnownBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { transactionSchema } from '../../../src/cngn/schemas.js';
import { treasuryFigures } from '../../../src/reports/figures.js';
import { movementOf } from '../../../src/reports/movements.js';
import type { Report } from '../../../src/reports/types.js';
import { reportSummary } from '../../../src/slack/reports/blocks.js';
import { checkMessage } from '../../../src/workbench/slack-rules.js';
import { lastDays } from '../../reports/support.js';

const NOW = new Date('2026-11-20T12:00:00Z');

/** A report of `count` withdrawals whose amounts cannot be read (a digit past the kobo), with long references. */
function unreadableReport(count: number): Report {
  const movements = Array.from({ length: count }, (_, i) =>
    movementOf(
      transactionSchema.parse({
        trx_ref: `${String(i).padStart(2, '0')}-${'R'.repeat(197)}`,
        trx_type: 'withdraw',
        amount: `100.50${i + 1}${'&'.repeat(31)}`,
        status: 'completed',
        createdAt: new Date(NOW.getTime() - (i + 1) * 60_000).toISOString(),
      }),
      NOW,
    ),
  );
  const period = lastDays(1, NOW);
  return {
    period,
    treasury: treasuryFigures({ environment: 'live', period, balance: '1000.00', movements }),
    approvals: { filed: 0, approved: 0, rejected: 0, expired: 0, perApprover: [] },
  };
}

const contextTexts = (blocks: readonly KnownBlock[]) =>
  blocks.flatMap((b) => (b.type === 'context' ? b.elements.map((e) => ('text' in e ? e.text : '')) : []));

describe('the note on amounts that could not be read', () => {
  it('names the references that fit Slack’s limit and counts the rest, so the summary is taken', () => {
    const summary = reportSummary(unreadableReport(12), { madeAt: NOW });
    expect(() => checkMessage(summary)).not.toThrow();
    const note = contextTexts(summary.blocks).find((t) => t.includes('could not be read')) ?? '';
    expect(note.length).toBeLessThanOrEqual(3000);
    const named = note.match(/`\d\d-R+`/g) ?? [];
    expect(named.length).toBeGreaterThan(0);
    expect(note).toContain(`12 transactions with amounts that could not be read`);
    expect(note).toContain(` and ${12 - named.length} more, all in the CSV.`);
    expect(note).toMatch(/They are counted in no figure/);
  });
});

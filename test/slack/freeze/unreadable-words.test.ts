// A hold because the signed audit chain does not verify back to its latest freeze names no person as
// having frozen: "the audit chain" is not read as someone, and when it began is not known.
import { expect, test } from 'vitest';
import type { UnfreezePayload } from '../../../src/approvals/index.js';
import { chainHeldAlert, freezeBanner, unfreezeFields } from '../../../src/slack/ui/freeze.js';

const HELD = { by: 'the audit chain', reason: 'not verified', at: '2026-03-02T09:00:00.000Z' };

test('the banner, the alert and an unfreeze of it name no person and say its start is not known', () => {
  const banner = JSON.stringify(freezeBanner(HELD));
  expect(banner).toContain('does not verify back to its latest freeze');
  expect(banner.split('does not verify back').length - 1).toBe(1);
  expect(banner).toContain('Held since Mon 2 Mar 2026, 10:00 WAT (the chain');
  expect(banner).toContain('when any freeze before it began is not known');
  expect(banner).not.toContain('Frozen by');
  expect(JSON.stringify(chainHeldAlert(HELD))).not.toContain('changed outside the bot');
  const payload = { frozenBy: HELD.by, reason: HELD.reason, frozenAt: HELD.at } as UnfreezePayload;
  const fields = Object.fromEntries(unfreezeFields(payload));
  expect(fields['Who may approve']).toBe('any approver other than the requester');
  expect(fields['Frozen since']).toContain('not known');
});

// A hold because the signed audit chain does not verify back to its latest freeze names no person as
// having frozen: "the audit chain" is not read as someone. Its time names the break it is for, not when
// sends began to be held, and is said so, once, in plain words (no brackets inside brackets).
import { expect, test } from 'vitest';
import type { UnfreezePayload } from '../../../src/approvals/index.js';
import { chainHeldAlert, freezeBanner, since, unfreezeFields } from '../../../src/slack/ui/freeze.js';

const HELD = { by: 'the audit chain', reason: 'not verified', at: '2026-03-02T09:00:00.000Z' };

const FOR_THE_BREAK = 'held for the break in the audit chain next to Mon 2 Mar 2026, 10:00 WAT';

test('the banner, the alert and an unfreeze of it name no person and say which break the hold is for', () => {
  const banner = JSON.stringify(freezeBanner(HELD));
  expect(banner).toContain('does not verify back to its latest freeze');
  expect(banner.split('does not verify back').length - 1).toBe(1);
  expect(banner).toContain(
    `\\nHeld for the break in the audit chain next to Mon 2 Mar 2026, 10:00 WAT: nothing`,
  );
  expect(banner).not.toMatch(/since|Frozen by/);
  const alert = JSON.stringify(chainHeldAlert(HELD));
  expect(alert).not.toContain('changed outside the bot');
  expect(alert).toContain('whether a freeze was in place before the break cannot be checked');
  const payload = { frozenBy: HELD.by, reason: HELD.reason, frozenAt: HELD.at } as UnfreezePayload;
  const fields = Object.fromEntries(unfreezeFields(payload));
  expect(fields['Who may approve']).toBe('any approver other than the requester');
  expect(fields.Held).toBe(FOR_THE_BREAK);
  expect(fields['Frozen since']).toBeUndefined();
});

test('what `/cngn freeze` puts in its brackets when already frozen or held has no brackets of its own', () => {
  expect(since(HELD)).toBe(FOR_THE_BREAK);
  expect(since({ ...HELD, by: 'U0BOLA' })).toBe('since Mon 2 Mar 2026, 10:00 WAT');
});

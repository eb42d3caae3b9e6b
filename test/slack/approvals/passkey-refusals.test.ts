// A signed approval that did not count is told to the approver in the bot's words: which request,
// why, and that nothing changed.
import { describe, expect, it } from 'vitest';
import type { Refusal } from '../../../src/approvals/index.js';
import { refusalText } from '../../../src/slack/approvals/blocks/lists.js';

const REASONS: Refusal[] = [
  'signature-required',
  'challenge-used',
  'unknown-passkey',
  'not-own-passkey',
  'revoked-passkey',
  'wrong-origin',
  'wrong-rp',
  'no-user-verification',
  'counter-went-back',
  'wrong-challenge',
  'bad-signature',
];

describe('a refused signed approval', () => {
  it.each(REASONS)('says "%s" in a sentence that ends with nothing changed', (reason) => {
    const text = refusalText(reason);
    expect(text).toMatch(/^Your approval of This request .+, so it did not count and nothing changed\.$/);
  });

  it('says each reason differently', () => {
    expect(new Set(REASONS.map((r) => refusalText(r))).size).toBe(REASONS.length);
  });
});

// What the sign page answers once a signed approval is recorded says what is true of the request after
// it: the first of two needed leaves it waiting, with nothing sent, and the page says so; the second
// approves it. A stored count that is no number (written by hand) gives no number on the page either.
import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../src/approvals/types.js';
import { signedMessage } from '../../src/signing/api.js';
import { APPROVER_A, APPROVER_B, fileWithdrawal, waitUntil } from '../slack/approvals/support.js';
import { test } from './routes-support.js';
import { signingToken, signWith } from './support.js';

describe('the sign page’s answer to a signed approval', () => {
  test('says the request still waits when it was the first of two, and approved at the second', async ({
    signing,
  }) => {
    const { app, a, b } = signing;
    const sent = app.sandbox.count('POST', '/v1/api/withdraw');
    const id = await fileWithdrawal(app, '1000000');
    expect((await app.engine.get(id))?.requiredApprovals).toBe(2);
    const first = await signWith(app, await signingToken(app, APPROVER_A, id), a);
    expect(first.submitted.json).toEqual({
      ok: true,
      requestId: id,
      message: `Your signed approval is recorded; ${id} · Withdrawal · ₦1,000,000.00 still needs one more approval. Nothing is sent yet.`,
    });
    expect(await app.engine.get(id)).toMatchObject({ state: 'pending', approvals: [{ user: APPROVER_A }] });
    expect(app.sandbox.count('POST', '/v1/api/withdraw')).toBe(sent);
    const second = await signWith(app, await signingToken(app, APPROVER_B, id), b);
    expect(second.submitted.json.message).toBe('Approved. Slack shows it now.');
    await waitUntil(async () => (await app.engine.get(id))?.state === 'sent', 'sent');
  });
});

describe('the sign page’s answer when the count of approvals needed is no number', () => {
  const waiting = {
    id: 'AR-0123456789',
    kind: 'withdraw',
    amount: '4000.00',
    state: 'pending',
    approvals: [{ user: 'UAPPROVERA', at: '2026-11-23T07:00:00.000Z' }],
    requiredApprovals: 'two',
  } as unknown as ApprovalRequest;

  it('says the request still needs more approvals, naming no count', () => {
    expect(signedMessage(waiting, waiting.requiredApprovals)).toBe(
      'Your signed approval is recorded; AR-0123456789 · Withdrawal · ₦4,000.00 still needs more approvals. Nothing is sent yet.',
    );
  });
});

// What the sign page answers once a signed approval is recorded says what is true of the request after
// it: the first of two needed leaves it waiting, with nothing sent, and the page says so; the second
// approves it.
import { describe, expect } from 'vitest';
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

// The sign page when the store fails under a signed approval: once the approval's write had started
// it may stand (here it landed and went out), so the page and Slack say to check the request, never
// that nothing changed; before any write nothing was approved, and as the link and its challenge are
// used, the page says where a new link comes from rather than to try this one again.
import { describe, expect } from 'vitest';
import { SIGNED_MAYBE_NOT_RECORDED, SIGNED_NOT_RECORDED } from '../../src/signing/api.js';
import { APPROVER_A, fileWithdrawal, waitUntil } from '../slack/approvals/support.js';
import { expectPageHeaders, test, toldPrivately } from './routes-support.js';
import { assertionJson, post, signingToken, signWith } from './support.js';

describe('a signed approval the store failed under', () => {
  test('whose write landed: the page and Slack say it may have been recorded; it is sent', async ({
    signing: { app, a, controls },
  }) => {
    const id = await fileWithdrawal(app, '250000', '0x3fa9C2d18e7b4056a1c9E2B7d4F08A6135C7e9B2');
    const token = await signingToken(app, APPROVER_A, id);
    controls.loseAnswer(`approval:${id}`);
    const { submitted } = await signWith(app, token, a);
    expect(submitted.status).toBe(500);
    expect(submitted.text).not.toContain('nothing changed');
    expect(submitted.json).toEqual({ ok: false, problem: SIGNED_MAYBE_NOT_RECORDED });
    expectPageHeaders(submitted);
    await waitUntil(() => toldPrivately(app, APPROVER_A).includes(SIGNED_MAYBE_NOT_RECORDED), 'the DM');
    // It was recorded, and the next sweep sends it: "nothing changed" would have been false.
    expect((await app.engine.get(id))?.approvals[0]).toMatchObject({
      user: APPROVER_A,
      evidence: { credentialId: a.credentialId },
    });
    await app.engine.tick();
    await waitUntil(async () => (await app.engine.get(id))?.state === 'sent', 'sent');
  });

  test('before its write: nothing approved, and a new link (not this used one) signs it', async ({
    signing: { app, a, controls },
  }) => {
    const id = await fileWithdrawal(app, '260000', '0x3fa9C2d18e7b4056a1c9E2B7d4F08A6135C7e9B2');
    const token = await signingToken(app, APPROVER_A, id);
    const options = await post(app, '/passkeys/api/sign/options', { token });
    const evidence = a.assert(options.json.options.challenge, options.json.nonce);
    const submit = (with_: string) =>
      post(app, '/passkeys/api/sign/submit', {
        token: with_,
        nonce: options.json.nonce,
        figuresDigest: options.json.figuresDigest,
        response: assertionJson(evidence),
      });
    // The request cannot be read under its lock: the approval fails before anything is written.
    const readable = controls.failReads(`approval:${id}`);
    const submitted = await submit(token);
    readable();
    expect(submitted.status).toBe(500);
    expect(submitted.text).not.toContain('Try again');
    expect(submitted.json).toEqual({ ok: false, problem: SIGNED_NOT_RECORDED });
    await waitUntil(() => toldPrivately(app, APPROVER_A).includes(SIGNED_NOT_RECORDED), 'the DM');
    expect(await app.engine.get(id)).toMatchObject({ state: 'pending', approvals: [] });
    // The link is used: trying it again is refused, as the page said it would be.
    expect((await submit(token)).status).toBe(410);
    // A new link, as from the request's review, signs it.
    const { submitted: again } = await signWith(app, await signingToken(app, APPROVER_A, id), a);
    expect(again.json).toEqual({ ok: true, requestId: id, message: 'Approved. Slack shows it now.' });
    await waitUntil(async () => (await app.engine.get(id))?.state === 'sent', 'sent');
  });
});

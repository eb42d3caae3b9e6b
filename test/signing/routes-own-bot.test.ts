// The passkey pages over HTTP, through the real bot with signed approvals on and real P-256
// assertions, each test on a bot of its own: a new install's first registration, filed and approved by
// another approver; an unknown link and a registration link refused on the sign page only, logged
// without the token (the test counts every post to Slack).
import { describe, expect } from 'vitest';
import { REGISTRATION_MAYBE_FILED, tokenHash } from '../../src/signing/api.js';
import { APPROVER_A, APPROVER_B, approve, waitUntil } from '../slack/approvals/support.js';
import { expectPageHeaders, test, toldPrivately, warned } from './routes-support.js';
import { bookOf, post, registerApproved, registrationToken } from './support.js';

describe('the registration page', () => {
  test('files a passkey as a request another approver approves; then it counts', async ({
    newInstall: { app, a, b },
  }) => {
    const token = await registrationToken(app, APPROVER_A);
    const options = await post(app, '/passkeys/api/register/options', { token });
    expect(options.status).toBe(200);
    expect(options.json).toMatchObject({
      ok: true,
      user: { id: APPROVER_A, name: 'Ade Bello' },
      options: { rp: { id: 'localhost' } },
    });
    expect(options.json.options.authenticatorSelection.userVerification).toBe('required');
    expectPageHeaders(options);
    // A name is asked for before the link is used: the same link still files.
    const unnamed = await post(app, '/passkeys/api/register/file', {
      token,
      name: ' ',
      expectedChallenge: options.json.options.challenge,
      response: a.registrationResponse(options.json.options.challenge),
    });
    expect(unnamed.status).toBe(400);
    expect(unnamed.json.problem).toContain('name your passkey');
    const long = await post(app, '/passkeys/api/register/file', {
      token,
      name: 'x'.repeat(61),
      expectedChallenge: options.json.options.challenge,
      response: a.registrationResponse(options.json.options.challenge),
    });
    expect(long.json.problem).toContain('at most 60 characters');
    // Named with two spaces: kept as the words it is named by later.
    const filed = await post(app, '/passkeys/api/register/file', {
      token,
      name: "Ade's  MacBook",
      expectedChallenge: options.json.options.challenge,
      response: a.registrationResponse(options.json.options.challenge),
    });
    expect(filed.status).toBe(200);
    expect(filed.json.message).toBe(`Filed: waiting for another approver (${filed.json.requestId})`);
    expect(await bookOf(app).byCredential(a.credentialId)).toBeUndefined();
    // The link was used: a second filing with it is refused.
    const again = await post(app, '/passkeys/api/register/file', {
      token,
      name: 'Again',
      expectedChallenge: options.json.options.challenge,
      response: a.registrationResponse(options.json.options.challenge),
    });
    expect(again.status).toBe(410);
    const used =
      'This link was already used (each link works once), so nothing was done. Ask for a new one in Slack (/cngn passkey).';
    expect(again.json.problem).toBe(used);
    // Said privately in Slack too (a registration link has no request, so nothing is on a record).
    const told = used.replace('(/cngn passkey)', '(`/cngn passkey`)');
    await waitUntil(() => toldPrivately(app, APPROVER_A).includes(told), 'the DM');
    // Another approver approves it in the channel (a click: the first two passkeys of an install).
    await approve(app, filed.json.requestId, APPROVER_B);
    await waitUntil(async () => Boolean(await bookOf(app).byCredential(a.credentialId)), 'A’s passkey');
    expect(await bookOf(app).byCredential(a.credentialId)).toMatchObject({
      name: "Ade's MacBook",
      registration: { approvedBy: [APPROVER_B] },
    });
    await registerApproved(app, b, APPROVER_A);
  });
});

describe('a registration the store failed under', () => {
  test('is said to be maybe filed, its link used, never "nothing changed"; it was filed', async ({
    newInstall: { app, a, controls },
  }) => {
    const token = await registrationToken(app, APPROVER_A);
    const options = await post(app, '/passkeys/api/register/options', { token });
    const { challenge } = options.json.options;
    // The registration request lands in the store; the store's answer is lost.
    controls.loseAnswer('approval:');
    const filed = await post(app, '/passkeys/api/register/file', {
      token,
      name: "Ade's MacBook",
      expectedChallenge: challenge,
      response: a.registrationResponse(challenge),
    });
    expect(filed.status).toBe(500);
    expect(filed.text).not.toContain('nothing changed');
    expect(filed.json).toEqual({ ok: false, problem: REGISTRATION_MAYBE_FILED.replace(/`/g, '') });
    expectPageHeaders(filed);
    await waitUntil(() => toldPrivately(app, APPROVER_A).includes(REGISTRATION_MAYBE_FILED), 'the DM');
    const waiting = await app.engine.waitingFor(APPROVER_B, new Date());
    expect(waiting).toEqual([expect.objectContaining({ kind: 'passkey', requester: APPROVER_A })]);
  });
});

describe('the sign page', () => {
  test('refuses an unknown link, and a registration link, on the page only; logged without the token', async ({
    // A bot of its own: it counts every post to Slack, and the file's may still be posting of another test's request.
    newInstall: { app, lines, entries },
  }) => {
    const told = app.slack.callsTo('chat.postMessage').length;
    for (const token of ['bm90LWEtdG9rZW4', await registrationToken(app, APPROVER_A)]) {
      const answer = await post(app, '/passkeys/api/sign/options', { token });
      expect(answer.status).toBe(410);
      expect(answer.json).toEqual({
        ok: false,
        problem: expect.stringMatching(/^This link has expired or was already used: /),
      });
      expectPageHeaders(answer);
      const logged = warned(entries, 'a passkey page link has expired or was already used').at(-1);
      expect(logged).toMatchObject({ page: 'sign', link: tokenHash(token) });
      expect(JSON.stringify(logged)).not.toContain(token);
      expect(lines.join('\n')).not.toContain(token);
    }
    // No one is known to tell, so nothing is said in Slack.
    expect(app.slack.callsTo('chat.postMessage')).toHaveLength(told);
  });
});

// The sign page over HTTP names people as Slack knows them, whichever field holds them: an unfreeze's
// approver who froze the sends (by name, with the time in Lagos time and the reason as written), and
// its requester, through the real bot (sign/options) with signed approvals on; a page whose names Slack
// never gives still opens, naming everyone by id.
import { describe, expect } from 'vitest';
import { type PageDeps, registerOptions, signOptions } from '../../src/signing/api.js';
import { APPROVER_A, APPROVER_B, fileWithdrawal, REQUESTER } from '../slack/approvals/support.js';
import { SoftwareAuthenticator } from '../support/authenticator.js';
import { botTest } from '../support/bot.js';
import { commandAnswer } from '../support/slack-requests.js';
import { post, registerApproved, registrationToken, signingToken, startSigningApp } from './support.js';

const test = botTest
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('signing', { scope: 'file' }, async ({}, { onCleanup }) => {
    const app = await startSigningApp();
    onCleanup(() => app.stop());
    const a = new SoftwareAuthenticator({ user: APPROVER_A, rpId: 'localhost', origin: app.signingUrl });
    await registerApproved(app, a, APPROVER_B);
    return { app, a };
  });

/** The pages' calls on `app`'s engine, with a Slack that never names anyone. */
function unansweredNames(app: { engine: PageDeps['engine'] }): PageDeps {
  return {
    engine: app.engine,
    homeTeam: () => 'T1',
    refused: () => undefined,
    tell: async () => undefined,
    nameOf: () => new Promise<never>(() => undefined),
    nameWaitMs: 20,
    barredOf: async () => undefined,
    log: { warn: () => undefined },
  };
}

describe('the sign page of an unfreeze', () => {
  test('names who froze the sends and the requester, says since when in Lagos time, and the reason as written', async ({
    signing: { app },
  }) => {
    await commandAnswer(app, 'freeze a look-alike <b>address</b> was approved', APPROVER_B);
    await commandAnswer(app, 'unfreeze', APPROVER_B);
    const request = (await app.engine.openRequests()).find((r) => r.kind === 'unfreeze');
    if (request?.kind !== 'unfreeze') throw new Error('no unfreeze request');
    const token = await signingToken(app, APPROVER_A, request.id);
    const options = await post(app, '/passkeys/api/sign/options', { token });
    expect(options.status).toBe(200);
    expect(options.json.request.requester).toEqual({ id: APPROVER_B, name: 'Bola Okafor' });
    expect(options.json.request.figures).toEqual([
      { label: 'Frozen by', id: APPROVER_B, value: 'Bola Okafor' },
      { label: 'Frozen since', value: expect.stringMatching(/^\w{3} \d{1,2} \w{3} \d{4}, \d{2}:\d{2} WAT$/) },
      { label: 'Reason for the freeze', value: 'a look-alike <b>address</b> was approved' },
    ]);
  });
});

describe('a page whose names Slack does not give', () => {
  test('opens all the same, naming everyone by their Slack id', async ({ signing: { app } }) => {
    const deps = unansweredNames(app);
    const id = await fileWithdrawal(app, '1200');
    const signing = await signOptions(deps, { token: await signingToken(app, APPROVER_A, id) });
    expect(signing.user).toEqual({ id: APPROVER_A });
    expect(signing.request.requester).toEqual({ id: REQUESTER });
    expect(signing.options.challenge).toEqual(expect.any(String));
    const registering = await registerOptions(deps, { token: await registrationToken(app, APPROVER_B) });
    expect(registering.user).toEqual({ id: APPROVER_B });
  });
});

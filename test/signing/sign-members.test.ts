// The passkey pages ask Slack, as the access gate does, whether the link's person may act here: a link
// outlives the Slack click that made it. An approver deactivated, made a guest or found outside the
// workspace after their link was made has their signature refused (nothing approved, nothing sent),
// their page loads and their registration too; when Slack cannot say, nothing is approved and the
// same link works once Slack answers.
import { describe, expect } from 'vitest';
import { signSubmit } from '../../src/signing/api.js';
import { PageProblem } from '../../src/signing/http.js';
import { APPROVER_A, fileWithdrawal, waitUntil } from '../slack/approvals/support.js';
import { SoftwareAuthenticator } from '../support/authenticator.js';
import { scrape } from '../support/prometheus.js';
import { userChanged } from '../support/slack-requests.js';
import { test, toldPrivately, warned } from './routes-support.js';
import { assertionJson, bookOf, post, registrationToken, type SigningApp, signingToken } from './support.js';

const NAME = 'Ade Bello';

/** Slack's word on A from now on, told to the bot as Slack tells it (user_change); `undo` makes A a member again. */
async function changeA(app: SigningApp, account: { deleted?: boolean; guest?: boolean; team?: string }) {
  app.slack.people.set(APPROVER_A, { name: NAME, ...account });
  await userChanged(app.sender, { id: APPROVER_A, deleted: account.deleted === true });
  return async () => {
    app.slack.people.set(APPROVER_A, { name: NAME });
    await userChanged(app.sender, { id: APPROVER_A });
  };
}

/** Open A's sign page for a new withdrawal of `amount` while A is a member: the link, and the signed submission. */
async function openedAndSigned(app: SigningApp, a: SoftwareAuthenticator, amount: string) {
  const id = await fileWithdrawal(app, amount);
  const token = await signingToken(app, APPROVER_A, id);
  const options = await post(app, '/passkeys/api/sign/options', { token });
  expect(options.status).toBe(200);
  const evidence = a.assert(options.json.options.challenge, options.json.nonce);
  const submission = {
    token,
    nonce: options.json.nonce,
    figuresDigest: options.json.figuresDigest,
    response: assertionJson(evidence),
  };
  return { id, token, submission };
}

/** How many passkey page calls `app` counted as refused for `reason`. */
const refusals = async (app: SigningApp, reason: string) =>
  (await scrape(app.metricsUrl)).value('cngn_passkey_page_refusals_total', { reason });

/** The refusals of sign links on request `id`'s record. */
const linkRefusals = async (app: SigningApp, id: string) =>
  (await app.engine.audit(500)).filter((e) => e.requestId === id && e.action === 'signing-link-refused');

/** Nothing of request `id` changed: still pending, no approval, and the service asked to send nothing. */
async function expectUntouched(app: SigningApp, id: string, withdrawals: number) {
  await app.engine.idle();
  expect(await app.engine.get(id)).toMatchObject({ state: 'pending', approvals: [] });
  expect(app.sandbox.count('POST', '/v1/api/withdraw')).toBe(withdrawals);
}

describe('the sign page of someone the access gate would refuse', () => {
  test.for([
    {
      what: 'deactivated',
      amount: '2100',
      account: { deleted: true },
      reason: 'deleted',
      problem:
        'Your Slack account is deactivated, and deactivated accounts cannot use the cNGN treasury desk, so nothing was done.',
    },
    {
      what: 'made a guest',
      amount: '2200',
      account: { guest: true },
      reason: 'guest',
      problem:
        'Guests and bots cannot use the cNGN treasury desk, whatever roles they are given, so nothing was done.',
    },
    {
      what: 'not a member of the workspace',
      amount: '2300',
      account: { team: 'T0OTHER' },
      reason: 'external',
      problem:
        'Only members of the workspace the bot is installed in can use the cNGN treasury desk, so nothing was done.',
    },
  ])(
    'refuses an approver $what after the link was made: nothing approved, nothing sent',
    async ({ amount, account, reason, problem }, { signing: { app, a, entries }, defer }) => {
      const { id, token, submission } = await openedAndSigned(app, a, amount);
      const withdrawals = app.sandbox.count('POST', '/v1/api/withdraw');
      const counted = await refusals(app, 'person-barred');
      defer(await changeA(app, account));
      const submitted = await post(app, '/passkeys/api/sign/submit', submission);
      expect(submitted.status).toBe(422);
      expect(submitted.json).toEqual({ ok: false, problem });
      await expectUntouched(app, id, withdrawals);
      // Nor may the page load again for a fresh challenge.
      const reopened = await post(app, '/passkeys/api/sign/options', { token });
      expect(reopened.json).toEqual({ ok: false, problem });
      expect(await refusals(app, 'person-barred')).toBe((counted ?? 0) + 2);
      // On the request's record too, as an expired or used sign link is: once for the link and reason,
      // though both calls were refused and counted.
      expect(await linkRefusals(app, id)).toMatchObject([
        { actor: APPROVER_A, note: `person-barred: ${problem}` },
      ]);
      await waitUntil(() => toldPrivately(app, APPROVER_A).includes(problem), 'the DM');
      expect(toldPrivately(app, APPROVER_A).filter((t) => t === problem)).toHaveLength(1);
      expect(warned(entries, 'a passkey page refused')).toContainEqual(
        expect.objectContaining({ user: APPROVER_A, page: 'sign', reason }),
      );
    },
  );

  test('refuses when Slack cannot say who the approver is, and the same link signs once it can', async ({
    signing: { app, a, entries },
    defer,
  }) => {
    const { id, token, submission } = await openedAndSigned(app, a, '2400');
    const withdrawals = app.sandbox.count('POST', '/v1/api/withdraw');
    const counted = await refusals(app, 'person-unchecked');
    let failing = true;
    app.slack.on('users.info', (call) =>
      failing && call.body.user === APPROVER_A ? { body: { ok: false, error: 'internal_error' } } : undefined,
    );
    defer(() => {
      failing = false;
    });
    // Whatever was kept of A is forgotten, as when Slack says an account changed.
    await userChanged(app.sender, { id: APPROVER_A });
    const submitted = await post(app, '/passkeys/api/sign/submit', submission);
    expect(submitted.status).toBe(422);
    expect(submitted.json.problem).toBe(
      'The bot could not confirm with Slack that you are a member of this workspace, so nothing was done. Try again in a moment.',
    );
    await expectUntouched(app, id, withdrawals);
    expect(warned(entries, 'a passkey page could not check the person with Slack')).toContainEqual(
      expect.objectContaining({ user: APPROVER_A, error: expect.stringContaining('internal_error') }),
    );
    expect(await bookOf(app).peekLink(token)).toMatchObject({ ok: true });
    expect(await refusals(app, 'person-unchecked')).toBe((counted ?? 0) + 1);
    expect(await linkRefusals(app, id)).toMatchObject([
      { actor: APPROVER_A, note: `person-unchecked: ${submitted.json.problem}` },
    ]);
    failing = false;
    const again = await post(app, '/passkeys/api/sign/submit', submission);
    expect(again.status).toBe(200);
    await waitUntil(async () => (await app.engine.get(id))?.state === 'sent', 'sent');
  });

  test('refuses when Slack does not say in time, approving nothing and not waiting to tell it', async ({
    signing: { app, a },
  }) => {
    const { id, submission } = await openedAndSigned(app, a, '2500');
    const withdrawals = app.sandbox.count('POST', '/v1/api/withdraw');
    const told: string[] = [];
    const deps = {
      engine: app.engine,
      homeTeam: () => 'T1',
      refused: () => undefined,
      // The same Slack that did not answer does not answer the DM either (Bolt's client retries on).
      tell: (_user: string, text: string) => {
        told.push(text);
        return new Promise<void>(() => undefined);
      },
      nameOf: async () => undefined,
      barredOf: () => new Promise<never>(() => undefined),
      memberWaitMs: 20,
      log: { warn: () => undefined },
    };
    const answered = signSubmit(deps, submission).catch((error: unknown) => error);
    const late = new Promise((resolve) => setTimeout(resolve, 2_000, 'no answer within 2 s'));
    const refused = await Promise.race([answered, late]);
    expect(refused).toBeInstanceOf(PageProblem);
    expect((refused as PageProblem).message).toMatch(/^The bot could not confirm with Slack/);
    expect(told).toEqual([(refused as PageProblem).message]);
    await expectUntouched(app, id, withdrawals);
  });
  test('logs a DM that fails, without the link', async ({ signing: { app, a } }) => {
    const { submission } = await openedAndSigned(app, a, '2600');
    const warnings: Array<[string, Record<string, unknown> | undefined]> = [];
    const deps = {
      engine: app.engine,
      homeTeam: () => 'T1',
      refused: () => undefined,
      tell: () => Promise.reject(new Error('An API error occurred: ratelimited')),
      nameOf: async () => undefined,
      barredOf: async () => 'deleted' as const,
      log: {
        warn: (message: string, fields?: Record<string, unknown>) => void warnings.push([message, fields]),
      },
    };
    const refused = await signSubmit(deps, submission).catch((error: unknown) => error);
    expect((refused as PageProblem).message).toMatch(/^Your Slack account is deactivated/);
    await waitUntil(() => warnings.some(([m]) => m.startsWith('could not tell')), 'the failed DM logged');
    expect(warnings).toContainEqual([
      'could not tell an approver privately why a passkey page refused',
      { user: APPROVER_A, error: 'Error: An API error occurred: ratelimited' },
    ]);
    expect(JSON.stringify(warnings)).not.toContain(submission.token);
  });
});

describe('the registration page of someone the access gate would refuse', () => {
  test('refuses a deactivated approver’s passkey: nothing filed', async ({ signing: { app }, defer }) => {
    const token = await registrationToken(app, APPROVER_A);
    defer(await changeA(app, { deleted: true }));
    const device = new SoftwareAuthenticator({ user: APPROVER_A, rpId: 'localhost', origin: app.signingUrl });
    const options = await post(app, '/passkeys/api/register/options', { token });
    expect(options.status).toBe(422);
    const expectedChallenge = await app.engine.passkeys.registrationChallenge(APPROVER_A);
    const filed = await post(app, '/passkeys/api/register/file', {
      token,
      name: 'spare key',
      expectedChallenge: expectedChallenge.challenge,
      response: device.registrationResponse(expectedChallenge.challenge),
    });
    expect(filed.status).toBe(422);
    expect(filed.json.problem).toMatch(/^Your Slack account is deactivated/);
    const open = await app.engine.openRequests();
    expect(open.filter((r) => r.kind === 'passkey' && r.requester === APPROVER_A)).toEqual([]);
  });
});

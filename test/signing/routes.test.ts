// The passkey pages over HTTP through the real bot, signed approvals on, real P-256 assertions, on one
// bot for the file where A's and B's passkeys are registered: a withdrawal signed and sent, shown in
// Slack as after a click; expired, used and other workspaces' links, another person's passkey, an
// assertion without user verification or with its counter gone back, another origin refused (where
// each is told, logged without the token); a link opened on a replica still starting asked to be tried
// again, not used up; the pages' headers, a 404 under /passkeys/, 127.0.0.1 sent to the signing host;
// an approval written into the store unsigned fails its request, alerting a person.
import { describe, expect } from 'vitest';
import { partsOf } from '../../src/approvals/engine-parts.js';
import { ApprovalRepository, PasskeyBook } from '../../src/approvals/index.js';
import { EVIDENCE_FAILED } from '../../src/approvals/signed-approvals.js';
import { withApproval } from '../../src/approvals/state-machine.js';
import { tokenHash } from '../../src/signing/api.js';
import {
  APPROVALS_CHANNEL,
  APPROVER_A,
  fileWithdrawal,
  freePort,
  startApprovalApp,
  waitUntil,
} from '../slack/approvals/support.js';
import { SoftwareAuthenticator } from '../support/authenticator.js';
import { capturedLog } from '../support/captured-log.js';
import { FakeSlack } from '../support/fake-slack.js';
import { scrape } from '../support/prometheus.js';
import { ALERTS_CHANNEL, expectPageHeaders, test, toldPrivately, warned } from './routes-support.js';
import {
  bookOf,
  fileRegistration,
  post,
  registrationToken,
  send,
  signingToken,
  signWith,
} from './support.js';

/** A destination no other test of the file pays, nor the sandbox's history (checksummed). */
const FIRST_DESTINATION = '0x3fa9C2d18e7b4056a1c9E2B7d4F08A6135C7e9B2';

describe('the registration page', () => {
  test('is a shell with one script and one stylesheet, with the pages’ headers on each', async ({
    signing: { app },
  }) => {
    const page = await send(app, '/passkeys/register?t=anything');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('<script defer src="/passkeys/assets/app.js"></script>');
    expect(page.text).toContain('<link rel="stylesheet" href="/passkeys/assets/app.css">');
    // No inline script or style: the policy allows only the page's own files.
    expect(page.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>|<style|style=/);
    expectPageHeaders(page);
    const script = await send(app, '/passkeys/assets/app.js');
    expect(script.headers['content-type']).toMatch(/^text\/javascript/);
    expect(script.text).toContain('navigator.credentials');
    expectPageHeaders(script);
    const style = await send(app, '/passkeys/assets/app.css');
    expect(style.headers['content-type']).toMatch(/^text\/css/);
    expectPageHeaders(style);
  });

  test('answers a path under /passkeys/ that no route takes 404, with the pages’ headers', async ({
    signing: { app },
  }) => {
    const unknown = [
      await send(app, '/passkeys/'),
      await send(app, '/passkeys/registr?t=anything'),
      await send(app, '/passkeys/assets/app.js.map'),
      await send(app, '/passkeys/api/sign/option', { body: { token: 'x' } }),
      // A call's path with a method it does not take.
      await send(app, '/passkeys/api/sign/options'),
    ];
    for (const answer of unknown) {
      expect(answer.status).toBe(404);
      expect(answer.headers['content-type']).toMatch(/^text\/plain/);
      expect(answer.text).toBe('Not found.');
      expectPageHeaders(answer);
    }
    // A path that only begins like the pages' is not theirs: the server's own 404, without their headers.
    const outside = await send(app, '/passkeysx');
    expect(outside.status).toBe(404);
    expect(outside.headers['cache-control']).toBeUndefined();
    // The pages themselves answer as before.
    expect((await send(app, '/passkeys/sign?t=anything')).status).toBe(200);
    expect((await send(app, '/passkeys/assets/app.css')).status).toBe(200);
  });

  test('refuses a registration the browser made for another site, on the page and in Slack', async ({
    signing: { app },
  }) => {
    const other = new SoftwareAuthenticator({
      user: APPROVER_A,
      rpId: 'localhost',
      origin: 'http://evil.test',
    });
    const filed = await fileRegistration(app, other, 'Phone');
    expect(filed.status).toBe(422);
    expect(filed.json.problem).toMatch(
      /^Your passkey was not registered: The browser's registration does not verify/,
    );
    await waitUntil(() =>
      toldPrivately(app, APPROVER_A).some((t) => t.startsWith('Your passkey was not registered')),
    );
  });
});

describe('the sign page', () => {
  test('shows the request as stored and approves it with the passkey: sent, and Slack shows it', async ({
    signing: { app, a },
  }) => {
    // A destination of its own: the first payment there, whichever requests the file sent before.
    const id = await fileWithdrawal(app, '250000', FIRST_DESTINATION);
    const token = await signingToken(app, APPROVER_A, id);
    const page = await send(app, `/passkeys/sign?t=${token}`);
    expect(page.status).toBe(200);
    const { options, submitted } = await signWith(app, token, a);
    expect(options.json.request).toMatchObject({
      id,
      amount: '₦250,000.00',
      title: 'Withdrawal of ₦250,000.00',
      round: 0,
      environment: 'SANDBOX',
      requester: { id: 'UREQ', name: 'Tunde Eze' },
    });
    const figures = options.json.request.figures as Array<{ label: string; value: string; mark?: string }>;
    expect(figures.find((f) => f.label === 'To address')?.value).toBe(FIRST_DESTINATION);
    expect(figures.find((f) => f.label === 'To address')?.mark).toContain('First payment');
    expect(figures.find((f) => f.label === 'Purpose')?.value).toBe('Supplier payout INV-2231');
    // What the bot checked at filing, as stored (every check's wording: test/signing/figures.test.ts).
    expect(options.json.request.checks).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^Balance ₦[\d,.]+ as of /),
        'First payment to this destination.',
      ]),
    );
    expect(options.json.request.bytes).toContain(`id=${id}\nkind=withdraw\namount_kobo=25000000\n`);
    expect(options.json.options).toMatchObject({
      rpId: 'localhost',
      userVerification: 'required',
      allowCredentials: [{ id: a.credentialId, type: 'public-key' }],
    });
    expect(submitted.status).toBe(200);
    expect(submitted.json).toEqual({ ok: true, requestId: id, message: 'Approved. Slack shows it now.' });
    expectPageHeaders(submitted);
    await waitUntil(async () => (await app.engine.get(id))?.state === 'sent', 'sent');
    expect((await app.engine.get(id))?.approvals[0]).toMatchObject({
      user: APPROVER_A,
      evidence: { credentialId: a.credentialId },
    });
    // The presenter updates the channel's message as after a click.
    await waitUntil(() =>
      app.slack
        .messages(APPROVALS_CHANNEL)
        .some(
          (m) =>
            JSON.stringify(m).includes(id) &&
            JSON.stringify(m).includes('Sent, waiting for the final status'),
        ),
    );
    // The link was used.
    const again = await post(app, '/passkeys/api/sign/submit', {
      token,
      nonce: options.json.nonce,
      figuresDigest: options.json.figuresDigest,
      response: {
        id: 'x',
        rawId: 'x',
        type: 'public-key',
        response: { authenticatorData: 'x', clientDataJSON: 'x', signature: 'x' },
        clientExtensionResults: {},
      },
    });
    const used =
      'This link was already used (each link works once), so nothing was done. Ask for a new one in Slack (the request’s signing link).';
    expect(again.status).toBe(410);
    expect(again.json.problem).toBe(used);
    const reopened = await post(app, '/passkeys/api/sign/options', { token });
    expect(reopened.json.problem).toBe(used);
    // Told and recorded once for the link, however often it is tried again (a reload, a script).
    const refused = (await app.engine.audit(500)).filter(
      (e) => e.requestId === id && e.action === 'signing-link-refused',
    );
    expect(refused).toMatchObject([{ actor: APPROVER_A, note: used }]);
    await waitUntil(() => toldPrivately(app, APPROVER_A).some((t) => t === used), 'the DM');
    expect(toldPrivately(app, APPROVER_A).filter((t) => t === used)).toHaveLength(1);
  });

  test('refuses an expired sign link: on the page, privately in Slack, on the record; logged without the token', async ({
    signing: { app, lines, entries },
  }) => {
    const id = await fileWithdrawal(app, '2100');
    // Issued eleven minutes ago, through the book's own clock.
    const past = () => new Date(Date.now() - 11 * 60_000);
    const book = new PasskeyBook(app.store, app.engine.environment(), undefined, past);
    const token = await book.issueLink({
      page: 'sign',
      user: APPROVER_A,
      team: 'T1',
      requestId: id,
      round: 0,
    });
    const answer = await post(app, '/passkeys/api/sign/options', { token });
    const sentence =
      'This link has run out (links work for 10 minutes), so nothing was done. Ask for a new one in Slack (the request’s signing link).';
    expect(answer.status).toBe(410);
    expect(answer.json).toEqual({ ok: false, problem: sentence });
    expectPageHeaders(answer);
    await waitUntil(() => toldPrivately(app, APPROVER_A).includes(sentence), 'the DM');
    expect(
      (await app.engine.audit(500)).filter((e) => e.requestId === id && e.action === 'signing-link-refused'),
    ).toMatchObject([{ actor: APPROVER_A, note: sentence }]);
    const logged = warned(entries, 'a passkey page link has expired or was already used').at(-1);
    expect(logged).toMatchObject({ page: 'sign', link: tokenHash(token), why: 'expired', user: APPROVER_A });
    expect(lines.join('\n')).not.toContain(token);
    expect(await app.engine.get(id)).toMatchObject({ state: 'pending', approvals: [] });
  });

  test('refuses a link made in another workspace as an unknown one: on the page and in the log only', async ({
    signing: { app, a, lines, entries },
  }) => {
    const id = await fileWithdrawal(app, '1250');
    const book = bookOf(app);
    // Another install of the bot, in workspace T2, on the same store and environment.
    const sign = await book.issueLink({
      page: 'sign',
      user: APPROVER_A,
      team: 'T2',
      requestId: id,
      round: 0,
    });
    const register = await book.issueLink({ page: 'register', user: APPROVER_A, team: 'T2' });
    // The approver hears of the request first: nothing said after it is said of these links.
    await waitUntil(() => toldPrivately(app, APPROVER_A).some((t) => t.includes(id)), 'the request’s DM');
    const told = toldPrivately(app, APPROVER_A).length;
    const assertion = {
      id: 'x',
      rawId: 'x',
      type: 'public-key',
      response: { authenticatorData: 'x', clientDataJSON: 'x', signature: 'x' },
      clientExtensionResults: {},
    };
    const registration = { name: 'Phone', expectedChallenge: 'x', response: a.registrationResponse('x') };
    const calls = [
      ['/passkeys/api/sign/options', sign, 'sign', {}],
      ['/passkeys/api/sign/submit', sign, 'sign', { nonce: 'x', figuresDigest: 'x', response: assertion }],
      ['/passkeys/api/register/options', register, 'register', {}],
      ['/passkeys/api/register/file', register, 'register', registration],
    ] as const;
    for (const [path, token, page, body] of calls) {
      const answer = await post(app, path, { token, ...body });
      expect(answer.status, path).toBe(410);
      expect(answer.json).toEqual({
        ok: false,
        problem: expect.stringMatching(/^This link has expired or was already used: /),
      });
      const logged = warned(entries, 'a passkey page link has expired or was already used').at(-1);
      expect(logged).toEqual(
        expect.objectContaining({
          page,
          link: tokenHash(token),
          why: 'made in another workspace',
          team: 'T2',
          home: 'T1',
        }),
      );
    }
    expect(lines.join('\n')).not.toContain(sign);
    // Its user is no one this install may tell; the links were never used, and nothing is on the record.
    expect(toldPrivately(app, APPROVER_A).slice(told)).toEqual([]);
    expect(await book.peekLink(sign)).toMatchObject({ ok: true });
    expect(await book.peekLink(register)).toMatchObject({ ok: true });
    expect(
      (await app.engine.audit(500)).filter((e) => e.requestId === id && e.action === 'signing-link-refused'),
    ).toEqual([]);
  });

  test('a link opened while the bot is starting (Slack not answered yet) is to be tried again, not used up', async ({
    signing: { app },
    defer,
  }) => {
    // Another replica on the same store and environment, starting while Slack holds its start-up check.
    const slack = await FakeSlack.start();
    defer(() => slack.stop());
    const held = slack.hold('auth.test');
    const { logger, lines, entries } = capturedLog('info');
    // A port probed free may be taken before the replica listens: then it is tried on another.
    const startReplica = async (attempt: number) => {
      const port = await freePort();
      const signingUrl = `http://localhost:${port}`;
      const starting = startApprovalApp({
        slack,
        store: app.store,
        sandbox: app.sandbox,
        logger,
        config: { port, signing: { rule: { mode: 'all' }, rpId: 'localhost', origin: signingUrl } },
      });
      const ended = starting.then(
        () => 'started' as const,
        (error: unknown) => error,
      );
      const first = await Promise.race([held.arrived.then(() => 'held' as const), ended]);
      if (first === 'held') {
        defer(async () => {
          held.release();
          if ((await ended) === 'started') await (await starting).stop();
        });
        return { port, signingUrl, starting };
      }
      if (first === 'started') throw new Error('the replica started before its start-up check was held');
      if ((first as { code?: unknown }).code !== 'EADDRINUSE' || attempt >= 5) throw first;
      return undefined;
    };
    let attempt = 1;
    let replica = await startReplica(attempt);
    while (!replica) replica = await startReplica(++attempt);
    const { port, signingUrl, starting } = replica;
    const token = await registrationToken(app, APPROVER_A);
    const early = await post({ port, signingUrl }, '/passkeys/api/register/options', { token });
    expect(early.status).toBe(503);
    expect(early.headers['retry-after']).toBe('5');
    expect(early.json).toEqual({
      ok: false,
      problem: 'The bot is starting and cannot check this link yet; try again in a moment.',
    });
    expectPageHeaders(early);
    const logged = entries.filter((entry) => entry.link === tokenHash(token));
    expect(logged).toEqual([
      expect.objectContaining({
        message: 'a passkey page link cannot be checked until the bot has started',
        page: 'register',
      }),
    ]);
    expect(lines.join('\n')).not.toContain(token);
    expect(await bookOf(app).peekLink(token)).toMatchObject({ ok: true });
    held.release();
    const started = await starting;
    // Nothing was refused: not counted as a link from another workspace, or as any other refusal.
    const refusals = (await scrape(started.metricsUrl)).series('cngn_passkey_page_refusals_total');
    expect(refusals).not.toEqual([]);
    expect(refusals.filter((sample) => sample.value !== 0)).toEqual([]);
    const later = await post({ port, signingUrl }, '/passkeys/api/register/options', { token });
    expect(later.status).toBe(200);
    expect(later.json).toMatchObject({ ok: true, user: { id: APPROVER_A } });
  });

  test('refuses another person’s passkey: on the page, privately in Slack, and on the record', async ({
    signing: { app, b },
  }) => {
    const id = await fileWithdrawal(app, '1200');
    const token = await signingToken(app, APPROVER_A, id);
    const { submitted } = await signWith(app, token, b);
    expect(submitted.status).toBe(422);
    expect(submitted.json.problem).toBe(
      `Your approval of ${id} · Withdrawal · ₦1,200.00 was signed with a passkey registered to someone else, so it did not count and nothing changed.`,
    );
    await waitUntil(() => toldPrivately(app, APPROVER_A).includes(submitted.json.problem), 'the DM');
    expect((await app.engine.get(id))?.approvals).toEqual([]);
    await waitUntil(async () => {
      const entries = await app.engine.audit(500);
      return entries.some(
        (e) => e.requestId === id && e.action === 'signature-refused' && e.actor === APPROVER_A,
      );
    }, 'the record');
  });

  test.for([
    {
      what: 'made without user verification',
      amounts: ['1500', '1600'],
      bad: () => ({ noUv: true }),
      why: 'was signed without your fingerprint, face or PIN, which the desk requires',
    },
    {
      what: 'whose signature counter went backwards',
      amounts: ['1700', '1800'],
      // One below the counter the desk recorded at the passkey's last approval (just before).
      bad: (a: SoftwareAuthenticator) => ({ counter: a.counter - 1 }),
      why: 'was signed by an authenticator whose use counter went backwards, as a copied one would; tell another approver',
    },
  ])(
    'refuses an assertion $what: on the page, privately in Slack, on the record; nothing approved',
    async ({ amounts: [first, second], bad, why }, { signing: { app, a } }) => {
      // A signed approval first, so the desk holds a counter above zero for this passkey.
      // Amounts differ between cases: a second filing alike would be asked about first.
      const earlier = await fileWithdrawal(app, first ?? '');
      expect((await signWith(app, await signingToken(app, APPROVER_A, earlier), a)).submitted.status).toBe(
        200,
      );
      const id = await fileWithdrawal(app, second ?? '');
      const { submitted } = await signWith(app, await signingToken(app, APPROVER_A, id), a, bad(a));
      expect(submitted.status).toBe(422);
      const sentence = `Your approval of ${id} · Withdrawal · ₦${Number(second).toLocaleString('en')}.00 ${why}, so it did not count and nothing changed.`;
      expect(submitted.json).toEqual({ ok: false, problem: sentence });
      await waitUntil(() => toldPrivately(app, APPROVER_A).includes(sentence), 'the DM');
      await waitUntil(async () => {
        const entries = await app.engine.audit(500);
        return entries.some(
          (e) => e.requestId === id && e.action === 'signature-refused' && e.actor === APPROVER_A,
        );
      }, 'the record');
      expect(await app.engine.get(id)).toMatchObject({ state: 'pending', approvals: [] });
    },
  );

  test('refuses an assertion made for another origin, and a call from a page elsewhere (logged)', async ({
    signing: { app, a, lines, entries },
  }) => {
    const id = await fileWithdrawal(app, '1300');
    const { submitted } = await signWith(app, await signingToken(app, APPROVER_A, id), a, {
      origin: 'http://evil.test',
    });
    expect(submitted.json.problem).toContain('was signed on a page that is not this desk’s signing page');
    // Said privately to the approver too, and logged.
    await waitUntil(() => toldPrivately(app, APPROVER_A).includes(submitted.json.problem), 'the DM');
    expect(warned(entries, 'a passkey page refused').at(-1)).toEqual({
      level: 'warn',
      message: 'a passkey page refused',
      time: expect.any(String),
      user: APPROVER_A,
      page: 'sign',
      requestId: id,
      reason: 'wrong-origin',
    });
    const token = await signingToken(app, APPROVER_A, id);
    const elsewhere = await post(
      app,
      '/passkeys/api/sign/options',
      { token },
      { origin: 'http://evil.test' },
    );
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.json.problem).toBe(`Open the page at ${app.signingUrl}.`);
    expectPageHeaders(elsewhere);
    expect(
      warned(entries, 'a passkey page call came from elsewhere than the signing page').at(-1),
    ).toMatchObject({
      page: '/passkeys/api/sign/options',
      link: tokenHash(token),
      origin: 'http://evil.test',
    });
    expect(lines.join('\n')).not.toContain(token);
    const notJson = await send(app, '/passkeys/api/sign/options', {
      method: 'POST',
      body: {},
      contentType: 'text/plain',
    });
    expect(notJson.status).toBe(415);
    expect((await app.engine.get(id))?.approvals).toEqual([]);
  });

  test('sends a page opened at 127.0.0.1 to the same path on the signing host', async ({
    signing: { app },
  }) => {
    const answer = await send(app, '/passkeys/sign?t=abc_DEF-1', { host: `127.0.0.1:${app.port}` });
    expect(answer.status).toBe(303);
    expect(answer.headers.location).toBe(`${app.signingUrl}/passkeys/sign?t=abc_DEF-1`);
    expectPageHeaders(answer);
    const register = await send(app, '/passkeys/register?t=xyz', { host: `127.0.0.1:${app.port}` });
    expect(register.headers.location).toBe(`${app.signingUrl}/passkeys/register?t=xyz`);
  });

  test('an approval written into the store without a signature sends nothing, and the alerts channel hears of it once', async ({
    signing: { app },
  }) => {
    const id = await fileWithdrawal(app, '1400');
    // Someone with write access to the store adds an approval with no assertion, and writes it back.
    const repo = new ApprovalRepository(app.store, app.engine.environment());
    const stored = await repo.get(id);
    if (!stored) throw new Error('not stored');
    const forged = withApproval(stored, APPROVER_A, new Date());
    expect(forged.state).toBe('approved');
    expect(await repo.saveIf(stored, forged)).toBe(true);
    await partsOf(app.engine).executor.execute(id);
    await app.engine.idle();
    expect(await app.engine.get(id)).toMatchObject({ state: 'failed', outcome: { reason: EVIDENCE_FAILED } });
    const alerts = () =>
      app.slack
        .callsTo('chat.postMessage')
        .filter((c) => c.body.channel === ALERTS_CHANNEL && String(c.body.text).includes(id));
    await waitUntil(() => alerts().length > 0, 'the alert');
    const alert = alerts()[0]?.body;
    expect(String(alert?.text)).toBe(
      `Needs a person: Approval evidence does not verify for ${id} · Withdrawal · ₦1,400.00: nothing was sent`,
    );
    expect(JSON.stringify(alert?.blocks)).toContain(`its message is in <#${APPROVALS_CHANNEL}>`);
    // Once: the request's next showing says nothing again.
    await app.approvals?.presenter?.present(id);
    expect(alerts()).toHaveLength(1);
  });
});

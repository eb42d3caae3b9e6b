// Passkey-signed approvals in GET /metrics of a running bot with signing on: a click where a signature
// is needed and an assertion from the wrong origin each count as a refusal by reason, and an approval
// signed with the software authenticator counts as signed by its kind; a request whose evidence did not
// verify before sending counts as evidence-does-not-verify. The passkey pages count the links they
// refuse (unknown, expired, used, made in another workspace) and the registrations not filed.
import { expect } from 'vitest';
import { PasskeyBook } from '../../src/approvals/index.js';
import { silentLogger } from '../../src/log.js';
import { BotMetrics } from '../../src/metrics/index.js';
import { bookOf, post, registrationToken, startSigningApp } from '../signing/support.js';
import { APPROVER_A, type ApprovalApp, fileWithdrawal, waitUntil } from '../slack/approvals/support.js';
import { approveAsSeen, seenOf } from '../support/approve-as-seen.js';
import { SoftwareAuthenticator } from '../support/authenticator.js';
import { botTest as test } from '../support/bot.js';
import { parseExposition, scrape } from '../support/prometheus.js';

const place = { rpId: 'desk.example.com', origin: 'https://desk.example.com' };
const SIGNED = 'cngn_approval_signed_total';
const REFUSED = 'cngn_approval_signature_refusals_total';
const PAGE_REFUSED = 'cngn_passkey_page_refusals_total';

/** `user` signs request `id` as it stands with `device` (misbehaving as `bad` says), then approves. */
async function signAndApprove(
  app: ApprovalApp,
  id: string,
  user: string,
  device: SoftwareAuthenticator,
  bad: Parameters<SoftwareAuthenticator['assert']>[2] = {},
) {
  const request = await app.engine.get(id);
  if (!request) throw new Error('no request');
  const made = await app.engine.passkeys.signingChallenge(id, user, request.round);
  if (!made.ok || !('challenge' in made)) throw new Error(`no challenge: ${JSON.stringify(made)}`);
  const evidence = device.assert(made.challenge, made.nonce, bad);
  return app.engine.approve(id, user, { ...seenOf(request), evidence });
}

test('counts signed approvals by kind and refused signatures by reason', async ({ startApp }) => {
  const app = await startApp({ config: { signing: { rule: { mode: 'all' }, ...place } } });
  const before = await scrape(app.metricsUrl);
  expect(before.types.get(SIGNED)).toBe('counter');
  expect(before.types.get(REFUSED)).toBe('counter');
  expect(before.value(SIGNED, { kind: 'withdraw' })).toBe(0);
  expect(before.value(REFUSED, { reason: 'signature-required' })).toBe(0);
  expect(before.value(REFUSED, { reason: 'evidence-does-not-verify' })).toBe(0);

  const id = await fileWithdrawal(app, '2500');
  expect(await approveAsSeen(app.engine, id, APPROVER_A)).toMatchObject({
    ok: false,
    reason: 'signature-required',
  });
  const device = new SoftwareAuthenticator({ user: APPROVER_A, ...place });
  await app.engine.passkeys.signatures().book.add(device.passkey());
  const elsewhere = await signAndApprove(app, id, APPROVER_A, device, { origin: 'https://x.example' });
  expect(elsewhere).toMatchObject({ ok: false, reason: 'wrong-origin' });
  const refused = await scrape(app.metricsUrl);
  expect(refused.value(REFUSED, { reason: 'signature-required' })).toBe(1);
  expect(refused.value(REFUSED, { reason: 'wrong-origin' })).toBe(1);
  expect(refused.value(SIGNED, { kind: 'withdraw' })).toBe(0);

  expect(await signAndApprove(app, id, APPROVER_A, device)).toMatchObject({ ok: true });
  await waitUntil(
    async () => (await scrape(app.metricsUrl)).value(SIGNED, { kind: 'withdraw' }) === 1,
    'signed',
  );
  const signed = await scrape(app.metricsUrl);
  expect(signed.value(SIGNED, { kind: 'redeem' })).toBe(0);
  expect(signed.value(REFUSED, { reason: 'signature-required' })).toBe(1);
  expect(signed.value(REFUSED, { reason: 'evidence-does-not-verify' })).toBe(0);
});

test('a request whose evidence did not verify before sending counts, and every reason starts at zero', async () => {
  const metrics = new BotMetrics({ log: silentLogger });
  metrics.watch({
    storeUp: async () => true,
    readiness: async () => [],
    alertBacklog: async () => ({ depth: 0 }),
    rateBudget: async () => ({ limit: 20, used: 0, remaining: 20, resetsInSeconds: 3, blockedForSeconds: 0 }),
  });
  metrics.signingEvent({ evidenceFailed: 'AR-0000000001' });
  metrics.signingEvent({ signed: 'passkey' });
  const samples = parseExposition(await metrics.registry.metrics()).samples;
  const value = (name: string, labels: Record<string, string>) =>
    samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
      ?.value;
  expect(value(REFUSED, { reason: 'evidence-does-not-verify' })).toBe(1);
  expect(value(SIGNED, { kind: 'passkey' })).toBe(1);
  for (const reason of ['challenge-used', 'unknown-passkey', 'counter-went-back', 'bad-signature']) {
    expect(value(REFUSED, { reason })).toBe(0);
  }
  expect(value(SIGNED, { kind: 'unfreeze' })).toBe(0);
  // Only the fixed words: no request id, person or credential is a label value.
  expect(samples.filter((s) => s.name === REFUSED).map((s) => s.labels.reason)).not.toContain(
    'AR-0000000001',
  );
});

// biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
const pagesTest = test.extend('pages', async ({}, { onCleanup }) => {
  const app = await startSigningApp();
  onCleanup(() => app.stop());
  return app;
});

pagesTest(
  'counts the links and registrations the passkey pages refuse, by reason',
  async ({ pages: app }) => {
    const before = await scrape(app.metricsUrl);
    expect(before.types.get(PAGE_REFUSED)).toBe('counter');
    const reasons = [
      'link-unknown',
      'link-expired',
      'link-used',
      'link-other-workspace',
      'person-barred',
      'person-unchecked',
      'registration-refused',
    ];
    for (const reason of reasons) expect(before.value(PAGE_REFUSED, { reason })).toBe(0);

    expect((await post(app, '/passkeys/api/register/options', { token: 'bm90LWEtdG9rZW4' })).status).toBe(
      410,
    );
    // Issued eleven minutes ago, through the book's own clock.
    const past = () => new Date(Date.now() - 11 * 60_000);
    const old = new PasskeyBook(app.store, app.engine.environment(), undefined, past);
    const expired = await old.issueLink({ page: 'register', user: APPROVER_A, team: 'T1' });
    expect((await post(app, '/passkeys/api/register/options', { token: expired })).status).toBe(410);
    const elsewhere = await bookOf(app).issueLink({ page: 'register', user: APPROVER_A, team: 'T2' });
    expect((await post(app, '/passkeys/api/register/options', { token: elsewhere })).status).toBe(410);
    // A registration made for another site is not filed, and uses its link: opened again, it is refused.
    const device = new SoftwareAuthenticator({
      user: APPROVER_A,
      rpId: 'localhost',
      origin: 'http://evil.test',
    });
    const token = await registrationToken(app, APPROVER_A);
    const options = await post(app, '/passkeys/api/register/options', { token });
    expect(options.status).toBe(200);
    const filing = { token, name: 'Phone', expectedChallenge: options.json.options.challenge };
    const response = device.registrationResponse(options.json.options.challenge);
    expect((await post(app, '/passkeys/api/register/file', { ...filing, response })).status).toBe(422);
    expect((await post(app, '/passkeys/api/register/options', { token })).status).toBe(410);

    const after = await scrape(app.metricsUrl);
    expect(
      Object.fromEntries(reasons.map((reason) => [reason, after.value(PAGE_REFUSED, { reason })])),
    ).toEqual({
      'link-unknown': 1,
      'link-expired': 1,
      'link-used': 1,
      'link-other-workspace': 1,
      'person-barred': 0,
      'person-unchecked': 0,
      'registration-refused': 1,
    });
  },
);

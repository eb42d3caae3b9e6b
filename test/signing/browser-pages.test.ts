// The passkey pages in Chromium with its virtual authenticator (through the DevTools protocol: a
// platform authenticator with user verification, as a laptop's Touch ID is), against the real bot at
// http://localhost:<port>: Ade registers a passkey on the page and Bola, who holds none, approves it
// with a click; Bola registers, and Ade, who now holds one, signs Bola's registration on the sign page;
// a withdrawal is signed on the sign page and sent; a used link and a revoked passkey are refused
// with a sentence on the page, and an approval whose answer the store lost is said to be maybe
// recorded; a page opened at 127.0.0.1 works at the signing host.
import { describe, expect } from 'vitest';
import { SIGNED_MAYBE_NOT_RECORDED } from '../../src/signing/api.js';
import { createStore } from '../../src/store/index.js';
import { APPROVER_A, APPROVER_B, approve, fileWithdrawal, waitUntil } from '../slack/approvals/support.js';
import { browserAvailable, browserTest, contains, screenshot, shown } from '../support/browser.js';
import { StoreControls } from '../support/store-controls.js';
import { engineBook, openSignPage, signAt, signUrl } from './browser-support.js';
import {
  deviceTab,
  outcome,
  registerAt,
  registrationToken,
  signingToken,
  startSigningApp,
} from './support.js';

const run = browserAvailable();

/** The bot on a memory store behind `storeControls` (a test makes it fail), stopped before its store closes. */
const test = browserTest
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('storeControls', { scope: 'file' }, async ({}) => new StoreControls())
  .extend('signing', { scope: 'file' }, async ({ chromium: _, storeControls }, { onCleanup }) => {
    const memory = await createStore('memory://');
    const app = await startSigningApp({ store: storeControls.wrap(memory) });
    onCleanup(async () => {
      await app.stop();
      await memory.close();
    });
    return app;
  })
  .extend('ade', { scope: 'file' }, async ({ chromium }) => deviceTab(chromium))
  .extend('bola', { scope: 'file' }, async ({ chromium }) => deviceTab(chromium));

describe.skipIf(!run)('the passkey pages in Chromium', () => {
  test('Ade registers a passkey, Bola approves it with a click; Bola registers, Ade signs it on the sign page', async ({
    signing: app,
    ade,
    bola,
  }) => {
    const token = await registrationToken(app, APPROVER_A);
    const adeRequest = await registerAt(
      ade.page,
      `${app.signingUrl}/passkeys/register?t=${token}`,
      "Ade's laptop",
    );
    await shown(ade.page.getByText(`For ${APPROVER_A} Ade Bello.`, { exact: false }));
    await screenshot(ade.page, 'passkey-register');
    await approve(app, adeRequest, APPROVER_B);
    // Bola's link opened at 127.0.0.1 goes to the signing host first, where the passkey is made.
    const bolaToken = await registrationToken(app, APPROVER_B);
    const bolaRequest = await registerAt(
      bola.page,
      `http://127.0.0.1:${app.port}/passkeys/register?t=${bolaToken}`,
      "Bola's phone",
    );
    expect(new URL(bola.page.url()).host).toBe(`localhost:${app.port}`);
    // Ade holds a passkey now: he signs Bola's registration, on the sign page with his own device.
    const sign = await signUrl(app, APPROVER_A, bolaRequest);
    await openSignPage(ade.page, sign);
    await contains(ade.page.locator('dl'), `${APPROVER_B} Bola Okafor`);
    await contains(ade.page.locator('dl'), "Bola's phone");
    await screenshot(ade.page, 'passkey-sign-registration');
    await signAt(ade.page, sign);
    await waitUntil(async () => (await engineBook(app).holders()) === 2, 'both passkeys in the book');
    expect((await app.engine.passkeys.passkeysOf(APPROVER_A)).map((p) => p.name)).toEqual(["Ade's laptop"]);
  });

  test('a withdrawal is signed on the sign page and sent; its link then works no more', async ({
    signing: app,
    ade,
  }) => {
    const id = await fileWithdrawal(app, '250000');
    const url = `${app.signingUrl}/passkeys/sign?t=${await signingToken(app, APPROVER_A, id)}`;
    await ade.page.goto(url);
    const sign = ade.page.getByRole('button', { name: 'Sign ₦250,000.00 with your passkey' });
    await shown(sign);
    await contains(ade.page.locator('dl'), '0x52908400098527886E0F7030069857D2E4169EE7');
    await contains(ade.page.locator('dl'), 'Supplier payout INV-2231');
    await screenshot(ade.page, 'passkey-sign');
    await ade.page.getByText('Exactly what your passkey signs').click();
    await shown(ade.page.getByText('Hidden characters are shown marked', { exact: false }));
    await screenshot(ade.page, 'passkey-sign-bytes');
    await sign.click();
    await contains(outcome(ade.page), 'Approved. Slack shows it now.');
    await screenshot(ade.page, 'passkey-signed');
    await waitUntil(async () => (await app.engine.get(id))?.state === 'sent', 'sent');
    expect((await app.engine.get(id))?.approvals[0]?.evidence).toBeDefined();
    await ade.page.goto(url);
    await contains(outcome(ade.page), 'This link was already used (each link works once)');
    await screenshot(ade.page, 'passkey-link-used');
  });

  test('an approval whose answer the store lost is said to be maybe recorded; the button stays off', async ({
    signing: app,
    storeControls,
    ade,
  }) => {
    const id = await fileWithdrawal(app, '2500');
    await openSignPage(ade.page, await signUrl(app, APPROVER_A, id));
    storeControls.loseAnswer(`approval:${id}`);
    const sign = ade.page.getByRole('button', { name: 'Sign ₦2,500.00 with your passkey' });
    await sign.click();
    await contains(outcome(ade.page), SIGNED_MAYBE_NOT_RECORDED);
    await screenshot(ade.page, 'passkey-maybe-recorded');
    expect(await sign.isDisabled()).toBe(true);
    // It was recorded after all: the next sweep sends it.
    await app.engine.tick();
    await waitUntil(async () => (await app.engine.get(id))?.state === 'sent', 'sent');
  });

  test('a passkey revoked after the page opened does not sign: the page says so', async ({
    signing: app,
    ade,
  }) => {
    const id = await fileWithdrawal(app, '1500');
    await ade.page.goto(`${app.signingUrl}/passkeys/sign?t=${await signingToken(app, APPROVER_A, id)}`);
    const sign = ade.page.getByRole('button', { name: 'Sign ₦1,500.00 with your passkey' });
    await shown(sign);
    const revoked = await app.engine.passkeys.revokePasskey(APPROVER_A, APPROVER_A, "Ade's laptop");
    expect(revoked.ok).toBe(true);
    await sign.click();
    await contains(outcome(ade.page), 'was signed with a passkey that has been revoked');
    await screenshot(ade.page, 'passkey-revoked');
    expect((await app.engine.get(id))?.approvals).toEqual([]);
  });

  test('breaks none of the pages’ policy', async ({ ade, bola }) => {
    expect([...ade.violations, ...bola.violations]).toEqual([]);
  });
});

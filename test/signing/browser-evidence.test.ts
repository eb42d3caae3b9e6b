// What a passkey-signed approval withstands, driven through the sign page in Chromium with its virtual
// authenticator against the real bot at http://localhost:<port> (both approvers register a passkey on
// the page first): an assertion made with another approver's passkey, and a replayed one, are refused
// with a sentence on the page and nothing is approved; an approval written into the store by hand
// beside a signed one sends nothing (the request fails, said in the approvals channel); and the
// auditor's verifier passes the archive of a request signed on the page, then fails it, naming the
// request, once one byte of the assertion's signature is changed and the chain signed again.
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { partsOf } from '../../src/approvals/engine-parts.js';
import { ApprovalRepository } from '../../src/approvals/repository.js';
import { EVIDENCE_FAILED } from '../../src/approvals/signed-approvals.js';
import { withApproval } from '../../src/approvals/state-machine.js';
import type { AuditEntry } from '../../src/approvals/types.js';
import { AuditSigner } from '../../src/audit/signing.js';
import { CALLS } from '../../src/signing/protocol.js';
import {
  APPROVALS_CHANNEL,
  APPROVER_A,
  APPROVER_B,
  approve,
  fileWithdrawal,
  REQUESTER,
  waitUntil,
} from '../slack/approvals/support.js';
import { flipByte, rewriteSegment } from '../support/audit-archive.js';
import { browserAvailable, browserTest, contains, screenshot, shown } from '../support/browser.js';
import { engineBook, signAt, signUrl } from './browser-support.js';
import {
  deviceTab,
  outcome,
  post,
  registerAt,
  registrationToken,
  type SigningApp,
  signingToken,
  startSigningApp,
} from './support.js';

const run = browserAvailable();

const SCRIPT = fileURLToPath(new URL('../../scripts/audit-verify.mjs', import.meta.url));

const test = browserTest
  // The audit archive's folder and the key the bot signs it with (an auditor checks with its public half).
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('audit', { scope: 'file' }, async ({}, { onCleanup }) => {
    const dir = mkdtempSync(join(tmpdir(), 'cngn-browser-evidence-'));
    onCleanup(() => rmSync(dir, { recursive: true, force: true }));
    const key = generateKeyPairSync('ed25519').privateKey;
    const pem = key.export({ type: 'pkcs8', format: 'pem' }).toString();
    return { archive: join(dir, 'archive'), pem, signer: new AuditSigner(key, 'test key') };
  })
  .extend('signing', { scope: 'file' }, async ({ chromium: _, audit }, { onCleanup }) => {
    const app = await startSigningApp({
      recordPolicy: true,
      config: {
        auditArchiveDir: audit.archive,
        auditArchiveEveryMs: 86_400_000,
        auditSigningKey: { pem: audit.pem, origin: 'test key' },
      },
    });
    onCleanup(() => app.stop());
    return app;
  })
  .extend('ade', { scope: 'file' }, async ({ chromium }) => deviceTab(chromium))
  .extend('bola', { scope: 'file' }, async ({ chromium }) => deviceTab(chromium))
  // Ade registers a passkey on the page and Bola, holding none, approves it with a click; Bola registers
  // and Ade, who holds one now, signs Bola's registration on the sign page.
  .extend('enrolled', { scope: 'file' }, async ({ signing: app, ade, bola }) => {
    const register = async (user: string, tab: { page: Page }) =>
      registerAt(
        tab.page,
        `${app.signingUrl}/passkeys/register?t=${await registrationToken(app, user)}`,
        `${user}'s device`,
      );
    await approve(app, await register(APPROVER_A, ade), APPROVER_B);
    await signAt(ade.page, await signUrl(app, APPROVER_A, await register(APPROVER_B, bola)));
    await waitUntil(async () => (await engineBook(app).holders()) === 2, 'both passkeys in the book');
    return true;
  });

/** The sign page of `user`'s fresh link for `id`, and its "Sign … with your passkey" pressed. */
async function signOnPage(page: Page, app: SigningApp, user: string, id: string): Promise<void> {
  await page.goto(`${app.signingUrl}/passkeys/sign?t=${await signingToken(app, user, id)}`);
  const sign = page.getByRole('button', { name: /^Sign .* with your passkey$/ });
  await shown(sign);
  await sign.click();
}

// biome-ignore lint/suspicious/noExplicitAny: the page's JSON, read and changed field by field.
type SubmitBody = any;

/** The next sign/submit the page sends goes out as `change` makes it (the page's own body given). */
async function changeNextSubmit(page: Page, change: (body: SubmitBody) => Promise<SubmitBody>) {
  await page.route(
    `**${CALLS.signSubmit}`,
    async (route) => {
      const body = await change(route.request().postDataJSON());
      await route.continue({ postData: JSON.stringify(body) });
    },
    { times: 1 },
  );
}

/** The challenge an assertion signed (from its clientDataJSON). */
const challengeOf = (body: SubmitBody): string =>
  JSON.parse(Buffer.from(body.response.response.clientDataJSON, 'base64url').toString('utf8')).challenge;

/**
 * An assertion over `challenge` by the passkey of the device in `page`'s tab, as startAuthentication
 * returns it: navigator.credentials.get on a page of the signing origin (user verification required).
 */
function assertionIn(page: Page, challenge: string): Promise<SubmitBody> {
  return page.evaluate(async (challenge) => {
    const bytes = (text: string) =>
      Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
    const text = (buffer: ArrayBuffer) =>
      btoa(String.fromCharCode(...new Uint8Array(buffer)))
        .replace(/\+/g, '-')
        .replace(/\//g, '_')
        .replace(/=+$/, '');
    const credential = (await navigator.credentials.get({
      publicKey: { challenge: bytes(challenge), rpId: location.hostname, userVerification: 'required' },
    })) as PublicKeyCredential;
    const response = credential.response as AuthenticatorAssertionResponse;
    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key',
      response: {
        authenticatorData: text(response.authenticatorData),
        clientDataJSON: text(response.clientDataJSON),
        signature: text(response.signature),
        ...(response.userHandle ? { userHandle: text(response.userHandle) } : {}),
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }, challenge);
}

const refusals = async (app: SigningApp, id: string) =>
  (await app.engine.audit(500)).filter((e) => e.requestId === id && e.action === 'signature-refused');

/** The auditor's run of the bundled verifier on `folder`: its exit status and the PROBLEM lines. */
function verify(folder: string, key: string): { status: number | null; out: string; problems: string[] } {
  const ran = spawnSync(process.execPath, [SCRIPT, folder, '--key', key], { encoding: 'utf8', env: {} });
  const problems = ran.stdout.split('\n').filter((line) => line.startsWith('PROBLEM '));
  return { status: ran.status, out: ran.stdout, problems };
}

/** The entry with each of its passkey signatures changed by `change`. */
function withSignatures(entry: AuditEntry, change: (signature: string) => string): AuditEntry {
  const signatures = entry.figures?.signatures;
  if (!entry.figures || !signatures) return entry;
  const changed = signatures.map((s) => ({ ...s, signature: change(s.signature) }));
  return { ...entry, figures: { ...entry.figures, signatures: changed } } as AuditEntry;
}

describe.skipIf(!run)('what a passkey-signed approval withstands, in Chromium', () => {
  test('the verifier passes the archive of a request signed on the page, and fails it once a byte of the signature changes', async ({
    signing: app,
    enrolled: _,
    ade,
    audit,
  }) => {
    // First in the file: the later steps' requests count toward the requester's total, and one approval
    // is enough only below ₦1,000,000 a day.
    const id = await fileWithdrawal(app, '4000');
    await signOnPage(ade.page, app, APPROVER_A, id);
    await contains(outcome(ade.page), 'Approved. Slack shows it now.');
    await waitUntil(async () => (await app.engine.get(id))?.state === 'sent', 'sent');
    expect(await app.engine.archiveAudit('test')).toMatchObject({ written: true });
    const folder = join(audit.archive, app.engine.environment());
    const passed = verify(folder, audit.signer.publicKey);
    expect(passed.problems).toEqual([]);
    expect(passed.out).toMatch(/passkey signatures? checked on \d+ requests? sent with signed approvals/);
    expect(passed.status).toBe(0);
    // A store edit before archiving: the chain is rebuilt and signed with the bot's key, so only the
    // passkey signature can tell.
    rewriteSegment(folder, audit.signer, (entries) =>
      entries.map((e) => (e.requestId === id ? withSignatures(e, (s) => flipByte(s, 5)) : e)),
    );
    const failed = verify(folder, audit.signer.publicKey);
    expect(failed.problems).toEqual([
      expect.stringMatching(
        new RegExp(
          `^PROBLEM \\S+: request ${id} \\(withdraw, sent at seq \\d+\\): ${APPROVER_A}'s signature does not verify with the public key its passkey was registered with$`,
        ),
      ),
    ]);
    expect(failed.status).toBe(1);
  });

  test('an assertion made with another approver’s passkey is refused on the page: nothing approved', async ({
    signing: app,
    enrolled: _,
    ade,
    bola,
  }) => {
    const id = await fileWithdrawal(app, '1700');
    const [adeKey] = await app.engine.passkeys.passkeysOf(APPROVER_A);
    // Ade's device signs the challenge Bola's page was given, on a page of the signing origin.
    await ade.page.goto(`${app.signingUrl}/passkeys/sign?t=none`);
    let sent: SubmitBody;
    await changeNextSubmit(bola.page, async (own) => {
      sent = { ...own, response: await assertionIn(ade.page, challengeOf(own)) };
      return sent;
    });
    await signOnPage(bola.page, app, APPROVER_B, id);
    await contains(
      outcome(bola.page),
      `Your approval of ${id} · Withdrawal · ₦1,700.00 was signed with a passkey registered to someone else, so it did not count and nothing changed.`,
    );
    await screenshot(bola.page, 'passkey-another-approvers');
    expect(sent.response.id).toBe(adeKey?.credentialId);
    expect((await app.engine.get(id))?.approvals).toEqual([]);
    await waitUntil(async () => (await refusals(app, id)).length === 1, 'the refusal on the record');
    expect((await refusals(app, id))[0]).toMatchObject({
      actor: APPROVER_B,
      note: 'a passkey approval did not count: not-own-passkey',
    });
  });

  test('a signature sent again is refused on the page: its challenge was used', async ({
    signing: app,
    enrolled: _,
    ade,
    bola,
  }) => {
    // Two approvals needed: the request still waits after Ade's, so only the used challenge stops Bola's.
    const id = await fileWithdrawal(app, '1000000');
    const submitted = ade.page.waitForRequest((r) => r.url().endsWith(CALLS.signSubmit));
    await signOnPage(ade.page, app, APPROVER_A, id);
    await contains(outcome(ade.page), 'still needs one more approval. Nothing is sent yet.');
    const captured: SubmitBody = (await submitted).postDataJSON();
    // Sent again as Ade, with a fresh link: Ade's approval already counts.
    const again = await post(app, CALLS.signSubmit, {
      ...captured,
      token: await signingToken(app, APPROVER_A, id),
    });
    expect(again.json.problem).toContain(`You already approved ${id}`);
    // Sent again from Bola's page, with Bola's fresh link for the same request and round.
    await changeNextSubmit(bola.page, async (own) => ({ ...captured, token: own.token }));
    await signOnPage(bola.page, app, APPROVER_B, id);
    await contains(
      outcome(bola.page),
      `Your approval of ${id} · Withdrawal · ₦1,000,000.00 was signed with a link that was already used or has run out: open a new signing link, so it did not count and nothing changed.`,
    );
    await screenshot(bola.page, 'passkey-replayed');
    expect((await app.engine.get(id))?.approvals.map((a) => a.user)).toEqual([APPROVER_A]);
    await waitUntil(async () => (await refusals(app, id)).length === 1, 'the refusal on the record');
    expect((await refusals(app, id))[0]?.note).toBe('a passkey approval did not count: challenge-used');
  });

  test('an approval written into the store beside a signed one sends nothing: the request fails', async ({
    signing: app,
    enrolled: _,
    ade,
  }) => {
    const id = await fileWithdrawal(app, '1100000');
    await signOnPage(ade.page, app, APPROVER_A, id);
    await contains(outcome(ade.page), 'still needs one more approval. Nothing is sent yet.');
    // Someone with write access to the store adds Bola's approval, with no assertion, and writes it back.
    const repo = new ApprovalRepository(app.store, app.engine.environment());
    const stored = await repo.get(id);
    if (!stored) throw new Error('not stored');
    expect(stored.approvals[0]?.evidence).toBeDefined();
    const forged = withApproval(stored, APPROVER_B, new Date());
    expect(forged.state).toBe('approved');
    // Unaudited, as a writer without the audit signing key: an unsigned entry would hold every send
    // frozen (freeze-on-the-signed-chain.md) and leave the request unable to be shown open on the signed
    // chain, which is read before the claim (closed-on-chain.ts), ahead of the evidence check this test is about.
    expect(await repo.saveIf(stored, forged, false)).toBe(true);
    const calls = app.sandbox.count('POST', '/v1/api/withdraw');
    // The engine's send, as it runs for an approved request.
    await partsOf(app.engine).executor.execute(id);
    await app.engine.idle();
    const failed = await app.engine.get(id);
    expect(failed).toMatchObject({
      state: 'failed',
      outcome: { reason: EVIDENCE_FAILED, nothingSent: true },
    });
    expect(failed?.history.at(-1)).toMatchObject({ action: 'failed', note: EVIDENCE_FAILED });
    expect(app.sandbox.count('POST', '/v1/api/withdraw')).toBe(calls);
    // The approvers see it on the request's message in the channel; the requester is told privately.
    await waitUntil(
      () =>
        app.slack
          .messages(APPROVALS_CHANNEL)
          .some(
            (m) => m.text.includes(id) && JSON.stringify(m.blocks).includes(`Reason: ${EVIDENCE_FAILED}`),
          ),
      'the channel message',
    );
    await waitUntil(
      () =>
        app.slack
          .callsTo('chat.postMessage')
          .some((c) => c.body.channel === REQUESTER && String(c.body.text).includes(EVIDENCE_FAILED)),
      'the requester told',
    );
  });

  test('breaks none of the pages’ policy', async ({ ade, bola }) => {
    expect([...ade.violations, ...bola.violations]).toEqual([]);
  });
});

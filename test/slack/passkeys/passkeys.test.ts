// `/cngn passkey` over signed HTTP with the real Bolt app and the fake Slack: an approver gets,
// privately, a one-time link to the registration page bound to them and this install, and their list
// (name, added, last used); `/cngn passkey revoke <name>` ends their own at once and another approver
// ends someone's with `revoke @person <name>`; someone neither approver nor delegate is refused by the
// gate. A registration request shows in the channel and is approved there by another approver.
import { describe, expect } from 'vitest';
import { type Passkey, parseSigningRule } from '../../../src/access/index.js';
import { partsOf } from '../../../src/approvals/engine-parts.js';
import { botTest } from '../../support/bot.js';
import { commandAnswer } from '../../support/slack-requests.js';
import {
  APPROVALS_CHANNEL,
  APPROVER_A,
  APPROVER_B,
  type ApprovalApp,
  approve,
  OUTSIDER,
  startApprovalApp,
  waitUntil,
} from '../approvals/support.js';

const SIGNING_URL = 'https://desk.example.test';

/** Signed approvals on, the pages at SIGNING_URL. */
const SIGNING = { rule: parseSigningRule('all'), rpId: 'desk.example.test', origin: SIGNING_URL };

/** One bot for the file, signing on, its pages reachable at SIGNING_URL (PUBLIC_URL). */
const test = botTest
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('fileApp', { scope: 'file' }, async ({}, { onCleanup }) => {
    const app = await startApprovalApp({
      approvers: [APPROVER_A, APPROVER_B],
      publicUrl: SIGNING_URL,
      config: { signing: SIGNING },
    });
    onCleanup(() => app.stop());
    return app;
  });

/** Run `/cngn <text>` as `userId`; the private answer's text and blocks as one string. */
async function command(app: ApprovalApp, text: string, userId: string): Promise<string> {
  const answer = await commandAnswer(app, text, userId);
  expect(answer.body.response_type).toBe('ephemeral');
  return `${String(answer.body.text)} ${JSON.stringify(answer.body.blocks)}`;
}

const bookOf = (app: ApprovalApp) => app.engine.passkeys.signatures().book;

/** A passkey in the book as an approved registration leaves it. */
function passkey(user: string, name: string, more: Partial<Passkey> = {}): Passkey {
  return {
    credentialId: `cred-${user}-${name.replace(/\W/g, '')}`,
    user,
    name,
    publicKey: 'pQECAyYgASFYIA',
    counter: 0,
    addedAt: '2026-11-20T09:00:00.000Z',
    registration: { requestId: 'AR-0000000000', approvedBy: [APPROVER_B], unsigned: 'first passkeys' },
    ...more,
  };
}

describe('/cngn passkey', () => {
  test('answers privately with a one-time link for this person and install, valid once, and their list', async ({
    fileApp: app,
  }) => {
    const answer = await command(app, 'passkey', APPROVER_A);
    const token = /https:\/\/desk\.example\.test\/passkeys\/register\?t=([A-Za-z0-9_-]+)/.exec(answer)?.[1];
    expect(token).toBeDefined();
    expect(answer).toContain('works once, for 10 minutes');
    expect(answer).toContain('none yet');
    const book = bookOf(app);
    const link = { page: 'register', user: APPROVER_A, team: 'T1' };
    expect(await book.peekLink(token ?? '')).toEqual({ ok: true, link });
    expect(await book.useLink(token ?? '')).toEqual({ ok: true, link });
    expect(await book.useLink(token ?? '')).toEqual({ ok: false, why: 'used', link });
    // Each asking gives a new link.
    const again = await command(app, 'passkey', APPROVER_A);
    expect(again).not.toContain(token ?? '');
  });

  test('lists one’s passkeys: name, when added, when last used', async ({ fileApp: app }) => {
    await bookOf(app).add(passkey(APPROVER_B, "Bola's MacBook", { lastUsedAt: new Date().toISOString() }));
    await bookOf(app).add(passkey(APPROVER_B, 'Phone'));
    const answer = await command(app, 'passkey', APPROVER_B);
    expect(answer).toContain("*Bola's MacBook* — added");
    expect(answer).toContain('last used');
    expect(answer).toContain('*Phone* — added');
    expect(answer).toContain('not used yet');
  });

  test("revokes one's own at once, and another approver revokes someone's (a lost device)", async ({
    fileApp: app,
  }) => {
    await bookOf(app).add(passkey(APPROVER_A, 'Work laptop'));
    await bookOf(app).add(passkey(APPROVER_A, 'Old phone'));
    expect(await command(app, 'passkey revoke Nothing here', APPROVER_A)).toContain('No passkey named');
    expect(await command(app, 'passkey revoke Work laptop', APPROVER_A)).toContain(
      'Revoked at once: Your passkey *Work laptop*',
    );
    expect((await app.engine.passkeys.passkeysOf(APPROVER_A)).map((p) => p.name)).toEqual(['Old phone']);
    const lost = await command(app, `passkey revoke <@${APPROVER_A}|ade> Old phone`, APPROVER_B);
    expect(lost).toContain(`Revoked at once: <@${APPROVER_A}>'s passkey *Old phone*`);
    expect(await app.engine.passkeys.passkeysOf(APPROVER_A)).toEqual([]);
    const revoked = await bookOf(app).byCredential(passkey(APPROVER_A, 'Old phone').credentialId);
    expect(revoked?.revoked).toMatchObject({ by: APPROVER_B, note: 'revoked by another approver' });
    expect(await command(app, 'passkey revoke', APPROVER_A)).toContain('Name: say which passkey');
  });

  test('is refused to someone who is neither an approver nor a delegate', async ({ fileApp: app }) => {
    const answer = await command(app, 'passkey', OUTSIDER);
    expect(answer).toContain('*approver* role');
    expect(answer).not.toContain('/passkeys/register');
  });

  test('says passkeys are not in use when signing is off and there is no address either', async ({ app }) => {
    const answer = await command(app, 'passkey', APPROVER_A);
    expect(answer).toContain('Passkeys are not in use here: signing is off');
    expect(answer).not.toContain('/passkeys/register');
  });
});

describe('a registration request in the channel', () => {
  test('shows "Register a passkey" for its owner; another approver approves it there and it counts', async ({
    startApp,
  }) => {
    // A bot of its own: on the file's, both approvers hold passkeys, so no registration is a click there.
    const app = await startApp({
      approvers: [APPROVER_A, APPROVER_B],
      publicUrl: SIGNING_URL,
      config: { signing: SIGNING },
    });
    const { core } = partsOf(app.engine);
    const filed = await core.file({
      kind: 'passkey',
      payload: {
        user: APPROVER_B,
        name: 'Tablet',
        credentialId: 'dGFibGV0LWNyZWQ',
        publicKey: 'pQECAyYgASFYIA',
        counter: 0,
      },
      display: {},
      requester: APPROVER_B,
    });
    await waitUntil(
      async () => app.slack.messages(APPROVALS_CHANNEL).some((m) => JSON.stringify(m).includes(filed.id)),
      'the request message',
    );
    const shown = JSON.stringify(
      app.slack.messages(APPROVALS_CHANNEL).find((m) => JSON.stringify(m).includes(filed.id)),
    );
    expect(shown).toContain('Register a passkey');
    expect(shown).toContain(`<@${APPROVER_B}>`);
    expect(shown).toContain('Tablet');
    await approve(app, `${filed.id}:0`, APPROVER_A);
    await waitUntil(async () => (await app.engine.get(filed.id))?.state === 'completed', 'the registration');
    expect((await app.engine.passkeys.passkeysOf(APPROVER_B)).map((p) => p.name)).toContain('Tablet');
  });
});

describe('/cngn passkey with signed approvals on', () => {
  test('links to CNGN_SIGNING_URL when PUBLIC_URL is unset', async ({ startApp }) => {
    const app = await startApp({
      approvers: [APPROVER_A, APPROVER_B],
      config: {
        signing: {
          rule: parseSigningRule('all'),
          rpId: 'sign.example.test',
          origin: 'https://sign.example.test',
        },
      },
    });
    const text = await command(app, 'passkey', APPROVER_A);
    expect(text).toContain('https://sign.example.test/passkeys/register?t=');
  });
});

describe('/cngn passkey with signed approvals off', () => {
  test('says passkeys are not in use here and gives no link, though PUBLIC_URL is set', async ({
    startApp,
  }) => {
    const app = await startApp({ approvers: [APPROVER_A, APPROVER_B], publicUrl: SIGNING_URL });
    const text = await command(app, 'passkey', APPROVER_A);
    expect(text).toContain('Passkeys are not in use here: signing is off');
    expect(text).not.toContain('/passkeys/register');
    expect(text).not.toContain(SIGNING_URL);
  });
});

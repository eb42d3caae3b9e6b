// A hold because the signed audit chain does not verify, through the real bot (signed HTTP, Bolt, the
// fake Slack, the real client against the sandbox): the approvals channel is told in the hold's own
// words, a withdrawal approved while held waits and its message carries the hold's banner, and the
// first `/cngn unfreeze` filed for it, approved by another approver, lifts it: the held withdrawal goes
// out, once (a later sweep sends it no second time).
import { generateKeyPairSync } from 'node:crypto';
import { expect } from 'vitest';
import type { ChainHead } from '../../../src/audit/chain.js';
import { auditHeadKey } from '../../../src/audit/log.js';
import { botTest } from '../../support/bot.js';
import { commandAnswer } from '../../support/slack-requests.js';
import {
  APPROVALS_CHANNEL,
  APPROVER_A,
  APPROVER_B,
  type ApprovalApp,
  approve,
  fileWithdrawal,
  waitUntil,
} from '../approvals/support.js';

const pem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

/** The bot holding the audit signing key. */
const test = botTest.extend('app', async ({ startApp }) =>
  startApp({ config: { auditSigningKey: { pem, origin: 'test key' } } }),
);

const withdrawCalls = (app: ApprovalApp) => app.sandbox.count('POST', '/v1/api/withdraw');
const channelText = (app: ApprovalApp) =>
  JSON.stringify(app.slack.messages(APPROVALS_CHANNEL).map((m) => m.blocks ?? m.text));
/** The approvals channel's messages about request `id`, as text. */
const aboutRequest = (app: ApprovalApp, id: string) =>
  app.slack
    .messages(APPROVALS_CHANNEL)
    .map((m) => JSON.stringify(m.blocks ?? m.text))
    .filter((text) => text.includes(id));

test('the channel is told in the hold’s words, and the first unfreeze filed for it lifts it', async ({
  app,
}) => {
  const first = await fileWithdrawal(app, '1500.50');
  await approve(app, first, APPROVER_A);
  await app.engine.idle();
  expect(withdrawCalls(app)).toBe(1);
  // A store writer strips the signature from the head this bot signed; the sweep finds it.
  const key = auditHeadKey('sandbox');
  const head = (await app.store.get<ChainHead>(key)) as ChainHead;
  await app.store.set(key, { seq: head.seq, hash: head.hash, entry: head.entry });
  await app.engine.tick();
  await app.engine.idle();
  await waitUntil(
    () =>
      channelText(app).includes(
        'Sends are held: the signed audit chain does not verify back to its latest freeze.',
      ),
    'the hold told in the channel',
  );
  const told = channelText(app);
  expect(told).toContain('Any approver may lift the hold');
  expect(told).not.toContain('changed outside the bot');

  // A withdrawal approved while held waits; its message carries the hold's banner.
  const held = await fileWithdrawal(app, '2500.25');
  await approve(app, held, APPROVER_A);
  await app.engine.tick();
  await app.engine.idle();
  expect((await app.engine.get(held))?.state).toBe('approved');
  expect(withdrawCalls(app)).toBe(1);
  const banner = 'Held for the break in the audit chain next to ';
  expect(
    aboutRequest(app, held).some((text) => text.includes(banner) && text.includes('nothing is sent')),
  ).toBe(true);

  await commandAnswer(app, 'unfreeze', APPROVER_B);
  const request = (await app.engine.openRequests()).find((r) => r.kind === 'unfreeze');
  if (!request) throw new Error('no unfreeze request');
  await approve(app, request.id, APPROVER_A);
  await app.engine.idle();
  await waitUntil(async () => (await app.engine.currentFreeze()) === undefined, 'the hold lifted');
  expect((await app.engine.get(request.id))?.state).toBe('completed');
  expect(channelText(app)).toContain('Sends resume.');

  await waitUntil(async () => (await app.engine.get(held))?.state === 'sent', 'the held withdrawal sent');
  await app.engine.tick();
  await app.engine.idle();
  expect((await app.engine.get(held))?.state).toBe('sent');
  expect(withdrawCalls(app)).toBe(2);
});

// Where the bot holds the audit signing key, a sent withdrawal a store writer set back to approved (its
// history cut back to the approval) is not sent again: it ends outcome unknown, as the signed audit chain
// records its call, and the alerts channel hears that a person must check it, though the cut history is
// no longer than what the bot had already told.
import { generateKeyPairSync } from 'node:crypto';
import { expect } from 'vitest';
import { SENT_ON_CHAIN } from '../../../src/approvals/closed-on-chain.js';
import { partsOf } from '../../../src/approvals/engine-parts.js';
import { revive } from '../../approvals/closed-support.js';
import { botTest as test } from '../../support/bot.js';
import { APPROVER_A, fileWithdrawal, waitUntil } from './support.js';

test('a sent withdrawal revived in the store: not sent again, and a person is alerted', async ({
  startApp,
}) => {
  const key = generateKeyPairSync('ed25519').privateKey;
  const pem = key.export({ type: 'pkcs8', format: 'pem' }).toString();
  const app = await startApp({ config: { auditSigningKey: { pem, origin: 'test key' } } });
  const id = await fileWithdrawal(app, '1500');
  const approved = await partsOf(app.engine).core.approve(id, APPROVER_A);
  expect(approved.ok && approved.request.state).toBe('approved');
  await partsOf(app.engine).executor.execute(id);
  await app.engine.idle();
  const sent = await app.engine.get(id);
  expect(sent?.state).toBe('sent');
  const calls = app.sandbox.count('POST', '/v1/api/withdraw');
  const alerts = () =>
    app.slack
      .callsTo('chat.postMessage')
      .filter((c) => c.body.channel === 'CALERTS' && String(c.body.text).includes(id));
  expect(alerts()).toEqual([]);
  const presenter = app.approvals?.presenter;
  expect(presenter).toBeDefined();
  await presenter?.idle();
  const posts = () => app.slack.callsTo('chat.postMessage').map((c) => String(c.body.text));
  const toldBefore = posts();

  await revive(app.store, id);
  await partsOf(app.engine).executor.execute(id);
  await app.engine.idle();
  const after = await app.engine.get(id);
  expect(after?.state).toBe('outcome-unknown');
  expect(after?.history.length).toBeLessThanOrEqual(sent?.history.length ?? 0);
  expect(after?.history.some((h) => h.note?.includes(`${SENT_ON_CHAIN} (sent,`))).toBe(true);
  expect(app.sandbox.count('POST', '/v1/api/withdraw')).toBe(calls);
  await waitUntil(() => alerts().length > 0, 'the alert');
  await app.engine.idle();
  await presenter?.idle();
  expect(alerts()).toHaveLength(1);
  const text = String(alerts()[0]?.body.text);
  expect(text).toMatch(/^Needs a person: /);
  expect(text).not.toContain('nothing was sent');
  // What was said of the request before the store writer cut its history is not said again.
  const toldAfter = posts().slice(toldBefore.length);
  expect(toldAfter.filter((told) => toldBefore.includes(told))).toEqual([]);
});

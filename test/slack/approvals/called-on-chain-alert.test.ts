// Where the bot holds the audit signing key, a withdrawal the signed chain records as already sent only
// when it is read right before the call (a store writer revived it after the claim's read) is not sent:
// it ends outcome unknown, the alerts channel hears that a person must check it, and a person is asked.
import { generateKeyPairSync } from 'node:crypto';
import { expect } from 'vitest';
import { SENT_ON_CHAIN } from '../../../src/approvals/closed-on-chain.js';
import { partsOf } from '../../../src/approvals/engine-parts.js';
import { botTest as test } from '../../support/bot.js';
import { APPROVER_A, fileWithdrawal, waitUntil } from './support.js';

test('recorded as sent on the chain only right before the call: not sent, alerted, a person asked', async ({
  startApp,
}) => {
  const key = generateKeyPairSync('ed25519').privateKey;
  const pem = key.export({ type: 'pkcs8', format: 'pem' }).toString();
  const app = await startApp({ config: { auditSigningKey: { pem, origin: 'test key' } } });
  const id = await fileWithdrawal(app, '1500');
  // The chain's reader answers for the request as the chain would once a revived copy had been sent:
  // open at the claim, called once it is executing (the read right before the call).
  const closings = (partsOf(app.engine).core.signed.closedOnChain as unknown as { closings: ChainReader })
    .closings;
  const wordOn = closings.wordOn.bind(closings);
  const at = new Date().toISOString();
  closings.wordOn = async (requestId) =>
    (await app.engine.get(requestId))?.state === 'executing'
      ? { called: { state: 'sent', at } }
      : wordOn(requestId);
  const approved = await partsOf(app.engine).core.approve(id, APPROVER_A);
  expect(approved.ok && approved.request.state).toBe('approved');
  await partsOf(app.engine).executor.execute(id);
  await app.engine.idle();

  const after = await app.engine.get(id);
  expect(after?.state).toBe('outcome-unknown');
  expect(after?.history.some((h) => h.note?.includes(`${SENT_ON_CHAIN} (sent,`))).toBe(true);
  expect(app.sandbox.count('POST', '/v1/api/withdraw')).toBe(0);
  expect(after?.history.some((h) => h.action === 'needs-manual-check')).toBe(true);
  const alerts = () =>
    app.slack
      .callsTo('chat.postMessage')
      .filter((c) => c.body.channel === 'CALERTS' && String(c.body.text).includes(id));
  await waitUntil(() => alerts().length > 0, 'the alert');
  expect(String(alerts()[0]?.body.text)).toMatch(/^Needs a person: /);
});

interface ChainReader {
  wordOn(requestId: string): Promise<unknown>;
}

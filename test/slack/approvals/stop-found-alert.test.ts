// A rejection of an approved request the service lists a matching transaction for (it went out before
// a store restore, or was paid outside the bot) stands, and a person is told in the alerts channel,
// once, with the reference, and in the request's thread.
import { expect } from 'vitest';
import { partsOf } from '../../../src/approvals/engine-parts.js';
import { Money } from '../../../src/format/money.js';
import { startSandbox } from '../../../src/sandbox/index.js';
import { rejectAsSeen } from '../../support/approve-as-seen.js';
import { botTest as test } from '../../support/bot.js';
import { APPROVER_A, APPROVER_B, DEST, fileWithdrawal, waitUntil } from './support.js';

test('a rejected request that matches a transaction at the service alerts a person once, with its reference', async ({
  startApp,
}) => {
  const app = await startApp({ tiers: '0:1' });
  const id = await fileWithdrawal(app, '1234.56');
  const filed = await app.engine.get(id);
  if (filed?.kind !== 'withdraw') throw new Error('not filed');
  // Approved, and not sent by the bot; the same payment made by hand at the service.
  expect(await partsOf(app.engine).core.approve(id, APPROVER_A)).toMatchObject({ ok: true });
  const { networkId } = filed.payload;
  const outside = await app.client.withdraw({
    amount: Money.parseDecimal('1234.56'),
    address: DEST,
    networkId,
  });
  expect(await rejectAsSeen(app.engine, id, APPROVER_B, 'paid by hand')).toMatchObject({ ok: true });
  await app.engine.idle();
  const alerts = () =>
    app.slack
      .callsTo('chat.postMessage')
      .filter((c) => c.body.channel === 'CALERTS' && String(c.body.text).includes(id));
  await waitUntil(() => alerts().length > 0, 'the alert');
  expect(String(alerts()[0]?.body.text)).toMatch(/^Needs a person: /);
  expect(String(alerts()[0]?.body.text)).toContain(outside.trxRef);
  expect(String(alerts()[0]?.body.text)).toContain('outside the bot');
  const thread = () =>
    app.slack
      .callsTo('chat.postMessage')
      .filter((c) => c.body.thread_ts && String(c.body.text).includes(outside.trxRef));
  await waitUntil(() => thread().length > 0, 'the thread reply');
  expect((await app.engine.get(id))?.state).toBe('rejected');
  await app.engine.tick();
  await app.engine.idle();
  await app.approvals?.presenter?.present(id);
  expect(alerts()).toHaveLength(1);
});

test('a rejected request whose lookup is given up alerts a person in the alerts channel too', async ({
  startApp,
  defer,
}) => {
  const sandbox = await startSandbox({ settleDelayMs: 3_600_000, rateLimit: false });
  defer(() => sandbox.stop());
  let at = Date.now();
  const app = await startApp({ tiers: '0:1', sandbox, now: () => new Date(at) });
  const id = await fileWithdrawal(app, '1234.57');
  expect(await partsOf(app.engine).core.approve(id, APPROVER_A)).toMatchObject({ ok: true });
  sandbox.failNext('GET', '/v1/api/transactions', 403, 3, 'IP address not whitelisted');
  expect(await rejectAsSeen(app.engine, id, APPROVER_B, 'not needed')).toMatchObject({ ok: true });
  await app.engine.idle();
  for (const _ of [1, 2]) {
    at += 61_000;
    await app.engine.tick();
    await app.engine.idle();
  }
  const alerts = () =>
    app.slack
      .callsTo('chat.postMessage')
      .filter((c) => c.body.channel === 'CALERTS' && String(c.body.text).includes(id));
  await waitUntil(() => alerts().length > 0, 'the alert');
  expect(String(alerts()[0]?.body.text)).toMatch(/^Needs a person: /);
  expect(String(alerts()[0]?.body.text)).toContain('could not be looked up');
  expect((await app.engine.get(id))?.state).toBe('rejected');
});

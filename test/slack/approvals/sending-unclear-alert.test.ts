// An approved request that a claim marked as sending keeps from being claimed (a stale copy of the
// request written back over the mark) may have gone out: it is never sent again, and a person is told
// in the alerts channel, once.
import { expect } from 'vitest';
import { partsOf } from '../../../src/approvals/engine-parts.js';
import { EXECUTION_LEASE_MS } from '../../../src/approvals/executor.js';
import { botTest as test } from '../../support/bot.js';
import { APPROVER_A, fileWithdrawal, waitUntil } from './support.js';

test('an approved request a claim marked as sending blocks alerts a person once and is not sent', async ({
  startApp,
}) => {
  let at = Date.now();
  const app = await startApp({ tiers: '0:1', now: () => new Date(at) });
  const id = await fileWithdrawal(app, '1234.58');
  const { core, executor } = partsOf(app.engine);
  expect(await core.approve(id, APPROVER_A)).toMatchObject({ ok: true });
  const approved = await app.engine.get(id);
  const claimed = await executor.claimExecution(id);
  if (!claimed || !(await executor.markSending(claimed))) throw new Error('not marked');
  await core.repo.store.set(`approval:${id}`, approved); // a stale copy, written back over the mark
  for (const _ of [1, 2]) {
    at += EXECUTION_LEASE_MS + 1_000;
    await app.engine.tick();
    await app.engine.idle();
  }
  const alerts = () =>
    app.slack
      .callsTo('chat.postMessage')
      .filter((c) => c.body.channel === 'CALERTS' && String(c.body.text).includes(id));
  await waitUntil(() => alerts().length > 0, 'the alert');
  expect(String(alerts()[0]?.body.text)).toMatch(/^Needs a person: /);
  expect(String(alerts()[0]?.body.text)).toContain('may have gone out');
  expect(alerts()).toHaveLength(1);
  expect((await app.engine.get(id))?.state).toBe('approved');
  expect(app.sandbox.count('POST', '/v1/api/withdraw')).toBe(0);
});

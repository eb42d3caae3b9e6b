// An approved request that a claim marked as sending keeps from being claimed (a stale copy of the
// request written back over the mark) may have gone out: it is never sent again, and a person is told
// in the alerts channel, once, by whichever attempt to send it finds the claim first.
import { expect } from 'vitest';
import { partsOf } from '../../../src/approvals/engine-parts.js';
import { EXECUTION_LEASE_MS } from '../../../src/approvals/executor.js';
import { SENDING_UNCLEAR_ACTION } from '../../../src/approvals/index.js';
import { botTest as test } from '../../support/bot.js';
import { capturedLog } from '../../support/captured-log.js';
import { refusedInModal } from '../../support/review.js';
import { APPROVER_A, APPROVER_B, type ApprovalApp, approve, fileWithdrawal, waitUntil } from './support.js';

/** The alerts channel's posts about request `id`. */
const alerts = (app: ApprovalApp, id: string) =>
  app.slack
    .callsTo('chat.postMessage')
    .filter((c) => c.body.channel === 'CALERTS' && String(c.body.text).includes(id));

/** Claims request `id` and marks the claim as sending; then `stale`, an older copy, is written back over the mark. */
async function staleCopyOverMark(app: ApprovalApp, id: string, stale: unknown): Promise<void> {
  const { core, executor } = partsOf(app.engine);
  const claimed = await executor.claimExecution(id);
  if (!claimed || !(await executor.markSending(claimed))) throw new Error('not marked');
  await core.repo.store.set(`approval:${id}`, stale);
}

test('an approved request a claim marked as sending blocks alerts a person once and is not sent', async ({
  startApp,
}) => {
  let at = Date.now();
  const app = await startApp({ tiers: '0:1', now: () => new Date(at) });
  const id = await fileWithdrawal(app, '1234.58');
  const { core } = partsOf(app.engine);
  expect(await core.approve(id, APPROVER_A)).toMatchObject({ ok: true });
  const approved = await app.engine.get(id);
  await staleCopyOverMark(app, id, approved);
  for (const _ of [1, 2]) {
    at += EXECUTION_LEASE_MS + 1_000;
    await app.engine.tick();
    await app.engine.idle();
  }
  await waitUntil(() => alerts(app, id).length > 0, 'the alert');
  expect(String(alerts(app, id)[0]?.body.text)).toMatch(/^Needs a person: /);
  expect(String(alerts(app, id)[0]?.body.text)).toContain('may have gone out');
  expect(alerts(app, id)).toHaveLength(1);
  expect((await app.engine.get(id))?.state).toBe('approved');
  expect(app.sandbox.count('POST', '/v1/api/withdraw')).toBe(0);
});

test('the approval that finds a claim marked as sending blocking it alerts a person at once, not at the next sweep', async ({
  startApp,
}) => {
  let at = Date.now();
  const app = await startApp({ tiers: '0:2', now: () => new Date(at) });
  const id = await fileWithdrawal(app, '1234.59');
  const { core } = partsOf(app.engine);
  expect(await core.approve(id, APPROVER_A)).toMatchObject({ ok: true });
  const halfway = await app.engine.get(id);
  expect(await core.approve(id, APPROVER_B)).toMatchObject({ ok: true });
  // A stale copy from before the last approval is written back over the mark; the lease runs out.
  await staleCopyOverMark(app, id, halfway);
  at += EXECUTION_LEASE_MS + 1_000;
  // The last approval again, clicked in Slack; no sweep runs.
  const reviewed = await approve(app, id, APPROVER_B);
  expect(refusedInModal(reviewed.submitted)).toBeUndefined();
  await app.engine.idle();
  const after = await app.engine.get(id);
  expect(after?.state).toBe('approved');
  expect(after?.history.filter((h) => h.action === SENDING_UNCLEAR_ACTION)).toHaveLength(1);
  await waitUntil(() => alerts(app, id).length > 0, 'the alert');
  expect(String(alerts(app, id)[0]?.body.text)).toContain('may have gone out');
  // The sweep that follows finds it asked already: nothing more is said, nothing is sent.
  await app.engine.tick();
  await app.engine.idle();
  const swept = await app.engine.get(id);
  expect(swept?.history.filter((h) => h.action === SENDING_UNCLEAR_ACTION)).toHaveLength(1);
  expect(app.sandbox.count('POST', '/v1/api/withdraw')).toBe(0);
});

test('the approval of a request whose hand-back names a claim already calling sends nothing twice and logs it once', async ({
  startApp,
}) => {
  const { logger, entries } = capturedLog('error');
  const app = await startApp({ tiers: '0:2', logger });
  const id = await fileWithdrawal(app, '1234.61');
  const { core, executor } = partsOf(app.engine);
  expect(await core.approve(id, APPROVER_A)).toMatchObject({ ok: true });
  const halfway = await app.engine.get(id);
  if (!halfway) throw new Error('not filed');
  expect(await core.approve(id, APPROVER_B)).toMatchObject({ ok: true });
  expect((await executor.execute(id))?.state).toBe('sent');
  expect(app.sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
  // Written by hand into the store: the copy before the last approval, naming the claim that sent it
  // as handed back.
  const forged = { ...halfway, handedBack: { round: halfway.round, generation: 0 } };
  await core.repo.store.set(`approval:${id}`, forged);
  const reviewed = await approve(app, id, APPROVER_B);
  expect(refusedInModal(reviewed.submitted)).toBeUndefined();
  await app.engine.idle();
  await app.engine.tick();
  await app.engine.idle();
  const after = await app.engine.get(id);
  expect(after?.state).toBe('approved');
  expect(after?.history.filter((h) => h.action === SENDING_UNCLEAR_ACTION)).toHaveLength(1);
  expect(app.sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
  expect(entries.filter((e) => (e as { requestId?: string }).requestId === id)).toHaveLength(1);
  expect(entries).toContainEqual(
    expect.objectContaining({
      level: 'error',
      requestId: id,
      message: expect.stringContaining('handed back from a claim already calling'),
    }),
  );
});

test('a sweep that finds a hand-back naming a claim already calling alerts a person once and sends nothing twice', async ({
  startApp,
}) => {
  const app = await startApp({ tiers: '0:1' });
  const id = await fileWithdrawal(app, '1234.62');
  const { core, executor } = partsOf(app.engine);
  expect(await core.approve(id, APPROVER_A)).toMatchObject({ ok: true });
  const sent = await executor.execute(id);
  if (sent?.state !== 'sent') throw new Error('not sent');
  await app.engine.idle();
  // Written by hand into the store: the sent request made approved again, naming its claim as handed back.
  const { execution: _claim, outcome: _answer, ...rest } = sent;
  const forged = { ...rest, state: 'approved', handedBack: { round: sent.round, generation: 0 } };
  await core.repo.store.set(`approval:${id}`, forged);
  for (const _ of [1, 2]) {
    await app.engine.tick();
    await app.engine.idle();
  }
  await waitUntil(() => alerts(app, id).length > 0, 'the alert');
  expect(String(alerts(app, id)[0]?.body.text)).toContain('may have gone out');
  expect(alerts(app, id)).toHaveLength(1);
  expect((await app.engine.get(id))?.state).toBe('approved');
  expect(app.sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
});

// A whole withdrawal (filed → approved → executing → sending → sent → completed by its webhook) and a
// freeze and its unfreeze, through the real bot at LOG_LEVEL=info: one info line per step, each with
// the request's id, its kind and who acted, the service's reference once known, and the same request
// id on the service-call and webhook lines. No bank account number or address is written.
import { expect } from 'vitest';
import { botTest as test } from '../../support/bot.js';
import { capturedLog } from '../../support/captured-log.js';
import { commandAnswer } from '../../support/slack-requests.js';
import { APPROVER_A, APPROVER_B, approve, DEST, fileWithdrawal, REQUESTER, waitUntil } from './support.js';

test('writes one info line per step of a withdrawal, the same requestId on its service call and webhook', async ({
  startApp,
}) => {
  const log = capturedLog('info');
  const app = await startApp({ withWebhooks: true, logger: log.logger });
  const id = await fileWithdrawal(app, '2500');
  await approve(app, id, APPROVER_A);
  await waitUntil(async () => (await app.engine.get(id))?.state === 'sent', 'sent');
  await app.sandbox.settleAll();
  await waitUntil(async () => (await app.engine.get(id))?.state === 'completed', 'completed');
  await waitUntil(
    () => log.entries.some((e) => e.message === 'approval request completed'),
    'the completed line',
  );
  const reference = (await app.engine.get(id))?.outcome?.reference;
  expect(reference).toBeTruthy();
  const about = log.entries.filter((e) => e.requestId === id);
  expect(about.map((e) => e.message)).toEqual([
    'approval request filed',
    'approval request approved',
    'approval request executing',
    'sending to the service',
    'approval request sent',
    'webhook about a request',
    'approval request completed',
  ]);
  for (const entry of about) expect(entry).toMatchObject({ level: 'info', requestId: id });
  const step = (message: string) => about.find((e) => e.message === message);
  expect(step('approval request filed')).toMatchObject({
    kind: 'withdraw',
    actor: REQUESTER,
    amount: '2500.00',
  });
  expect(step('approval request approved')).toMatchObject({
    kind: 'withdraw',
    actor: APPROVER_A,
    from: 'pending',
  });
  expect(step('approval request sent')).toMatchObject({ kind: 'withdraw', reference });
  expect(step('webhook about a request')).toMatchObject({ reference, result: 'completed' });
  expect(step('approval request completed')).toMatchObject({ kind: 'withdraw', reference, from: 'sent' });
  expect(log.lines.join('\n')).not.toContain(DEST);
});

test('writes a line for /cngn freeze and for the unfreeze, naming who acted', async ({ startApp }) => {
  const log = capturedLog('info');
  const app = await startApp({ logger: log.logger });
  await commandAnswer(app, 'freeze checking a look-alike address', APPROVER_A);
  await waitUntil(() => log.entries.some((e) => e.message === 'sends frozen'), 'the freeze line');
  expect(log.entries.find((e) => e.message === 'sends frozen')).toMatchObject({
    level: 'info',
    actor: APPROVER_A,
    reason: 'checking a look-alike address',
  });
  await commandAnswer(app, 'unfreeze all clear', APPROVER_A);
  await waitUntil(
    () => log.entries.some((e) => e.message === 'approval request filed' && e.kind === 'unfreeze'),
    'the unfreeze request',
  );
  const unfreeze = log.entries.find((e) => e.kind === 'unfreeze');
  const requestId = String(unfreeze?.requestId);
  await approve(app, requestId, APPROVER_B);
  await waitUntil(() => log.entries.some((e) => e.message === 'sends unfrozen'), 'the unfreeze line');
  expect(log.entries.find((e) => e.message === 'sends unfrozen')).toMatchObject({
    actor: APPROVER_B,
    requestId,
    frozenBy: APPROVER_A,
  });
});

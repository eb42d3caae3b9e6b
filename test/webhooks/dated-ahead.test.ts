// A delivery dated ahead of the bot's clock by less than the replay margin (a service clock some hours
// fast) is news: it is announced when it arrives, on a clock that never moves, and the reconciler,
// which leaves a state dated ahead until the bot's clock passes it, never announces it a second time.
import { expect } from 'vitest';
import type { WebhookEvent } from '../../src/cngn/schemas.js';
import type { IntakeResult } from '../../src/webhooks/index.js';
import { aheadLimitMs, DEFAULT_RETENTION_MS } from '../../src/webhooks/outbox.js';
import { oneTransactionList, postsMentioning, waitUntil, webhookBody } from '../support/webhook-rig.js';
import { webhooksTest as test } from '../support/webhooks.js';

test('a deposit signed just under 12 hours ahead is credited on arrival, and reconciliation does not post it again', async ({
  startRig,
}) => {
  let clock = Date.parse('2026-11-20T10:30:00Z');
  const aheadMs = aheadLimitMs(DEFAULT_RETENTION_MS) - 60_000;
  expect(aheadMs).toBe(12 * 3_600_000 - 60_000);
  const at = new Date(clock + aheadMs).toISOString();
  // The service's list says the same, on its own fast clock.
  const tx = {
    id: 'tx-fast-clock',
    trx_ref: 'REF-11H-AHEAD',
    trx_type: 'fiat_buy',
    status: 'completed',
    amount: '2500.00',
    createdAt: at,
    updatedAt: at,
  };
  const transactions = oneTransactionList(tx);
  const told: string[] = [];
  const results: IntakeResult[] = [];
  const rig = await startRig({
    now: () => clock,
    transactions,
    subscribers: [async (event: WebhookEvent) => void told.push(`${event.event} ${event.data.trx_ref}`)],
    onIntake: (result) => results.push(result),
  });
  const body = webhookBody('deposit.completed', {
    transactionId: tx.id,
    trx_ref: tx.trx_ref,
    amount: tx.amount,
    occurredAt: at,
  });
  const reply = await rig.send({ ...body, timestamp: at });
  expect(reply.status).toBe(200);

  // Announced now, the clock standing still hours before the delivery's own time.
  const post = await rig.fake.waitFor('chat.postMessage', (c) =>
    JSON.stringify(c.body).includes('REF-11H-AHEAD'),
  );
  expect(post.body.text).toContain('Deposit credited');
  expect(JSON.stringify(post.body)).not.toContain('Stale or replayed');
  await rig.webhooks.pipeline.settled();
  expect(told).toEqual(['deposit.completed REF-11H-AHEAD']);
  expect(results).toEqual(['accepted']);
  // Marked delivered right after Slack took it.
  await waitUntil(async () => (await rig.webhooks.placements(['REF-11H-AHEAD']))[0]?.state === 'posted');

  // The reconciler leaves a state dated ahead until the bot's clock passes it; then it is already told.
  expect((await rig.webhooks.reconciler?.runOnce())?.queued).toBe(0);
  clock += aheadMs + 3_600_000;
  expect((await rig.webhooks.reconciler?.runOnce())?.queued).toBe(0);
  // A copy of the delivery is a duplicate.
  expect((await rig.send({ ...body, timestamp: at })).body).toContain('duplicate');
  expect(postsMentioning(rig.fake, 'REF-11H-AHEAD')).toHaveLength(1);
});

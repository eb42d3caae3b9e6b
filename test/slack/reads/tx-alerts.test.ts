// `/cngn tx <ref>` says which alert message carries each event of the transaction: a permalink to the
// message (a digest's included), or its channel and ts when Slack gives no permalink.
import { describe, expect } from 'vitest';
import type { Transaction } from '../../../src/cngn/schemas.js';
import type { SlackCall } from '../../support/fake-slack.js';
import type { Harness } from '../../support/harness.js';
import { harnessTest as test } from '../../support/harness-fixtures.js';
import { commandAnswer } from '../../support/slack-requests.js';
import { postWebhook, webhookBody } from '../../support/webhook-rig.js';

const run = (h: Harness, text: string): Promise<SlackCall> => commandAnswer(h, text, 'UREQ');

const textOf = (call: SlackCall) => JSON.stringify(call.body.blocks ?? call.body.text);

async function aTransaction(h: Harness): Promise<Transaction & { trx_ref: string }> {
  const { data } = await h.bot.client.getTransactions({ page: 1, limit: 50 });
  const tx = data.find((t) => t.trx_ref);
  if (!tx?.trx_ref) throw new Error('the sandbox has no transaction with a reference');
  return tx as Transaction & { trx_ref: string };
}

async function send(h: Harness, body: object): Promise<void> {
  const reply = await postWebhook(`${h.bot.url}/webhooks/cngn`, body, h.config.webhookSecret ?? '');
  expect(reply.status).toBe(200);
}

async function allPosted(h: Harness): Promise<void> {
  const deadline = Date.now() + 15_000;
  while ((await h.bot.webhooks.outbox.pendingCount()) > 0) {
    if (Date.now() > deadline) throw new Error('alerts still waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('/cngn tx and the alerts of a transaction', () => {
  test('links the digest message that carries the event', async ({ harness: h }) => {
    const tx = await aTransaction(h);
    // The channel is busy for a second, so the burst waits and goes out as one digest.
    let busy = true;
    h.slack.on('chat.postMessage', (call) => {
      if (!busy || call.body.channel !== 'CALERTS') return undefined;
      busy = false;
      return { status: 429, headers: { 'retry-after': '1' }, body: { ok: false, error: 'ratelimited' } };
    });
    const others = Array.from({ length: 7 }, (_, i) =>
      webhookBody('deposit.completed', { trx_ref: `REF-TXA-${i}` }),
    );
    await send(h, others[0]!);
    await send(
      h,
      webhookBody('deposit.completed', { trx_ref: tx.trx_ref, transactionId: tx.id, amount: '2500' }),
    );
    for (const body of others.slice(1)) await send(h, body);
    await allPosted(h);
    const digest = h.slack.messages('CALERTS').find((m) => JSON.stringify(m.blocks).includes(tx.trx_ref));
    expect(digest?.text).toContain('Alert digest');
    const answer = textOf(await run(h, `tx ${tx.trx_ref}`));
    const permalink = `https://example.slack.com/archives/CALERTS/p${digest?.ts.replace('.', '')}`;
    expect(answer).toContain(`\`deposit.completed\`: in <${permalink}|the alert digest, part 1>`);
    const asked = h.slack.callsTo('chat.getPermalink').map((c) => [c.body.channel, c.body.message_ts]);
    expect(asked).toEqual([['CALERTS', digest?.ts]]);
  });

  test('names the channel and ts when Slack gives no permalink', async ({ harness: h }) => {
    const tx = await aTransaction(h);
    h.slack.on('chat.getPermalink', () => ({ status: 200, body: { ok: false, error: 'message_not_found' } }));
    await send(h, webhookBody('deposit.completed', { trx_ref: tx.trx_ref, transactionId: tx.id }));
    await allPosted(h);
    const [alert] = h.slack.messages('CALERTS');
    const answer = textOf(await run(h, `tx ${tx.trx_ref}`));
    expect(answer).toContain(
      `\`deposit.completed\`: in the alert in <#CALERTS>, message ts \`${alert?.ts}\``,
    );
  });

  test('answers from the alert when the service has no transaction under the reference', async ({
    harness: h,
  }) => {
    const reference = 'REF-ONLY-IN-ALERTS';
    await send(
      h,
      webhookBody('withdrawal.failed', {
        trx_ref: reference,
        transactionId: 'TX-ALERT-1',
        amount: '2500',
        status: 'failed',
        network: 'bsc',
        reason: 'Refused <!channel> & <https://evil.example|click>',
        occurredAt: '2026-11-23T08:15:00.000Z',
      }),
    );
    await allPosted(h);
    const [alert] = h.slack.messages('CALERTS');
    const answer = textOf(await run(h, `tx ${reference}`));
    expect(answer).toContain('The service has no transaction under this reference.');
    expect(answer).toContain('`withdrawal.failed` · Mon 23 Nov 2026, 09:15 WAT');
    expect(answer).toContain('₦2,500.00');
    expect(answer).toContain('Network bsc');
    expect(answer).toContain('Ref `REF-ONLY-IN-ALERTS` · Tx `TX-ALERT-1`');
    expect(answer).toContain('Reason: Refused &lt;!channel&gt; &amp; &lt;https://evil.example|click&gt;');
    const permalink = `https://example.slack.com/archives/CALERTS/p${alert?.ts.replace('.', '')}`;
    expect(answer).toContain(`Alert: in <${permalink}|the alert>`);
    expect(answer).not.toContain('Transaction not found');
  });

  test('answers from the alert when the service cannot be asked, and says why', async ({ harness: h }) => {
    const tx = await aTransaction(h);
    await send(
      h,
      webhookBody('deposit.completed', { trx_ref: tx.trx_ref, amount: '700', status: 'completed' }),
    );
    await allPosted(h);
    h.sandbox.failNext('GET', `/v1/api/transactions/${tx.trx_ref}`, 503, 10);
    const answer = textOf(await run(h, `tx ${tx.trx_ref}`));
    expect(answer).toContain(
      'The service could not answer for it just now: The service had an internal error.',
    );
    expect(answer).toContain('₦700.00');
    expect(answer).toMatch(/Alert: in <https:\/\/example\.slack\.com\/archives\/CALERTS\/p\d+\|the alert>/);
  });

  test('marks an alert of a delivery signed long ago as a possible replay, not news', async ({
    harness: h,
  }) => {
    const reference = 'REF-REPLAYED-1';
    const long = new Date(Date.now() - 40 * 86_400_000).toISOString();
    await send(h, {
      ...webhookBody('deposit.completed', { trx_ref: reference, amount: '2500', occurredAt: long }),
      timestamp: long,
    });
    await allPosted(h);
    const answer = textOf(await run(h, `tx ${reference}`));
    expect(answer).toContain(
      ':warning: possible replay of `deposit.completed` (signed longer ago than deliveries are remembered)',
    );
  });

  test('still says "not found" for a reference neither the service nor any alert knows', async ({
    harness: h,
  }) => {
    const answer = textOf(await run(h, 'tx REF-NOBODY-KNOWS'));
    expect(answer).toContain('Transaction not found: check the reference.');
  });
});

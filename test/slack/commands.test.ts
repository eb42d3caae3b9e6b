import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SlackCall } from '../support/fake-slack.js';
import { type Harness, startHarness } from '../support/harness.js';
import { blockAction, postSigned, signSlackBody, slashCommand } from '../support/slack-requests.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.stop();
});

let counter = 0;
/** Run `/cngn <text>` and wait for its private answer on the response_url. */
async function run(text: string, userId = 'UREQ'): Promise<SlackCall> {
  const name = `r${++counter}`;
  const ack = await slashCommand(h.sender, { text, userId, responseUrl: h.slack.responseUrl(name) });
  expect(ack.status).toBe(200);
  return h.slack.waitFor(`response_url:${name}`);
}

const textOf = (call: SlackCall) => JSON.stringify(call.body.blocks ?? call.body.text);

describe('Slack request verification', () => {
  it('refuses a forged signature with 401', async () => {
    const response = await slashCommand(h.sender, {
      text: 'balance',
      responseUrl: h.slack.responseUrl('forged'),
      signature: 'v0=deadbeef',
    });
    expect(response.status).toBe(401);
  });

  it('refuses a request older than five minutes with 401', async () => {
    const old = Math.floor(Date.now() / 1000) - 6 * 60;
    const response = await slashCommand(h.sender, {
      text: 'balance',
      responseUrl: h.slack.responseUrl('old'),
      timestamp: old,
    });
    expect(response.status).toBe(401);
  });

  it('refuses a body that does not match its signature', async () => {
    const headers = signSlackBody(h.sender.signingSecret, 'text=balance');
    const response = await postSigned(h.sender, 'text=withdraw', { signature: headers['x-slack-signature'] });
    expect(response.status).toBe(401);
  });

  it('answers /healthz', async () => {
    const response = await fetch(`${h.bot.url}/healthz`);
    expect(response.status).toBe(200);
  });
});

describe('/cngn read commands', () => {
  it('lists the commands for help, for nothing, and suggests the closest for a typo', async () => {
    expect(textOf(await run(''))).toContain('/cngn balance');
    expect(textOf(await run('help'))).toContain('/cngn withdraw');
    const typo = await run('balanse');
    expect(textOf(typo)).toContain('Did you mean `/cngn balance`?');
  });

  it('shows the balance with its time, privately, marked SANDBOX', async () => {
    const answer = await run('balance');
    expect(answer.body.response_type).toBe('ephemeral');
    const text = textOf(answer);
    expect(text).toContain('₦1,250,000.00');
    expect(text).toMatch(/as of \w{3} \d{1,2} \w{3} \d{4}, \d{2}:\d{2} WAT/);
    expect(text).toContain('SANDBOX');
  });

  it('lists networks with their codes and which are disabled', async () => {
    const text = textOf(await run('networks'));
    expect(text).toContain('Base');
    expect(text).toMatch(/disabled/);
  });

  it('filters banks by name', async () => {
    const text = textOf(await run('banks zenith'));
    expect(text).toContain('Zenith');
    expect(text).toContain('057');
    expect(text).not.toContain('Access Bank');
  });

  it('shows the dedicated virtual accounts and the whitelist with network names', async () => {
    expect(textOf(await run('accounts'))).toMatch(/\d{10}/);
    const whitelist = textOf(await run('whitelist'));
    expect(whitelist).toMatch(/0x[0-9a-fA-F]{40}/);
    expect(whitelist).not.toContain('Unknown network');
  });

  it('pages transactions in place with Next and Previous', async () => {
    const first = await run('tx');
    expect(textOf(first)).toContain('page 1');
    const next = (
      first.body.blocks as Array<{ type: string; elements?: Array<{ action_id: string; value: string }> }>
    )
      .find((b) => b.type === 'actions')
      ?.elements?.find((e) => e.action_id === 'tx.page.next');
    expect(next?.value).toBe('2');
    const url = h.slack.responseUrl('paging');
    await blockAction(h.sender, { actionId: 'tx.page.next', value: '2', responseUrl: url });
    const second = await h.slack.waitFor('response_url:paging');
    expect(second.body.replace_original).toBe(true);
    expect(textOf(second)).toContain('page 2');
    expect(textOf(second)).toContain('tx.page.previous');
  });

  it('shows one transaction in full, and says plainly when it does not exist', async () => {
    const { data } = await h.bot.client.getTransactions({ page: 1, limit: 5 });
    const ref = data[0]?.trx_ref ?? '';
    const text = textOf(await run(`tx ${ref}`));
    expect(text).toContain(ref);
    for (const label of ['Status', 'Type', 'Amount', 'Network', 'Receiver']) expect(text).toContain(label);
    expect(textOf(await run('tx NO-SUCH-REF'))).toContain('Transaction not found');
  });

  it('acknowledges before the service answers (the ack does not wait for a held balance call)', async () => {
    const fresh = await startHarness();
    try {
      const held = fresh.sandbox.hold('GET', '/v1/api/balance');
      const url = fresh.slack.responseUrl('held');
      const ack = await slashCommand(fresh.sender, { text: 'balance', responseUrl: url });
      await held.arrived; // the service call is in flight and being held
      expect(ack.status).toBe(200);
      expect(fresh.slack.callsTo('response_url:held')).toHaveLength(0);
      held.release();
      const answer = await fresh.slack.waitFor('response_url:held');
      expect(textOf(answer)).toContain('₦1,250,000.00');
    } finally {
      await fresh.stop();
    }
  });

  it('on shutdown, finishes an acked command before stopping', async () => {
    const fresh = await startHarness();
    try {
      const held = fresh.sandbox.hold('GET', '/v1/api/balance');
      const url = fresh.slack.responseUrl('draining');
      const ack = await slashCommand(fresh.sender, { text: 'balance', responseUrl: url });
      expect(ack.status).toBe(200);
      await held.arrived;
      const stopped = fresh.bot.stop();
      held.release();
      await stopped;
      // Stop resolved only after the answer went out: it is already recorded, no waiting needed.
      const answers = fresh.slack.callsTo('response_url:draining');
      expect(answers).toHaveLength(1);
      expect(textOf(answers[0] as SlackCall)).toContain('₦1,250,000.00');
    } finally {
      await fresh.stop();
    }
  });

  it('tells the user when to try again when the request budget is spent, without tripping the key', async () => {
    const tight = await startHarness({
      sandboxOptions: { rateLimit: { limit: 2, windowMs: 60_000, blockMs: 60_000 } },
      config: { rateLimit: { limit: 2, windowSeconds: 60 } },
    });
    try {
      const answers: string[] = [];
      for (const [i, text] of ['tx', 'tx', 'tx'].entries()) {
        const url = tight.slack.responseUrl(`b${i}`);
        await slashCommand(tight.sender, { text, responseUrl: url });
        answers.push(textOf(await tight.slack.waitFor(`response_url:b${i}`)));
      }
      expect(answers[2]).toMatch(/busy — try again in \d+ s/);
      expect(tight.sandbox.requests.filter((r) => r.status === 429)).toHaveLength(0);
    } finally {
      await tight.stop();
    }
  });

  it('names the missing permission in plain words', async () => {
    const limited = await startHarness({ sandboxOptions: { permissions: { fiatDeposit: false } } });
    try {
      const url = limited.slack.responseUrl('perm');
      await slashCommand(limited.sender, { text: 'accounts', responseUrl: url });
      const answer = await limited.slack.waitFor('response_url:perm');
      expect(textOf(answer)).toContain('Fiat Deposit');
    } finally {
      await limited.stop();
    }
  });
});

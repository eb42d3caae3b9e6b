import { describe, expect } from 'vitest';
import { shortHash } from '../../../src/format/display.js';
import { SUBCOMMANDS } from '../../../src/slack/commands/registry.js';
import { unwrapLinks } from '../../../src/slack/runtime/links.js';
import { capturedLog } from '../../support/captured-log.js';
import type { SlackCall } from '../../support/fake-slack.js';
import type { Harness } from '../../support/harness.js';
import { harnessTest as test } from '../../support/harness-fixtures.js';
import {
  blockAction,
  commandAnswer,
  postSigned,
  signSlackBody,
  slashCommand,
} from '../../support/slack-requests.js';

/** Run `/cngn <text>` and wait for its private answer on the response_url. */
const run = (h: Harness, text: string, userId = 'UREQ'): Promise<SlackCall> => commandAnswer(h, text, userId);

const textOf = (call: SlackCall) => JSON.stringify(call.body.blocks ?? call.body.text);
/** How many times an answer names its environment. */
const markers = (call: SlackCall) => (textOf(call).match(/SANDBOX/g) ?? []).length;

describe('Slack request verification', () => {
  test('refuses a forged signature with 401', async ({ h }) => {
    const response = await slashCommand(h.sender, {
      text: 'balance',
      responseUrl: h.slack.responseUrl('forged'),
      signature: 'v0=deadbeef',
    });
    expect(response.status).toBe(401);
  });

  test('refuses a request older than five minutes with 401', async ({ h }) => {
    const old = Math.floor(Date.now() / 1000) - 6 * 60;
    const response = await slashCommand(h.sender, {
      text: 'balance',
      responseUrl: h.slack.responseUrl('old'),
      timestamp: old,
    });
    expect(response.status).toBe(401);
  });

  test('refuses a body that does not match its signature', async ({ h }) => {
    const headers = signSlackBody(h.sender.signingSecret, 'text=balance');
    const response = await postSigned(h.sender, 'text=withdraw', { signature: headers['x-slack-signature'] });
    expect(response.status).toBe(401);
  });

  test('answers /healthz', async ({ h }) => {
    const response = await fetch(`${h.bot.adminUrl}/healthz`);
    expect(response.status).toBe(200);
  });
});

describe('/cngn read commands', () => {
  test('gives every subcommand a one-line example in the help, the deposit e-mail included', async ({
    h,
  }) => {
    const help = await run(h, 'help');
    // The list may go on over several sections (each holds at most 3000 characters).
    const texts = (help.body.blocks as Array<{ type: string; text?: { text: string } }>)
      .filter((b) => b.type === 'section')
      .map((b) => b.text?.text ?? '');
    const first = texts.findIndex((t) => t.startsWith('*cNGN treasury commands*'));
    const section = texts.slice(first).join('\n');
    expect(texts.slice(first).every((t) => t.length <= 3000 && !t.endsWith('…'))).toBe(true);
    const lines = section.split('\n').slice(1);
    expect(lines).toHaveLength(SUBCOMMANDS.length);
    for (const [i, line] of lines.entries()) {
      expect(line).toMatch(
        new RegExp(`^\`/cngn ${SUBCOMMANDS[i]?.name}.* · e\\.g\\. \`/cngn ${SUBCOMMANDS[i]?.name}[^\`]*\`$`),
      );
    }
    expect(section).toContain('`/cngn deposit [amount] [e-mail]`');
    expect(section).toContain('`/cngn deposit 5000 payer@example.com`');
    expect(section?.endsWith('…')).toBe(false);
  });

  test('lists the commands for help, for nothing, and suggests the closest for a typo', async ({ h }) => {
    expect(textOf(await run(h, ''))).toContain('/cngn balance');
    expect(textOf(await run(h, 'help'))).toContain('/cngn withdraw');
    const typo = await run(h, 'balanse');
    expect(textOf(typo)).toContain('Did you mean `/cngn balance`?');
  });

  test('shows the balance with the time it was read today, privately, marked SANDBOX once', async ({ h }) => {
    const answer = await run(h, 'balance');
    expect(answer.body.response_type).toBe('ephemeral');
    const text = textOf(answer);
    expect(text).toContain('₦1,250,000.00');
    expect(text).toMatch(/as of \d{2}:\d{2} WAT/);
    expect(markers(answer)).toBe(1);
  });

  test('marks every answer exactly once, approval lists included', async ({ h }) => {
    for (const command of [
      'pending',
      'audit',
      'audit verify',
      'deadletters',
      'networks',
      'help',
      'nonsense',
    ]) {
      expect(markers(await run(h, command)), command).toBe(1);
    }
  });

  test('lists networks with their codes and which are disabled', async ({ h }) => {
    const text = textOf(await run(h, 'networks'));
    expect(text).toContain('Base');
    expect(text).toMatch(/disabled/);
  });

  test('filters banks by name', async ({ h }) => {
    const text = textOf(await run(h, 'banks zenith'));
    expect(text).toContain('Zenith');
    expect(text).toContain('057');
    expect(text).not.toContain('Access Bank');
  });

  test('shows the dedicated virtual accounts with number, bank and name', async ({ h }) => {
    const [account] = await h.bot.client.getDedicatedAccounts();
    const text = textOf(await run(h, 'accounts'));
    expect(text).toContain(account?.accountNumber);
    expect(text).toContain(account?.bankName);
    expect(text).toContain(account?.accountName);
  });

  test('shows the whitelist with network names, each address shortened with an explorer link and whole to copy', async ({
    h,
  }) => {
    const [entry] = await h.bot.client.getWhitelisted({ includeNetwork: true });
    const address = entry?.publicKey ?? '';
    const text = textOf(await run(h, 'whitelist'));
    expect(text).not.toContain('Unknown network');
    expect(text).toContain(`*${entry?.network?.name}*`);
    expect(text).toMatch(
      new RegExp(`<https://[^|>]+/address/${address}\\|${address.slice(0, 6)}…${address.slice(-4)}>`),
    );
    expect(text).toContain(`\`${address}\``);
  });

  test('pages transactions in place with Next and Previous', async ({ h }) => {
    const first = await run(h, 'tx');
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

  test('shows one transaction in full: network by name, both hashes linked, receiver and explorer link', async ({
    h,
  }) => {
    const { data } = await h.bot.client.getTransactions({ page: 1, limit: 50 });
    const tx = data.find(
      (t) => t.trx_type === 'swap' && t.base_trx_hash && t.extl_trx_hash && t.explorer_link,
    );
    if (!tx?.base_trx_hash || !tx.extl_trx_hash || !tx.explorer_link)
      throw new Error('no bridge with hashes');
    const network = (await h.bot.client.getNetworks()).find((n) => n.short_name === tx.network);
    const receiver = (tx.receiver as { address: string }).address;
    const answer = await run(h, `tx ${tx.trx_ref}`);
    const text = textOf(answer);
    expect(text).toContain(tx.trx_ref);
    for (const label of [
      'Status',
      'Type',
      'Amount',
      'Network',
      'Receiver',
      'Origin hash',
      'Destination hash',
    ])
      expect(text).toContain(label);
    expect(text).toContain(`*Network*\\n${network?.name}`);
    expect(network?.name).not.toBe(tx.network);
    expect(text).toContain(`<${tx.explorer_link}|${shortHash(tx.base_trx_hash)}>`);
    expect(text).toMatch(
      new RegExp(`<https://[^|>]+/tx/${tx.extl_trx_hash}\\|${shortHash(tx.extl_trx_hash)}>`),
    );
    expect(text).toContain(`<${tx.explorer_link}|Open in block explorer>`);
    expect(text).toMatch(new RegExp(`<https://[^|>]+/address/${receiver}\\|${shortHash(receiver)}>`));
    expect(text).toContain(`Receiver address \`${receiver}\``);
    expect(markers(answer)).toBe(1);
  });

  test('says plainly when a transaction does not exist', async ({ h }) => {
    expect(textOf(await run(h, 'tx NO-SUCH-REF'))).toContain('Transaction not found');
  });

  test('acknowledges before the service answers (the ack does not wait for a held balance call)', async ({
    startHarness,
  }) => {
    const fresh = await startHarness();
    const held = fresh.sandbox.hold('GET', '/v1/api/balance');
    const url = fresh.slack.responseUrl('held');
    const ack = await slashCommand(fresh.sender, { text: 'balance', responseUrl: url });
    await held.arrived; // the service call is in flight and being held
    expect(ack.status).toBe(200);
    expect(fresh.slack.callsTo('response_url:held')).toHaveLength(0);
    held.release();
    const answer = await fresh.slack.waitFor('response_url:held');
    expect(textOf(answer)).toContain('₦1,250,000.00');
  });

  test('acknowledges Next before the service answers the held page', async ({ startHarness }) => {
    const fresh = await startHarness();
    const held = fresh.sandbox.hold('GET', '/v1/api/transactions');
    const url = fresh.slack.responseUrl('held-page');
    const ack = await blockAction(fresh.sender, { actionId: 'tx.page.next', value: '2', responseUrl: url });
    expect(ack.status).toBe(200);
    await held.arrived; // acked, and the page read is still in flight
    expect(fresh.slack.callsTo('response_url:held-page')).toHaveLength(0);
    held.release();
    const answer = await fresh.slack.waitFor('response_url:held-page');
    expect(answer.body.replace_original).toBe(true);
    expect(textOf(answer)).toContain('page 2');
  });

  test('acknowledges a Next click that came without a response_url and says so in the log (found by fuzzing)', async ({
    startHarness,
  }) => {
    const { logger, lines } = capturedLog('warn');
    const fresh = await startHarness({ logger });
    const ack = await blockAction(fresh.sender, { actionId: 'tx.page.next', value: '2' });
    expect(ack.status).toBe(200);
    await fresh.bot.stop(); // lets the work after the ack finish
    expect(lines.join('\n')).toContain('a transaction page click came without a response_url');
    expect(lines.join('\n')).not.toContain('unhandled error in a Slack listener');
  });

  test('on shutdown, finishes an acked command before stopping', async ({ startHarness }) => {
    const fresh = await startHarness();
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
  });

  test('tells the user when to try again when the request budget is spent, without tripping the key', async ({
    startHarness,
  }) => {
    const tight = await startHarness({
      sandboxOptions: { rateLimit: { limit: 2, windowMs: 60_000, blockMs: 60_000 } },
      config: { rateLimit: { limit: 2, windowSeconds: 60 } },
    });
    const answers: string[] = [];
    for (const [i, text] of ['tx', 'tx', 'tx'].entries()) {
      const url = tight.slack.responseUrl(`b${i}`);
      await slashCommand(tight.sender, { text, responseUrl: url });
      answers.push(textOf(await tight.slack.waitFor(`response_url:b${i}`)));
    }
    expect(answers[2]).toMatch(/busy — try again in \d+ s/);
    expect(tight.sandbox.requests.filter((r) => r.status === 429)).toHaveLength(0);
  });

  test('names the missing permission in plain words', async ({ startHarness }) => {
    const limited = await startHarness({ sandboxOptions: { permissions: { fiatDeposit: false } } });
    const url = limited.slack.responseUrl('perm');
    await slashCommand(limited.sender, { text: 'accounts', responseUrl: url });
    const answer = await limited.slack.waitFor('response_url:perm');
    expect(textOf(answer)).toContain('Fiat Deposit');
  });
});

describe('the command text as Slack escapes it', () => {
  test.each([
    ['resolve AR-1 failed A &amp; B', 'resolve AR-1 failed A & B'],
    ['note &lt;b&gt; &amp;lt;', 'note <b> &lt;'],
    ['see <http://example.com/a?x=1&amp;y=2|example.com/a?x=1&amp;y=2>', 'see example.com/a?x=1&y=2'],
    ['see <https://example.com/a>', 'see https://example.com/a'],
    ['deposit 5000 <mailto:ada@firm.ng|ada@firm.ng>', 'deposit 5000 ada@firm.ng'],
    ['delegate <@U123|bola> until 3d', 'delegate <@U123|bola> until 3d'],
    ['deadletters repost all <#C123|ops>', 'deadletters repost all <#C123|ops>'],
  ])('reads %s as typed', (sent, typed) => {
    expect(unwrapLinks(sent)).toBe(typed);
  });
});

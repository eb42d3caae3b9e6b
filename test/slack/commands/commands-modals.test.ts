// Forms whose data comes from the service open at once (Slack's trigger_id lives 3 s) and are
// filled in place when the data arrives. The fake Slack refuses a trigger older than 3 s, as Slack does.
import { describe, expect } from 'vitest';
import type { Harness } from '../../support/harness.js';
import { harnessTest as test } from '../../support/harness-fixtures.js';
import { newTriggerId, slashCommand } from '../../support/slack-requests.js';

const DEST = '0x52908400098527886E0F7030069857D2E4169EE7';

interface View {
  callback_id?: string;
  blocks: Array<{
    block_id?: string;
    element?: { initial_value?: string; initial_option?: { value: string } };
  }>;
}

const initialOf = (view: View, id: string) => {
  const element = view.blocks.find((b) => b.block_id === id)?.element;
  return element?.initial_value ?? element?.initial_option?.value;
};

async function networkId(harness: Harness, short: string): Promise<string> {
  const networks = await harness.bot.client.getNetworks();
  return networks.find((n) => n.short_name === short)?.id ?? '';
}

describe('forms open before the service answers', () => {
  test('opens the quote form while the network list is held, then fills it in place', async ({
    startHarness,
  }) => {
    const h = await startHarness();
    const held = h.sandbox.hold('GET', '/v1/api/networks');
    const ack = await slashCommand(h.sender, {
      text: `quote 1500 base bsc ${DEST}`,
      responseUrl: h.slack.responseUrl('quote'),
    });
    expect(ack.status).toBe(200);
    await held.arrived;
    // The service has not answered yet, and the modal is already open: a loading view, marked.
    const opened = h.slack.callsTo('views.open');
    expect(opened).toHaveLength(1);
    expect(opened[0]?.error).toBeUndefined();
    const loading = JSON.stringify(opened[0]?.body.view);
    expect(loading).toContain('Loading');
    expect(loading).toContain('SANDBOX');
    expect(h.slack.callsTo('views.update')).toHaveLength(0);

    held.release();
    const update = await h.slack.waitFor('views.update');
    expect(update.body.view_id).toMatch(/^V\d+$/);
    expect(update.body.hash).toMatch(/^h\d+$/);
    const view = update.body.view as View;
    expect(view.callback_id).toBe('quote.submit');
    expect(initialOf(view, 'quote.amount')).toBe('1500');
    expect(initialOf(view, 'quote.origin')).toBe(await networkId(h, 'base'));
    expect(initialOf(view, 'quote.destination')).toBe(await networkId(h, 'bsc'));
    expect(initialOf(view, 'quote.address')).toBe(DEST);
  });

  test('opens the withdraw form while the network list is held, then fills it in place', async ({
    startHarness,
  }) => {
    const h = await startHarness();
    const held = h.sandbox.hold('GET', '/v1/api/networks');
    await slashCommand(h.sender, {
      text: `withdraw 1500 base ${DEST}`,
      responseUrl: h.slack.responseUrl('withdraw'),
    });
    await held.arrived;
    expect(h.slack.callsTo('views.open')).toHaveLength(1);
    expect(JSON.stringify(h.slack.callsTo('views.open')[0]?.body.view)).toContain('SANDBOX');
    expect(h.slack.callsTo('views.update')).toHaveLength(0);
    held.release();
    const view = (await h.slack.waitFor('views.update')).body.view as View;
    expect(view.callback_id).toBe('withdraw.submit');
    expect(initialOf(view, 'withdraw.amount')).toBe('1500');
    expect(initialOf(view, 'withdraw.network')).toBe(await networkId(h, 'base'));
  });

  test('shows the service error in plain words inside the opened form', async ({ startHarness }) => {
    const h = await startHarness();
    h.sandbox.failNext('GET', '/v1/api/networks', 403, 1, 'IP address not whitelisted');
    await slashCommand(h.sender, { text: 'bridge 1500', responseUrl: h.slack.responseUrl('bridge') });
    const update = await h.slack.waitFor('views.update');
    const text = JSON.stringify(update.body.view);
    expect(text).toContain('outgoing IP to the allowlist');
    expect(text).toContain('SANDBOX');
    expect(text).not.toContain('bridge.submit');
  });

  test('says privately when Slack no longer accepts the trigger, instead of failing silently', async ({
    startHarness,
  }) => {
    const h = await startHarness();
    for (const [name, text] of [
      ['stale-deposit', 'deposit 5000'],
      ['stale-quote', 'quote 1500'],
      ['stale-settlement', 'settlement'],
    ] as const) {
      // Each command has a trigger of its own, as Slack gives; each issued 4 s ago.
      const stale = newTriggerId(Date.now() - 4_000);
      await slashCommand(h.sender, { text, triggerId: stale, responseUrl: h.slack.responseUrl(name) });
      const answer = await h.slack.waitFor(`response_url:${name}`);
      expect(JSON.stringify(answer.body.blocks)).toContain('did not open the form in time');
    }
    const refused = h.slack.callsTo('views.open');
    expect(refused).toHaveLength(3);
    for (const call of refused) expect(call.error).toBe('expired_trigger_id');
    expect(h.slack.callsTo('views.update')).toHaveLength(0);
  });
});

// Answers make way for acks, end to end: while a Slack request is being acked, the answer to one
// already acked waits, and goes out once that request has been answered too. Before, the answer started
// on the next turn of the loop, whatever was being acked, and a burst of commands had its acks queued
// behind the answers to the first ones.
import { describe, expect } from 'vitest';
import { harnessTest as test } from '../../support/harness-fixtures.js';
import { optionsRequest, slashCommand } from '../../support/slack-requests.js';

describe('acks before answers', () => {
  test('holds the answer to an acked command while another request is still being acked', async ({ h }) => {
    // The bank picker answers with the bank list: held at the service, its ack waits.
    const banks = h.sandbox.hold('GET', '/v1/api/banks');
    const picker = optionsRequest(h.sender, { actionId: 'redeem.bank', value: 'gua' });
    await banks.arrived;
    const events: string[] = [];
    const answered = h.slack.waitFor('response_url:help').then(() => events.push('help answered'));
    const ack = await slashCommand(h.sender, { text: 'help', responseUrl: h.slack.responseUrl('help') });
    expect(ack.status).toBe(200);
    // Long enough for an answer that did not wait to arrive many times over (it takes milliseconds),
    // well within the most an answer waits for acks (2 s).
    await new Promise((r) => setTimeout(r, 300));
    events.push('bank list released');
    banks.release();
    const options = await picker;
    expect(options.status).toBe(200);
    expect(JSON.stringify(options.json())).toContain('Guaranty');
    await answered;
    expect(events).toEqual(['bank list released', 'help answered']);
  });
});

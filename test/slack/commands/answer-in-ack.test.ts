// `/cngn balance` answered in the ack itself when the store holds the balance fresh: no post to the
// response_url, and a repeat of that delivery answered with the same message. A balance that would need
// the service, or a store that does not answer, is acked empty at once and answered by response_url.
import { describe, expect } from 'vitest';
import { createStore } from '../../../src/store/index.js';
import type { SlackCall } from '../../support/fake-slack.js';
import { harnessTest as test } from '../../support/harness-fixtures.js';
import { ackAnswer, postSigned, slashCommand, slashCommandBody } from '../../support/slack-requests.js';
import { StoreControls } from '../../support/store-controls.js';

const textOf = (body: Record<string, unknown> | undefined) => JSON.stringify(body?.blocks ?? body?.text);
const markers = (body: Record<string, unknown> | undefined) => (textOf(body).match(/SANDBOX/g) ?? []).length;
const balanceCalls = (requests: ReadonlyArray<{ method: string; path: string }>) =>
  requests.filter((r) => r.method === 'GET' && r.path.startsWith('/v1/api/balance')).length;

describe('/cngn balance in the ack', () => {
  test('answers a balance the store holds fresh in the ack, privately, marked once, with no response_url post', async ({
    harness,
  }) => {
    const cold = await slashCommand(harness.sender, {
      text: 'balance',
      responseUrl: harness.slack.responseUrl('cold'),
    });
    expect(ackAnswer(cold)).toBeUndefined();
    await harness.slack.waitFor('response_url:cold');

    const body = slashCommandBody({ text: 'balance', responseUrl: harness.slack.responseUrl('warm') });
    const warm = ackAnswer(await postSigned(harness.sender, body));
    expect(warm?.response_type).toBe('ephemeral');
    expect(textOf(warm)).toContain('₦1,250,000.00');
    expect(markers(warm)).toBe(1);

    // The same delivery again (a repeat): answered with what the ack carried, and nothing read again.
    const repeat = await postSigned(harness.sender, body);
    expect(ackAnswer(repeat)).toBeUndefined();
    const repeated = await harness.slack.waitFor('response_url:warm');
    expect(textOf(repeated.body)).toBe(textOf(warm));
    // Only the repeat posted: the ack carried the first answer.
    expect(harness.slack.callsTo('response_url:warm')).toHaveLength(1);
    expect(balanceCalls(harness.sandbox.requests)).toBe(1);
  });

  test('acks a balance the store does not answer for at once, empty, and answers by response_url', async ({
    startHarness,
    defer,
  }) => {
    const controls = new StoreControls();
    const store = await createStore('memory://');
    defer(() => store.close());
    const fresh = await startHarness({ store: controls.wrap(store) });
    await slashCommand(fresh.sender, { text: 'balance', responseUrl: fresh.slack.responseUrl('first') });
    await fresh.slack.waitFor('response_url:first'); // the store now holds the balance fresh

    const release = controls.hangReads('cngn:cache:');
    const ack = await slashCommand(fresh.sender, {
      text: 'balance',
      responseUrl: fresh.slack.responseUrl('hung'),
    });
    expect(ack.status).toBe(200);
    expect(ackAnswer(ack)).toBeUndefined();
    release();
    const answer: SlackCall = await fresh.slack.waitFor('response_url:hung');
    expect(textOf(answer.body)).toContain('₦1,250,000.00');
    expect(fresh.slack.callsTo('response_url:hung')).toHaveLength(1);
  });

  test('answers other reads after the ack, as before', async ({ harness }) => {
    for (const name of ['networks-1', 'networks-2']) {
      const ack = await slashCommand(harness.sender, {
        text: 'networks',
        responseUrl: harness.slack.responseUrl(name),
      });
      expect(ackAnswer(ack)).toBeUndefined();
      await harness.slack.waitFor(`response_url:${name}`);
    }
  });
});

// The access gate over Socket Mode, on the whole bot: a person's interaction that passes the envelope
// check but that the gate cannot read (a click whose container's type is not text) is acked and
// refused, never handed on unjudged to the listener behind it; the same click, readable, is judged and
// reaches it. A form it refuses gets the answer it gets over HTTP: the error on its first field, the
// form kept open, nothing filed.
import { describe, expect } from 'vitest';
import { botTest } from '../../support/bot.js';
import { capturedLog } from '../../support/captured-log.js';
import { FakeSocketMode } from '../../support/fake-socket-mode.js';
import {
  blockActionPayload,
  newTriggerId,
  viewSubmissionPayload,
  withdrawValues,
} from '../../support/slack-requests.js';
import {
  APPROVALS_CHANNEL,
  APPROVER_A,
  type ApprovalApp,
  DEST,
  OUTSIDER,
  REQUESTER,
} from '../approvals/support.js';

const test = botTest.extend('socket', async ({ defer }) => {
  const socket = await FakeSocketMode.start();
  defer(() => socket.stop());
  return socket;
});

/** Files a withdrawal over the socket as a person does (the form's submission); its id, once posted. */
async function fileOverSocket(app: ApprovalApp, socket: FakeSocketMode, amount: string): Promise<string> {
  socket.sendInteraction('env-file', await withdrawalForm(app, REQUESTER, amount));
  const posted = await app.slack.waitFor(
    'chat.postMessage',
    (c) =>
      c.body.channel === APPROVALS_CHANNEL && !c.body.thread_ts && /AR-[0-9A-F]+/.test(String(c.body.text)),
  );
  return /AR-[0-9A-F]+/.exec(String(posted.body.text))?.[0] ?? '';
}

/** The withdraw form as `user` submits it. */
async function withdrawalForm(
  app: ApprovalApp,
  user: string,
  amount: string,
): Promise<Record<string, unknown>> {
  const networks = (await app.client.getNetworks()).filter((n) => !n.isDisabled);
  const network = networks[0];
  if (!network) throw new Error('no network');
  return viewSubmissionPayload({
    callbackId: 'withdraw.submit',
    userId: user,
    privateMetadata: JSON.stringify({ networks: networks.map((n) => n.id) }),
    values: withdrawValues({ amount, network, address: DEST }),
  });
}

/** An approver's click on Approve under the request's message in the approvals channel. */
function approveClick(id: string, triggerId: string): Record<string, unknown> {
  return blockActionPayload({
    actionId: 'approval.approve',
    value: id,
    userId: APPROVER_A,
    channelId: APPROVALS_CHANNEL,
    messageTs: '1.0',
    triggerId,
  });
}

describe('the access gate over Socket Mode', () => {
  test('refuses a click it cannot read: acked, logged, and Approve never runs; the readable click then opens the review', async ({
    startApp,
    socket,
  }) => {
    const { logger, entries } = capturedLog('warn');
    const app = await startApp({ socketMode: socket, logger });
    const id = await fileOverSocket(app, socket, '1500');

    const unreadable = newTriggerId();
    // The envelope check takes it (a container is read for its channel and message only); the gate
    // reads a container's type as text or nothing, so this one is a click it cannot judge.
    socket.sendInteraction('env-unreadable', {
      ...approveClick(id, unreadable),
      container: { type: 7, channel_id: APPROVALS_CHANNEL, message_ts: '1.0' },
    });
    expect((await socket.waitFor((m) => m.envelope_id === 'env-unreadable')).payload).toEqual({});
    expect(entries).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        message: 'the access gate refused an interaction it cannot read',
        why: 'unreadable',
      }),
    );
    expect(entries.map((e) => e.message)).not.toContain('refused a Slack request over Socket Mode');

    // The bot still answers: the same click, readable, is judged and opens the review modal.
    const readable = newTriggerId();
    socket.sendInteraction('env-readable', approveClick(id, readable));
    await app.slack.waitFor('views.open', (c) => c.body.trigger_id === readable);
    await socket.waitFor((m) => m.envelope_id === 'env-readable');

    // Nothing the unreadable click could have led to: no modal, no answer, no approval.
    const calls = app.slack.calls.filter((c) => JSON.stringify(c.body).includes(unreadable));
    expect(calls).toEqual([]);
    expect(app.slack.callsTo('views.open').map((c) => c.body.trigger_id)).toEqual([readable]);
    expect(app.slack.callsTo('chat.postEphemeral')).toEqual([]);
    const request = await app.engine.get(id);
    expect(request?.state).toBe('pending');
    expect(request?.approvals).toEqual([]);
    expect(app.sandbox.count('POST', '/v1/api/withdraw')).toBe(0);
  });

  test('refuses a form from another workspace on its first field, as over HTTP: the form stays open, nothing filed', async ({
    startApp,
    socket,
  }) => {
    const app = await startApp({ socketMode: socket });
    const form = await withdrawalForm(app, OUTSIDER, '1500');
    const fromElsewhere = { ...form, team: { id: 'TOTHER' }, user: { id: OUTSIDER, team_id: 'TOTHER' } };
    socket.sendInteraction('env-refused-form', fromElsewhere);
    const ack = await socket.waitFor((m) => m.envelope_id === 'env-refused-form');
    expect(ack.payload).toEqual({
      response_action: 'errors',
      errors: {
        'withdraw.amount': expect.stringMatching(/^Not allowed: Only members of .*Nothing was filed\.$/),
      },
    });
    expect(await app.engine.openRequests()).toEqual([]);
    expect(app.slack.callsTo('chat.postMessage')).toEqual([]);
  });
});

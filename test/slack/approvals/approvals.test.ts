// The maker-checker rules as people meet them in Slack: a real Bolt app over HTTP, the real client
// against the embedded sandbox, the fake Slack Web API recording every call.
import { describe, expect } from 'vitest';
import { botTest as test } from '../../support/bot.js';
import { approveTogether, tallyAnswers, toldTheyLost } from './race.js';
import {
  APPROVALS_CHANNEL,
  APPROVER_A,
  APPROVER_B,
  type ApprovalApp,
  approve,
  click,
  DEST,
  fileWithdrawal,
  OUTSIDER,
  openReject,
  REQUESTER,
  submitReject,
  waitUntil,
} from './support.js';

const withdrawCalls = (app: ApprovalApp) => app.sandbox.count('POST', '/v1/api/withdraw');

describe('approving a withdrawal', () => {
  test('posts the request with everything an approver needs, and sends nothing before approval', async ({
    app,
  }) => {
    const id = await fileWithdrawal(app, '1500.50');
    const post = app.slack.callsTo('chat.postMessage').find((c) => c.body.channel === APPROVALS_CHANNEL);
    const text = JSON.stringify(post?.body.blocks);
    expect(text).toContain('₦1,500.50');
    expect(text).toContain(DEST);
    expect(text).toContain(`<@${REQUESTER}>`);
    expect(text).toContain('0 of 1');
    expect(text).toContain('SANDBOX');
    expect(text).toContain('Expires');
    expect(text).toContain('approval.approve');
    expect(id).toMatch(/^AR-/);
    expect(withdrawCalls(app)).toBe(0);
  });

  test('refuses self-approval privately and changes nothing', async ({ app }) => {
    const id = await fileWithdrawal(app, '1500.50');
    await approve(app, id, REQUESTER);
    const ephemeral = await app.slack.waitFor('chat.postEphemeral', (c) => c.body.user === REQUESTER);
    expect(String(ephemeral.body.text)).toContain('cannot approve');
    await app.engine.idle();
    expect((await app.engine.get(id))?.state).toBe('pending');
    expect(app.slack.callsTo('chat.update')).toHaveLength(0);
    expect(withdrawCalls(app)).toBe(0);
  });

  test('refuses an outsider privately and changes nothing', async ({ app }) => {
    const id = await fileWithdrawal(app, '10');
    await approve(app, id, OUTSIDER);
    const ephemeral = await app.slack.waitFor('chat.postEphemeral', (c) => c.body.user === OUTSIDER);
    expect(String(ephemeral.body.text)).toContain('needs the *approver* role');
    expect((await app.engine.get(id))?.approvals).toEqual([]);
    expect(withdrawCalls(app)).toBe(0);
  });

  test('sends exactly the approved body once approved, and shows each step in place and in the thread', async ({
    app,
  }) => {
    const id = await fileWithdrawal(app, '1500.5');
    await approve(app, id, APPROVER_A);
    await app.slack.waitFor('chat.update', (c) => JSON.stringify(c.body.blocks).includes('Sent, waiting'));
    await app.engine.idle();
    const sent = app.sandbox.requests.filter((r) => r.method === 'POST' && r.path === '/v1/api/withdraw');
    expect(sent).toHaveLength(1);
    const request = await app.engine.get(id);
    expect(request?.payload).toMatchObject({ amount: '1500.50', address: DEST });
    if (request?.kind !== 'withdraw') throw new Error('not a withdrawal');
    // Exactly what approvers saw: the same amount, address and network, nothing else.
    expect(sent[0]?.plainBody).toEqual({
      amount: 1500.5,
      address: DEST,
      networkId: request.payload.networkId,
      shouldSaveAddress: false,
    });
    const thread = app.slack.callsTo('chat.postMessage').filter((c) => c.body.thread_ts);
    expect(thread.map((c) => String(c.body.text))).toEqual(
      expect.arrayContaining([
        expect.stringContaining('Approved by'),
        expect.stringContaining('Sent; the service gave reference'),
      ]),
    );
    const dms = app.slack.callsTo('chat.postMessage').filter((c) => c.body.channel === REQUESTER);
    expect(dms.map((c) => String(c.body.text))).toEqual(
      expect.arrayContaining([expect.stringContaining('was approved'), expect.stringContaining('was sent')]),
    );
  });

  test('needs two distinct approvals over the threshold; one is not enough', async ({ app }) => {
    const id = await fileWithdrawal(app, '1000000');
    await approve(app, id, APPROVER_A);
    await app.slack.waitFor('chat.update', (c) => JSON.stringify(c.body.blocks).includes('1 of 2'));
    await approve(app, id, APPROVER_A);
    const again = await app.slack.waitFor('chat.postEphemeral', (c) => c.body.user === APPROVER_A);
    expect(String(again.body.text)).toContain('already approved');
    await app.engine.idle();
    expect(withdrawCalls(app)).toBe(0);
    await approve(app, id, APPROVER_B);
    await app.slack.waitFor('chat.update', (c) => JSON.stringify(c.body.blocks).includes('Sent, waiting'));
    await app.engine.idle();
    expect(withdrawCalls(app)).toBe(1);
  });

  test('rejects with a reason asked in a modal, and tells the requester', async ({ app }) => {
    const id = await fileWithdrawal(app, '100');
    const view = await openReject(app, id, APPROVER_A);
    expect(view.callback_id).toBe('approval.reject.submit');
    const empty = await submitReject(app, view, APPROVER_A, '');
    expect(empty.json()).toMatchObject({
      response_action: 'errors',
      errors: { 'reject.reason': expect.stringContaining('Reason') },
    });
    await submitReject(app, view, APPROVER_A, 'Wrong network');
    const dm = await app.slack.waitFor(
      'chat.postMessage',
      (c) => c.body.channel === REQUESTER && String(c.body.text).includes('rejected'),
    );
    expect(String(dm.body.text)).toContain('Wrong network');
    expect((await app.engine.get(id))?.state).toBe('rejected');
    expect(withdrawCalls(app)).toBe(0);
  });

  test('refuses a rejection whose channel is no Slack id, or a channel its request is not in; nothing changes', async ({
    app,
  }) => {
    const id = await fileWithdrawal(app, '100');
    const view = await openReject(app, id, APPROVER_A);
    expect(JSON.parse(view.private_metadata).channel).toBe(APPROVALS_CHANNEL);
    const reject = (channel: string, userId: string) =>
      submitReject(app, view, userId, 'Wrong network', JSON.stringify({ id, channel }));
    const ephemerals = app.slack.callsTo('chat.postEphemeral').length;
    for (const channel of ['#general', 'UAPPROVERA', 'c-lowercase-1', 'CELSEWHERE1', 'GPRIVATE01']) {
      const response = (await reject(channel, APPROVER_A)).json() as { view?: unknown };
      expect(JSON.stringify(response.view), channel).toContain('never posted in');
      // The outsider is refused on the form by the access gate: nothing is said in that channel either.
      const outsider = (await reject(channel, OUTSIDER)).json() as { response_action?: string };
      expect(outsider.response_action, channel).toBe('errors');
    }
    await app.engine.idle();
    expect(await app.engine.get(id)).toMatchObject({ state: 'pending', approvals: [] });
    expect(app.slack.callsTo('chat.postEphemeral').slice(ephemerals)).toEqual([]);
    // A DM is where a copy of the request is clicked: taken.
    expect((await reject('DAPPROVERA1', APPROVER_A)).body).toBe('');
    await waitUntil(async () => (await app.engine.get(id))?.state === 'rejected', 'rejected');
  });

  test('does not open the reject modal for the requester', async ({ app }) => {
    const id = await fileWithdrawal(app, '100');
    await click(app, 'approval.reject', id, REQUESTER);
    await app.slack.waitFor('chat.postEphemeral', (c) => c.body.user === REQUESTER);
    expect(app.slack.callsTo('views.open')).toHaveLength(0);
  });

  test('lets the requester cancel, and nobody else', async ({ app }) => {
    const id = await fileWithdrawal(app, '100');
    await click(app, 'approval.cancel', id, APPROVER_A);
    const refused = await app.slack.waitFor('chat.postEphemeral', (c) => c.body.user === APPROVER_A);
    expect(String(refused.body.text)).toContain('Only the requester');
    expect((await app.engine.get(id))?.state).toBe('pending');
    await click(app, 'approval.cancel', id, REQUESTER);
    await app.slack.waitFor('chat.update', (c) => JSON.stringify(c.body.blocks).includes('Cancelled'));
    expect((await app.engine.get(id))?.state).toBe('cancelled');
  });

  test('marks the request outcome unknown when the answer is lost, then reconciles it without resending', async ({
    app,
  }) => {
    app.sandbox.dropResponse('POST', '/v1/api/withdraw');
    const id = await fileWithdrawal(app, '4321.09');
    await approve(app, id, APPROVER_A);
    await app.slack.waitFor('chat.update', (c) => JSON.stringify(c.body.blocks).includes('Outcome unknown'));
    await app.engine.idle();
    await app.engine.tick();
    const request = await app.engine.get(id);
    expect(request?.state).toBe('sent');
    await app.slack.waitFor('chat.postMessage', (c) =>
      String(c.body.text).includes('Found in the transaction list'),
    );
    expect(withdrawCalls(app)).toBe(1);
  });
});

describe('approver group', () => {
  test('accepts a member of the approver user group, read from Slack', async ({ startApp }) => {
    const app = await startApp({ approvers: [], approverGroup: 'STREASURY' });
    app.slack.on('usergroups.users.list', (call) =>
      call.body.usergroup === 'STREASURY' ? { body: { ok: true, users: ['UGROUPMEMBER'] } } : undefined,
    );
    const id = await fileWithdrawal(app, '10');
    await approve(app, id, OUTSIDER);
    await app.slack.waitFor('chat.postEphemeral', (c) => c.body.user === OUTSIDER);
    await approve(app, id, 'UGROUPMEMBER');
    await app.slack.waitFor('chat.update', (c) => JSON.stringify(c.body.blocks).includes('Sent, waiting'));
    expect(withdrawCalls(app)).toBe(1);
  });
});

describe('expiry', () => {
  test('refuses an approval after the request expired and says so', async ({ startApp }) => {
    let offset = 0;
    const app = await startApp({ now: () => new Date(Date.now() + offset) });
    const id = await fileWithdrawal(app, '100');
    offset = 25 * 3_600_000;
    await approve(app, id, APPROVER_A);
    const ephemeral = await app.slack.waitFor('chat.postEphemeral', (c) => c.body.user === APPROVER_A);
    expect(String(ephemeral.body.text)).toContain('expired');
    expect((await app.engine.get(id))?.state).toBe('expired');
    await app.slack.waitFor('chat.update', (c) => JSON.stringify(c.body.blocks).includes('Expired'));
    expect(withdrawCalls(app)).toBe(0);
  });
});

describe('50 approvals submitted at once', () => {
  test('approves once and sends once when all 50 reach the request together; every other click is told it lost', async ({
    controlledApp: { app },
    controls,
  }) => {
    const id = await fileWithdrawal(app, '750');
    // The engine tells its listeners once per change it persisted: once per accepted click.
    let accepted = 0;
    app.engine.onChange(async (r) => {
      if (r.id === id && r.history.at(-1)?.action === 'approved') accepted += 1;
    });
    // Fifty reviews open, then all fifty are submitted at once (race.ts).
    const privately = () => app.slack.callsTo('chat.postEphemeral').map((c) => String(c.body.text));
    const answers = await approveTogether({
      id,
      controls,
      reviewer: (i) => ({ replica: app, user: i % 2 ? APPROVER_A : APPROVER_B }),
      state: async () => (await app.engine.get(id))?.state,
      privately,
    });
    await waitUntil(async () => (await app.engine.get(id))?.state === 'sent', 'sent');
    await app.engine.idle();
    expect(withdrawCalls(app)).toBe(1);
    expect(accepted).toBe(1);
    expect((await app.engine.get(id))?.approvals).toHaveLength(1);
    // Every click but the one accepted is told it lost: in its modal before the ack, or privately.
    await waitUntil(
      async () => toldTheyLost(answers, privately) >= answers.length - 1,
      'all losers told',
    ).catch((error: Error) => {
      throw new Error(`${error.message}: ${tallyAnswers(answers, privately)}`);
    });
    expect(toldTheyLost(answers, privately)).toBe(answers.length - 1);
  });
});

describe('when the store fails', () => {
  test('answers a Reject click privately when the request cannot be read, and changes nothing', async ({
    controlledApp: { app },
    controls,
  }) => {
    const id = await fileWithdrawal(app, '100');
    const heal = controls.failReads(`approval:${id}`);
    await click(app, 'approval.reject', id, APPROVER_A);
    const ephemeral = await app.slack.waitFor('chat.postEphemeral', (c) => c.body.user === APPROVER_A);
    heal();
    expect(String(ephemeral.body.text)).toContain('could not be processed');
    expect(app.slack.callsTo('views.open')).toHaveLength(0);
    expect((await app.engine.get(id))?.state).toBe('pending');
  });
});

// One delivery, one request: the same signed view_submission or `/cngn delegate` sent again (two at
// once, one of them marked as Slack's retry, and once more after the first was answered) files one
// request, and every copy is answered as the first was. A person who fixes a field after an inline
// error still files; an identical delegation already waiting is refused, naming it. Also across two
// replicas on one shared store.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../../src/approvals/types.js';
import type { Sandbox } from '../../../src/sandbox/index.js';
import { startSandbox } from '../../../src/sandbox/index.js';
import { clearStore, type Store } from '../../../src/store/index.js';
import { GTB, networkIds } from '../../support/approving.js';
import { FakeSlack, type SlackCall } from '../../support/fake-slack.js';
import { testPrefix } from '../../support/redis.js';
import { sharedStores } from '../../support/shared-stores.js';
import {
  postSigned,
  type SlackSender,
  selectValue,
  slackRetry,
  slashCommandBody,
  textValue,
  type ViewSubmissionOptions,
  viewSubmissionBody,
  withdrawValues,
} from '../../support/slack-requests.js';
import {
  APPROVALS_CHANNEL,
  APPROVER_A,
  type ApprovalApp,
  DEST,
  REQUESTER,
  startApprovalApp,
  waitUntil,
} from '../approvals/support.js';

const BOLA = 'UBOLA';
const DAY = 86_400_000;

/** A day within the 90 a delegation may run, as `/cngn delegate … until <date>` takes it. */
const inDays = (days: number) => new Date(Date.now() + days * DAY).toISOString().slice(0, 10);

let viewCount = 0;
const newViewId = () => `VONCE${++viewCount}`;

const updatesOf = (slack: FakeSlack, viewId: string) =>
  slack.callsTo('views.update').filter((c) => c.body.view_id === viewId);
const viewText = (call: SlackCall | undefined) => JSON.stringify(call?.body.view);

/**
 * Deliver one signed body as Slack does when its first answer is late: twice at once (the second
 * marked as a retry), then once more after the first two were answered. `answered(n)` is true once
 * n deliveries have their answer.
 */
async function deliverThrice(
  senders: [SlackSender, SlackSender],
  body: string,
  answered: (n: number) => boolean,
): Promise<number[]> {
  const [first, second] = await Promise.all([
    postSigned(senders[0], body),
    postSigned(senders[1], body, { headers: slackRetry(1) }),
  ]);
  await waitUntil(() => answered(2), 'the first two deliveries answered');
  const third = await postSigned(senders[0], body);
  await waitUntil(() => answered(3), 'the third delivery answered');
  return [first.status, second.status, third.status];
}

/** The submissions of every filing modal, with values the sandbox accepts. */
function filingForms(networks: { base: string; bsc: string }): Array<{
  kind: ApprovalRequest['kind'];
  form: Omit<ViewSubmissionOptions, 'viewId'>;
}> {
  const meta = JSON.stringify({ networks: [networks.base, networks.bsc] });
  return [
    {
      kind: 'withdraw',
      form: {
        callbackId: 'withdraw.submit',
        privateMetadata: meta,
        values: withdrawValues({ amount: '1500', network: networks.base, address: DEST }),
      },
    },
    {
      kind: 'redeem',
      form: {
        callbackId: 'redeem.submit',
        values: {
          'redeem.amount': { 'redeem.amount': textValue('5000') },
          'redeem.bank': { 'redeem.bank': GTB },
          'redeem.account': { 'redeem.account': textValue('0123456789') },
          'redeem.purpose': { 'redeem.purpose': textValue('Refund to customer') },
        },
      },
    },
    {
      kind: 'bridge',
      form: {
        callbackId: 'bridge.submit',
        privateMetadata: meta,
        values: {
          'bridge.amount': { 'bridge.amount': textValue('100000') },
          'bridge.origin': { 'bridge.origin': selectValue(networks.base) },
          'bridge.destination': { 'bridge.destination': selectValue(networks.bsc) },
          'bridge.address': { 'bridge.address': textValue(DEST) },
          'bridge.purpose': { 'bridge.purpose': textValue('Liquidity for the other chain') },
          'bridge.sender': { 'bridge.sender': textValue('') },
        },
      },
    },
    {
      kind: 'whitelist',
      form: {
        callbackId: 'whitelist.submit',
        privateMetadata: meta,
        values: {
          'whitelist.network': { 'whitelist.network': selectValue(networks.base) },
          'whitelist.address': { 'whitelist.address': textValue(DEST) },
        },
      },
    },
    {
      kind: 'settlement',
      form: {
        callbackId: 'settlement.submit',
        values: {
          'settlement.bank': { 'settlement.bank': GTB },
          'settlement.account': { 'settlement.account': textValue('0123456789') },
        },
      },
    },
  ];
}

describe('one bot', () => {
  let app: ApprovalApp;
  let forms: ReturnType<typeof filingForms>;

  beforeAll(async () => {
    app = await startApprovalApp();
    forms = filingForms(await networkIds(app));
  });
  afterAll(async () => {
    await app.stop();
  });

  const requestsOf = async (kind: string) => (await app.engine.openRequests()).filter((r) => r.kind === kind);
  const approvalPosts = () =>
    app.slack
      .callsTo('chat.postMessage')
      .filter((c) => c.body.channel === APPROVALS_CHANNEL && !c.body.thread_ts);

  it.each(['withdraw', 'redeem', 'bridge', 'whitelist', 'settlement'] as const)(
    'files one %s request when the same signed submission arrives three times, and shows each the same waiting view',
    async (kind) => {
      const before = { requests: (await requestsOf(kind)).length, posts: approvalPosts().length };
      const form = forms.find((f) => f.kind === kind)?.form;
      if (!form) throw new Error(`no form for ${kind}`);
      const viewId = newViewId();
      const body = viewSubmissionBody({ ...form, viewId, userId: REQUESTER });
      const statuses = await deliverThrice(
        [app.sender, app.sender],
        body,
        (n) => updatesOf(app.slack, viewId).length >= n,
      );
      expect(statuses).toEqual([200, 200, 200]);
      const filed = (await requestsOf(kind)).slice(before.requests);
      expect(filed).toHaveLength(1);
      expect(approvalPosts()).toHaveLength(before.posts + 1);
      const views = updatesOf(app.slack, viewId).map(viewText);
      expect(views[0]).toContain('Waiting for approval');
      expect(views[0]).toContain(filed[0]?.id);
      expect(new Set(views).size).toBe(1);
    },
  );

  it('files once a person fixes a field after an inline error, and a repeat of the fixed submission files nothing more', async () => {
    const before = (await requestsOf('withdraw')).length;
    const form = forms.find((f) => f.kind === 'withdraw')?.form as ViewSubmissionOptions;
    const viewId = newViewId();
    const wrong = await postSigned(
      app.sender,
      viewSubmissionBody({
        ...form,
        viewId,
        values: { ...form.values, 'withdraw.amount': { 'withdraw.amount': textValue('12.345') } },
      }),
    );
    expect(wrong.json()).toMatchObject({ response_action: 'errors' });
    // The same view (same id and hash): only the value differs. An amount no other test here files,
    // so it is not the same payment as an earlier one (which the form would ask about first).
    const fixed = viewSubmissionBody({
      ...form,
      viewId,
      values: { ...form.values, 'withdraw.amount': { 'withdraw.amount': textValue('12.34') } },
    });
    await postSigned(app.sender, fixed);
    await waitUntil(() => updatesOf(app.slack, viewId).length >= 1, 'filed');
    expect((await requestsOf('withdraw')).slice(before)).toHaveLength(1);
    await postSigned(app.sender, fixed, { headers: slackRetry(1) });
    await waitUntil(() => updatesOf(app.slack, viewId).length >= 2, 'the repeat answered');
    expect((await requestsOf('withdraw')).slice(before)).toHaveLength(1);
  });

  describe('/cngn delegate', () => {
    let asked = 0;
    const answersTo = (name: string) => app.slack.callsTo(`response_url:${name}`);
    const delegations = () => requestsOf('delegation');

    it('files one delegation when the same signed command arrives three times, and answers each the same', async () => {
      const before = (await delegations()).length;
      const name = `once-${++asked}`;
      const body = slashCommandBody({
        text: `delegate <@${BOLA}|bola> until ${inDays(10)} max 400000`,
        userId: APPROVER_A,
        responseUrl: app.slack.responseUrl(name),
      });
      const statuses = await deliverThrice(
        [app.sender, app.sender],
        body,
        (n) => answersTo(name).length >= n,
      );
      expect(statuses).toEqual([200, 200, 200]);
      const filed = (await delegations()).slice(before);
      expect(filed).toHaveLength(1);
      const answers = answersTo(name).map((c) => JSON.stringify(c.body));
      expect(answers[0]).toContain(`Filed ${filed[0]?.id}`);
      expect(new Set(answers).size).toBe(1);
    });

    it('refuses a second identical delegation while the first waits, naming it; another cap is filed', async () => {
      const before = (await delegations()).length;
      const send = async (text: string) => {
        const name = `twin-${++asked}`;
        const body = slashCommandBody({ text, userId: APPROVER_A, responseUrl: app.slack.responseUrl(name) });
        await postSigned(app.sender, body);
        await waitUntil(() => answersTo(name).length >= 1, 'answered');
        return JSON.stringify(answersTo(name)[0]?.body);
      };
      const text = `delegate <@${BOLA}|bola> until ${inDays(20)} max 250000`;
      const first = await send(text);
      const [filed] = (await delegations()).slice(before);
      expect(first).toContain(`Filed ${filed?.id}`);
      const second = await send(text);
      expect(second).toContain(`already waiting for approval as ${filed?.id}`);
      expect(second).toContain('Nothing was filed');
      expect((await delegations()).slice(before)).toHaveLength(1);
      // Not the same request: another cap is a delegation of its own.
      expect(await send(`delegate <@${BOLA}|bola> until ${inDays(20)} max 300000`)).toContain('Filed AR-');
      expect((await delegations()).slice(before)).toHaveLength(2);
    });
  });
});

const shared = await sharedStores();
afterAll(async () => {
  for (const kind of shared) await kind.dispose();
});

for (const { name, up, open } of shared) {
  describe.skipIf(!up)(`two replicas on one ${name}`, () => {
    let sandbox: Sandbox;
    let slack: FakeSlack;
    let stores: Store[];
    let replicas: [ApprovalApp, ApprovalApp];

    beforeAll(async () => {
      sandbox = await startSandbox({ settleDelayMs: 3_600_000, rateLimit: false });
      slack = await FakeSlack.start();
      const prefix = testPrefix('one-delivery-replicas');
      stores = [await open(prefix), await open(prefix)];
      replicas = [
        await startApprovalApp({ sandbox, slack, store: stores[0] as Store }),
        await startApprovalApp({ sandbox, slack, store: stores[1] as Store }),
      ];
    });
    afterAll(async () => {
      for (const replica of replicas) await replica.stop();
      await clearStore(stores[0] as Store);
      for (const store of stores) await store.close();
      await slack.stop();
      await sandbox.stop();
    });

    const senders = (): [SlackSender, SlackSender] => [replicas[0].sender, replicas[1].sender];

    it('files one withdrawal when the same submission reaches both replicas', async () => {
      const [form] = filingForms(await networkIds(replicas[0]));
      const viewId = newViewId();
      const body = viewSubmissionBody({ ...form?.form, viewId, userId: REQUESTER } as ViewSubmissionOptions);
      await deliverThrice(senders(), body, (n) => updatesOf(slack, viewId).length >= n);
      const filed = (await replicas[1].engine.openRequests()).filter((r) => r.kind === 'withdraw');
      expect(filed).toHaveLength(1);
      expect(new Set(updatesOf(slack, viewId).map(viewText)).size).toBe(1);
    });

    it('files one delegation when the same command reaches both replicas', async () => {
      const answer = 'replicas-delegate';
      const body = slashCommandBody({
        text: `delegate <@${BOLA}|bola> until ${inDays(5)}`,
        userId: APPROVER_A,
        responseUrl: slack.responseUrl(answer),
      });
      await deliverThrice(senders(), body, (n) => slack.callsTo(`response_url:${answer}`).length >= n);
      const filed = (await replicas[0].engine.openRequests()).filter((r) => r.kind === 'delegation');
      expect(filed).toHaveLength(1);
      expect(new Set(slack.callsTo(`response_url:${answer}`).map((c) => JSON.stringify(c.body))).size).toBe(
        1,
      );
    });
  });
}

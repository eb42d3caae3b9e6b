// One delivery, one request: the same signed view_submission or `/cngn delegate` sent again (two at
// once, one of them marked as Slack's retry, and once more after the first was answered) files one
// request, and every copy is answered as the first was. A person who fixes a field after an inline
// error still files; an identical delegation already waiting is refused, naming it. Also across two
// replicas on one shared store.
import { describe, expect } from 'vitest';
import type { ApprovalRequest } from '../../../src/approvals/types.js';
import { type Sandbox, startSandbox } from '../../../src/sandbox/index.js';
import { clearStore, type Store } from '../../../src/store/index.js';
import { GTB, networkIds } from '../../support/approving.js';
import { botTest } from '../../support/bot.js';
import { FakeSlack, type SlackCall } from '../../support/fake-slack.js';
import { testPrefix } from '../../support/redis.js';
import { STORE_KINDS, type StoreKindName, sharedStores } from '../../support/shared-stores.js';
import {
  postSigned,
  redeemValues,
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

const views = { made: 0 };
const newViewId = () => `VONCE${++views.made}`;

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
        values: redeemValues({ amount: '5000' }),
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

/** Two replicas of the bot on one shared store, with one sandbox and one fake Slack between them. */
interface ReplicaPair {
  slack: FakeSlack;
  replicas: [ApprovalApp, ApprovalApp];
  senders(): [SlackSender, SlackSender];
}

/**
 * For the whole file: `sharedApp`, the bot of 'one bot', and `forms`, its filing forms; `replicaPairs`,
 * which starts two replicas on a shared store kind the first time a test asks for that kind, and
 * stops them all after the file. `pair` is the pair on `replicaStore`, which each kind's describe sets.
 */
const test = botTest
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('sharedApp', { scope: 'file' }, async ({}, { onCleanup }) => {
    const app = await startApprovalApp();
    onCleanup(() => app.stop());
    return app;
  })
  .extend('forms', { scope: 'file' }, async ({ sharedApp }) => filingForms(await networkIds(sharedApp)))
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('replicaPairs', { scope: 'file' }, async ({}, { onCleanup }) => {
    const shared = await sharedStores();
    const started = new Map<string, { pair: Promise<ReplicaPair>; stop: () => Promise<void> }>();
    onCleanup(async () => {
      for (const { stop } of started.values()) await stop();
      for (const kind of shared) await kind.dispose();
    });
    return (name: StoreKindName): Promise<ReplicaPair> => {
      const known = started.get(name);
      if (known) return known.pair;
      const kind = shared.find((k) => k.name === name);
      if (!kind) throw new Error(`no shared ${name} store`);
      let sandbox: Sandbox | undefined;
      let slack: FakeSlack | undefined;
      const stores: Store[] = [];
      const replicas: ApprovalApp[] = [];
      const pair = (async (): Promise<ReplicaPair> => {
        sandbox = await startSandbox({ settleDelayMs: 3_600_000, rateLimit: false });
        slack = await FakeSlack.start();
        const prefix = testPrefix('one-delivery-replicas');
        stores.push(await kind.open(prefix), await kind.open(prefix));
        replicas.push(
          await startApprovalApp({ sandbox, slack, store: stores[0] as Store }),
          await startApprovalApp({ sandbox, slack, store: stores[1] as Store }),
        );
        const both = replicas as [ApprovalApp, ApprovalApp];
        return { slack, replicas: both, senders: () => [both[0].sender, both[1].sender] };
      })();
      const stop = async () => {
        for (const replica of replicas) await replica.stop();
        if (stores[0]) await clearStore(stores[0]);
        for (const store of stores) await store.close();
        await slack?.stop();
        await sandbox?.stop();
      };
      started.set(name, { pair, stop });
      return pair;
    };
  })
  .extend('replicaStore', 'Redis' as StoreKindName)
  .extend('pair', async ({ replicaPairs, replicaStore }) => replicaPairs(replicaStore));

describe('one bot', () => {
  const requestsOf = async (app: ApprovalApp, kind: string) =>
    (await app.engine.openRequests()).filter((r) => r.kind === kind);
  const approvalPosts = (app: ApprovalApp) =>
    app.slack
      .callsTo('chat.postMessage')
      .filter((c) => c.body.channel === APPROVALS_CHANNEL && !c.body.thread_ts);

  test.for(['withdraw', 'redeem', 'bridge', 'whitelist', 'settlement'] as const)(
    'files one %s request when the same signed submission arrives three times, and shows each the same waiting view',
    async (kind, { sharedApp: app, forms }) => {
      const before = { requests: (await requestsOf(app, kind)).length, posts: approvalPosts(app).length };
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
      const filed = (await requestsOf(app, kind)).slice(before.requests);
      expect(filed).toHaveLength(1);
      expect(approvalPosts(app)).toHaveLength(before.posts + 1);
      const views = updatesOf(app.slack, viewId).map(viewText);
      expect(views[0]).toContain('Waiting for approval');
      expect(views[0]).toContain(filed[0]?.id);
      expect(new Set(views).size).toBe(1);
    },
  );

  test('files once a person fixes a field after an inline error, and a repeat of the fixed submission files nothing more', async ({
    sharedApp: app,
    forms,
  }) => {
    const before = (await requestsOf(app, 'withdraw')).length;
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
    expect((await requestsOf(app, 'withdraw')).slice(before)).toHaveLength(1);
    await postSigned(app.sender, fixed, { headers: slackRetry(1) });
    await waitUntil(() => updatesOf(app.slack, viewId).length >= 2, 'the repeat answered');
    expect((await requestsOf(app, 'withdraw')).slice(before)).toHaveLength(1);
  });

  describe('/cngn delegate', () => {
    let asked = 0;
    const answersTo = (app: ApprovalApp, name: string) => app.slack.callsTo(`response_url:${name}`);
    const delegations = (app: ApprovalApp) => requestsOf(app, 'delegation');

    test('files one delegation when the same signed command arrives three times, and answers each the same', async ({
      sharedApp: app,
    }) => {
      const before = (await delegations(app)).length;
      const name = `once-${++asked}`;
      const body = slashCommandBody({
        text: `delegate <@${BOLA}|bola> until ${inDays(10)} max 400000`,
        userId: APPROVER_A,
        responseUrl: app.slack.responseUrl(name),
      });
      const statuses = await deliverThrice(
        [app.sender, app.sender],
        body,
        (n) => answersTo(app, name).length >= n,
      );
      expect(statuses).toEqual([200, 200, 200]);
      const filed = (await delegations(app)).slice(before);
      expect(filed).toHaveLength(1);
      const answers = answersTo(app, name).map((c) => JSON.stringify(c.body));
      expect(answers[0]).toContain(`Filed ${filed[0]?.id}`);
      expect(new Set(answers).size).toBe(1);
    });

    test('refuses a second identical delegation while the first waits, naming it; another cap is filed', async ({
      sharedApp: app,
    }) => {
      const before = (await delegations(app)).length;
      const send = async (text: string) => {
        const name = `twin-${++asked}`;
        const body = slashCommandBody({ text, userId: APPROVER_A, responseUrl: app.slack.responseUrl(name) });
        await postSigned(app.sender, body);
        await waitUntil(() => answersTo(app, name).length >= 1, 'answered');
        return JSON.stringify(answersTo(app, name)[0]?.body);
      };
      const text = `delegate <@${BOLA}|bola> until ${inDays(20)} max 250000`;
      const first = await send(text);
      const [filed] = (await delegations(app)).slice(before);
      expect(first).toContain(`Filed ${filed?.id}`);
      const second = await send(text);
      expect(second).toContain(`already waiting for approval as ${filed?.id}`);
      expect(second).toContain('Nothing was filed');
      expect((await delegations(app)).slice(before)).toHaveLength(1);
      // Not the same request: another cap is a delegation of its own.
      expect(await send(`delegate <@${BOLA}|bola> until ${inDays(20)} max 300000`)).toContain('Filed AR-');
      expect((await delegations(app)).slice(before)).toHaveLength(2);
    });
  });
});

for (const { name, up } of STORE_KINDS.filter((kind) => kind.shared)) {
  describe.skipIf(!up)(`two replicas on one ${name}`, () => {
    test.override('replicaStore', name);

    test('files one withdrawal when the same submission reaches both replicas', async ({ pair }) => {
      const { slack, replicas, senders } = pair;
      const [form] = filingForms(await networkIds(replicas[0]));
      const viewId = newViewId();
      const body = viewSubmissionBody({ ...form?.form, viewId, userId: REQUESTER } as ViewSubmissionOptions);
      await deliverThrice(senders(), body, (n) => updatesOf(slack, viewId).length >= n);
      const filed = (await replicas[1].engine.openRequests()).filter((r) => r.kind === 'withdraw');
      expect(filed).toHaveLength(1);
      expect(new Set(updatesOf(slack, viewId).map(viewText)).size).toBe(1);
    });

    test('files one delegation when the same command reaches both replicas', async ({ pair }) => {
      const { slack, replicas, senders } = pair;
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

// The limit race: N withdrawals of about ₦100,000 each, by one requester to one address, submitted
// as Slack submissions eight at a time over two replicas (two bots on one shared store), against a
// daily limit that only half of them fit in and a tier that needs 2 approvals from ₦1,000,000. The
// filings are decided one after the other, so: what was filed stays within the daily limit, and the
// requests left at 1 approval add up to less than the ₦1,000,000 tier (a split never all stays
// under it). Then every filed request is approved as its tier asks, over both replicas, and each is
// sent exactly once: the sandbox's POSTs stay within the limit too.
import { Money } from '../../src/format/money.js';
import { startSandbox } from '../../src/sandbox/index.js';
import type { Store } from '../../src/store/index.js';
import { FakeSlack } from '../../test/support/fake-slack.js';
import { reviewInChannel, submitReview } from '../../test/support/review.js';
import { postSigned, viewSubmissionBody, withdrawValues } from '../../test/support/slack-requests.js';
import {
  APPROVALS_CHANNEL,
  APPROVERS,
  DEST,
  inBatches,
  type Line,
  type ProveStore,
  postsByAmount,
  REQUESTER,
  type Replica,
  startReplica,
  waitFor,
} from '../support.js';

const WITHDRAW = '/v1/api/withdraw';
const TIER = Money.parseDecimal('1000000');
const EACH = 100_000;

type Filed = { amount: string; id: string } | { amount: string; refused: true };

/** Submit the withdraw form and wait for its answer: filed (the request's id) or refused under the amount. */
async function submit(
  sender: Replica['sender'],
  slack: FakeSlack,
  network: { id: string; name: string },
  amount: string,
  i: number,
): Promise<Filed> {
  const viewId = `VLIMIT${i}`;
  const body = viewSubmissionBody({
    callbackId: 'withdraw.submit',
    userId: REQUESTER,
    viewId,
    privateMetadata: JSON.stringify({ networks: [network.id] }),
    values: withdrawValues({ amount, network, address: DEST, purpose: `Supplier payout INV-${i}` }),
  });
  const response = await postSigned(sender, body);
  // A field refused at once (the ack's errors) is a bug of this line, never a limit's answer.
  const acked = response.body.trim();
  if (acked.includes('"response_action":"errors"')) throw new Error(`submission ${i} refused: ${acked}`);
  if (response.status !== 200) throw new Error(`submission answered ${response.status}`);
  const answer = await slack.waitFor(
    'views.update',
    (c) => c.body.view_id === viewId && !JSON.stringify(c.body.view).includes('One moment'),
    30_000,
  );
  const shown = JSON.stringify(answer.body.view);
  if (shown.includes('Daily limit:')) return { amount, refused: true };
  const id = /AR-[0-9A-F]+/.exec(shown)?.[0];
  if (!id) throw new Error(`submission ${i} answered neither filed nor refused: ${shown.slice(0, 300)}`);
  return { amount, id };
}

export async function limitRace(store: ProveStore, n: number): Promise<Omit<Line, 'seconds'>> {
  const fit = Math.floor(n / 2);
  const limit = Money.parseDecimal(String(fit * EACH));
  const base = {
    line: 'races: limits',
    on: store.name,
    target: `filed and sent ≤ the daily limit (${fit} of ${n} fit), 1-approval requests < ₦1,000,000, 1 call each`,
  };
  const sandbox = await startSandbox({ settleDelayMs: 3_600_000, rateLimit: false });
  // Enough balance for all that may be sent: a refusal for want of balance is not what is measured.
  await sandbox.simulateCryptoDeposit({ amount: limit.toString() });
  const slack = await FakeSlack.start();
  const stores: Store[] = [await store.open(), await store.open()];
  const replicas: Replica[] = [];
  try {
    const config = { dailyLimit: limit.toString() };
    for (const s of stores) {
      replicas.push(await startReplica({ sandbox, slack, store: s, tiers: '0:1,1000000:2', config }));
    }
    const [a, b] = replicas as [Replica, Replica];
    const engine = a.bot.approvals?.engine;
    if (!engine) throw new Error('approvals are not wired');
    const network = (await a.bot.client.getNetworks()).find((x) => !x.isDisabled);
    if (!network) throw new Error('no network');
    // Each a little over ₦100,000 and all different: fewer than `fit` fit in the limit.
    const amounts = Array.from({ length: n }, (_, i) => (EACH + (i + 1) / 100).toFixed(2));
    const answers = await inBatches(amounts, 8, (amount, i) =>
      submit((i % 2 ? a : b).sender, slack, network, amount, i),
    );
    const ids = answers.flatMap((x) => ('id' in x ? [x.id] : []));
    const requests = await Promise.all(ids.map((id) => engine.get(id)));
    const sum = (list: Array<{ amount?: string } | undefined>) =>
      list.reduce((total, r) => total.plus(Money.parseDecimal(r?.amount ?? '0')), Money.zero());
    const filedTotal = sum(requests);
    const single = requests.filter((r) => r?.requiredApprovals === 1);
    const singleTotal = sum(single);

    // Approve each as its tier asks, over both replicas; one told "could not be taken just now" tries again.
    await inBatches(ids, 4, async (id, i) => {
      for (let attempt = 0; attempt < 3; attempt++) {
        const request = await engine.get(id);
        if (request?.state !== 'pending') return;
        const missing = APPROVERS.filter((x) => !request.approvals.some((y) => y.user === x)).slice(
          0,
          request.requiredApprovals - request.approvals.length,
        );
        for (const [k, approver] of missing.entries()) {
          const sender = (i + k + attempt) % 2 ? a.sender : b.sender;
          const opened = await reviewInChannel(sender, slack, id, approver, APPROVALS_CHANNEL);
          if (opened.view) await submitReview(sender, opened.view, approver);
        }
      }
    });
    const allSent = async () => {
      for (const id of ids) if ((await engine.get(id))?.state !== 'sent') return false;
      return true;
    };
    await waitFor(allSent, 'every filed request sent', 60_000 + n * 300).catch(() => {});
    await Promise.all(replicas.map((r) => r.bot.approvals?.engine.idle()));
    const posts = postsByAmount(sandbox, WITHDRAW);
    const calls = [...posts.values()].reduce((x, y) => x + y, 0);
    const twice = [...posts.values()].filter((c) => c > 1).length;
    const sentTotal = [...posts.keys()].reduce((t, x) => t.plus(Money.parse(x)), Money.zero());
    const ok =
      ids.length > 0 &&
      filedTotal.compare(limit) <= 0 &&
      singleTotal.compare(TIER) < 0 &&
      calls === ids.length &&
      twice === 0 &&
      sentTotal.compare(limit) <= 0;
    const naira = (m: Money) => `₦${m.toString()}`;
    return {
      ...base,
      figure: `${ids.length} of ${n} filed for ${naira(filedTotal)} (limit ${naira(limit)}), ${n - ids.length} refused; ${single.length} at 1 approval for ${naira(singleTotal)}; ${calls} calls for ${naira(sentTotal)}, ${twice} sent twice`,
      status: ok ? 'pass' : 'fail',
    };
  } finally {
    for (const r of replicas) await r.stop().catch(() => {});
    for (const s of stores) await s.close().catch(() => {});
    await slack.stop();
    await sandbox.stop();
  }
}

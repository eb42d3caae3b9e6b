// Races: N withdrawals, each approved by 3 approvers submitting the Approve review at once, twice each, spread over
// two replicas (two bots on one shared store). The sandbox's POST count is the truth: exactly N, one
// per request. The first few submissions are delivered three times, as Slack retries a late answer
// (at once to both replicas, then again): still one request each.
import { startSandbox } from '../../src/sandbox/index.js';
import type { Store } from '../../src/store/index.js';
import { FakeSlack } from '../../test/support/fake-slack.js';
import { reviewInChannel, submitReview } from '../../test/support/review.js';
import {
  APPROVALS_CHANNEL,
  APPROVERS,
  filedRequests,
  fileWithdrawal,
  inBatches,
  type Line,
  type ProveStore,
  postsByAmount,
  type Replica,
  startReplica,
  waitFor,
} from '../support.js';

const WITHDRAW = '/v1/api/withdraw';
/** How many of the N submissions are delivered three times (each costs a few round trips more). */
const RESENT_AT_MOST = 20;

export async function races(store: ProveStore, n: number): Promise<Omit<Line, 'seconds'>> {
  const base = {
    line: 'races',
    on: store.name,
    target: `exactly ${n} service calls, 1 per request, 1 request per submission`,
  };
  const sandbox = await startSandbox({ settleDelayMs: 3_600_000, rateLimit: false });
  const slack = await FakeSlack.start();
  const stores: Store[] = [await store.open(), await store.open()];
  const replicas: Replica[] = [];
  try {
    // Two approvals needed, so the three approvers' six submissions race for both the approvals and the claim.
    for (const s of stores) replicas.push(await startReplica({ sandbox, slack, store: s, tiers: '0:2' }));
    const [a, b] = replicas as [Replica, Replica];
    const network = (await a.bot.client.getNetworks()).find((x) => !x.isDisabled);
    if (!network) throw new Error('no network');
    const amounts = Array.from({ length: n }, (_, i) => (100 + i / 100).toFixed(2));
    const resent = Math.min(n, RESENT_AT_MOST);
    const ids = await inBatches(amounts, 8, (amount, i) =>
      fileWithdrawal(
        (i % 2 ? a : b).sender,
        slack,
        network,
        amount,
        i < resent ? (i % 2 ? b : a).sender : undefined,
      ),
    );
    const answers = new Map<number, number>();
    /** Per request, the approvers whose submission was accepted (the modal closed with no answer). */
    const accepted = new Map<string, Set<string>>();
    const submit = async (sender: Replica['sender'], id: string, approver: string) => {
      const opened = await reviewInChannel(sender, slack, id, approver, APPROVALS_CHANNEL);
      return {
        approver,
        response: opened.view ? await submitReview(sender, opened.view, approver) : opened.clicked,
      };
    };
    const tally = (id: string, approver: string, response: { status: number; body: string }) => {
      answers.set(response.status, (answers.get(response.status) ?? 0) + 1);
      if (response.status === 200 && response.body === '') {
        const set = accepted.get(id) ?? new Set<string>();
        set.add(approver);
        accepted.set(id, set);
      }
    };
    await inBatches(ids, 4, async (id, i) => {
      // Each approver opens the review twice (one per replica), then all six submissions race.
      const reviews = await Promise.all(
        APPROVERS.flatMap((approver, k) =>
          [0, 1].map(async (twice) => {
            const sender = (k + twice + i) % 2 ? a.sender : b.sender;
            const opened = await reviewInChannel(sender, slack, id, approver, APPROVALS_CHANNEL);
            return { sender, approver, opened };
          }),
        ),
      );
      const submissions = reviews.map(async ({ sender, approver, opened }) => ({
        approver,
        response: opened.view ? await submitReview(sender, opened.view, approver) : opened.clicked,
      }));
      for (const { approver, response } of await Promise.all(submissions)) tally(id, approver, response);
    });
    // A person told in the modal that their approval could not be taken just now (the store busy past
    // the click's deadline under this load) approves again: once more each, one at a time.
    let retried = 0;
    for (const [i, id] of ids.entries()) {
      const request = await a.bot.approvals?.engine.get(id);
      if (request?.state !== 'pending') continue;
      for (const approver of APPROVERS) {
        if (request.approvals.some((x) => x.user === approver)) continue;
        if ((await a.bot.approvals?.engine.get(id))?.state !== 'pending') break;
        retried += 1;
        const { response } = await submit(i % 2 ? a.sender : b.sender, id, approver);
        tally(id, approver, response);
      }
    }
    const settled = async () => {
      for (const id of ids) {
        const state = (await a.bot.approvals?.engine.get(id))?.state;
        if (state !== 'sent') return false;
      }
      return true;
    };
    // The replicas' own sweeps (every 15 s) start whatever a busy moment left approved.
    await waitFor(settled, 'every request sent', 120_000 + n * 300).catch(() => {});
    const states = new Map<string, number>();
    for (const id of ids) {
      const state = (await a.bot.approvals?.engine.get(id))?.state ?? 'missing';
      states.set(state, (states.get(state) ?? 0) + 1);
    }
    await Promise.all(replicas.map((r) => r.bot.approvals?.engine.idle()));
    // An approval whose modal closed must be on a request that is still waiting for approvals: none
    // lost. (Once a request has its approvals, a further submission is refused and said privately
    // after the modal closed, so only requests left short of their approvals can have lost one.)
    let lost = 0;
    for (const id of ids) {
      const request = await a.bot.approvals?.engine.get(id);
      if (request?.state !== 'pending') continue;
      const on = new Set(request.approvals.map((x) => x.user));
      for (const approver of accepted.get(id) ?? []) if (!on.has(approver)) lost += 1;
    }
    const filed = filedRequests(slack);
    const posts = postsByAmount(sandbox, WITHDRAW);
    const total = [...posts.values()].reduce((x, y) => x + y, 0);
    const twice = [...posts.values()].filter((c) => c > 1).length;
    const missing = amounts.filter((amount) => !posts.has(String(Number(amount)))).length;
    const clicks = [...answers.values()].reduce((x, y) => x + y, 0);
    const acked = answers.get(200) ?? 0;
    const ok = filed === n && total === n && twice === 0 && missing === 0 && acked === clicks && lost === 0;
    return {
      ...base,
      figure: `${total} calls for ${n} requests (${filed} filed from ${n} submissions, ${resent} of them delivered 3 times; ${clicks} clicks, ${acked} acked, ${retried} approved again after a busy answer; ${twice} sent twice, ${missing} never, ${lost} accepted approvals lost)`,
      status: ok ? 'pass' : 'fail',
      ...(ok
        ? {}
        : {
            note: `requests ended ${JSON.stringify(Object.fromEntries(states))}; answers by status ${JSON.stringify(Object.fromEntries(answers))}`,
          }),
    };
  } finally {
    for (const r of replicas) await r.stop().catch(() => {});
    for (const s of stores) await s.close().catch(() => {});
    await slack.stop();
    await sandbox.stop();
  }
}

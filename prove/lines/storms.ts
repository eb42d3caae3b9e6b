// Slack storms: chat.postMessage and chat.update answer 429 (Retry-After: 1) and 500 for a while,
// while withdrawals are filed, approved and sent. When Slack comes back, every approval message's last
// update shows it sent, and no step was posted twice in its thread.
import { startSandbox } from '../../src/sandbox/index.js';
import { createStore } from '../../src/store/index.js';
import { FakeSlack, type SlackCall } from '../../test/support/fake-slack.js';
import { approveInChannel } from '../../test/support/review.js';
import { viewSubmission, withdrawValues } from '../../test/support/slack-requests.js';
import {
  APPROVALS_CHANNEL,
  APPROVERS,
  DEST,
  type Line,
  REQUESTER,
  sleep,
  startReplica,
  waitFor,
} from '../support.js';

export async function storms(n: number, stormMs: number): Promise<Omit<Line, 'seconds'>> {
  const base = {
    line: 'Slack storms',
    on: `429/500 for ${Math.round(stormMs / 1000)} s`,
    target: `${n} requests: last update shows sent, 0 steps posted twice`,
  };
  const sandbox = await startSandbox({ settleDelayMs: 3_600_000, rateLimit: false });
  const slack = await FakeSlack.start();
  const store = await createStore('memory://');
  let replica = await startReplica({ sandbox, slack, store });
  const engine = replica.bot.approvals?.engine;
  if (!engine) throw new Error('approvals are not wired');
  let refused = 0;
  try {
    const network = (await replica.bot.client.getNetworks()).find((x) => !x.isDisabled);
    if (!network) throw new Error('no network');
    const stormUntil = Date.now() + stormMs;
    let turn = 0;
    for (const method of ['chat.postMessage', 'chat.update']) {
      slack.on(method, () => {
        if (Date.now() >= stormUntil) return undefined;
        refused += 1;
        turn += 1;
        return turn % 2
          ? { status: 429, headers: { 'retry-after': '1' }, body: { ok: false, error: 'ratelimited' } }
          : { status: 500, body: { ok: false, error: 'internal_error' } };
      });
    }
    // Filed during the storm: the modal's answer is the ack, the approval message waits for Slack.
    const amounts = Array.from({ length: n }, (_, i) => (700 + i / 100).toFixed(2));
    for (const amount of amounts) {
      const response = await viewSubmission(replica.sender, {
        callbackId: 'withdraw.submit',
        userId: REQUESTER,
        privateMetadata: JSON.stringify({ networks: [network.id] }),
        values: withdrawValues({ amount, network, address: DEST }),
      });
      if (response.status !== 200) throw new Error(`submission answered ${response.status}`);
    }
    // Approved during the storm too (the ids from the store: the messages are not out yet).
    let ids: string[] = [];
    await waitFor(async () => {
      const open = await engine.openRequests();
      ids = open
        .filter((r) => amounts.includes(String((r.payload as { amount?: string }).amount)))
        .map((r) => r.id);
      return ids.length === n;
    }, 'every request filed');
    for (const id of ids) {
      // The review opens (views.open is not in the storm), and its submission approves.
      await approveInChannel(replica.sender, slack, id, APPROVERS[0], APPROVALS_CHANNEL);
    }
    const duringStorm = Date.now() < stormUntil;
    await waitFor(async () => {
      for (const id of ids) if ((await engine.get(id))?.state !== 'sent') return false;
      return true;
    }, 'every request sent');
    // Slack comes back; give the bot time to catch up on what it owes.
    await sleep(Math.max(0, stormUntil - Date.now()));
    // What the message shows last: its latest update, or its first post if that came after the storm
    // with the final state already in it.
    const shown = (id: string) =>
      slack.calls
        .filter(
          (c) =>
            (c.method === 'chat.update' || (c.method === 'chat.postMessage' && !c.body.thread_ts)) &&
            c.body.channel === APPROVALS_CHANNEL &&
            JSON.stringify(c.body).includes(id),
        )
        .at(-1);
    const isSent = (call: SlackCall | undefined) => /\bSent\b/.test(JSON.stringify(call?.body ?? {}));
    await waitFor(() => ids.every((id) => isSent(shown(id))), 'every message showing sent', 60_000).catch(
      () => {},
    );
    await engine.idle();
    await replica.bot.approvals?.presenter?.idle();
    const notShown = ids.filter((id) => !isSent(shown(id)));
    // A step posted twice: the same text twice in the approvals channel for one request.
    const postedTwice = () => {
      let count = 0;
      for (const id of ids) {
        const texts = slack
          .callsTo('chat.postMessage')
          .filter((c) => c.body.channel === APPROVALS_CHANNEL && JSON.stringify(c.body).includes(id))
          .map((c) => `${String(c.body.thread_ts ? 'thread' : 'top')}:${String(c.body.text)}`);
        count += texts.length - new Set(texts).size;
      }
      return count;
    };
    let twice = postedTwice();
    // What a restart would show (its start-up catches up on every open and unshown message), to tell
    // "shown late" from "lost". The target is without one.
    let afterRestart = n - notShown.length;
    if (notShown.length > 0) {
      await replica.stop();
      replica = await startReplica({ sandbox, slack, store });
      await waitFor(() => ids.every((id) => isSent(shown(id))), 'shown after a restart', 60_000).catch(
        () => {},
      );
      await replica.bot.approvals?.presenter?.idle();
      afterRestart = ids.filter((id) => isSent(shown(id))).length;
    }
    twice = postedTwice();
    const ok = notShown.length === 0 && twice === 0 && refused > 0 && duringStorm;
    return {
      ...base,
      figure: `${refused} Slack calls refused; ${n - notShown.length}/${n} messages end showing sent (${afterRestart}/${n} after a restart), ${twice} steps posted twice`,
      status: ok ? 'pass' : 'fail',
      ...(ok
        ? {}
        : {
            note: duringStorm
              ? `not shown sent: ${notShown.slice(0, 3).join(', ')}; last update: ${JSON.stringify(shown(notShown[0] ?? '')?.body.text ?? '').slice(0, 200)}`
              : 'the requests were not approved while the storm lasted (make it longer)',
          }),
    };
  } finally {
    await replica.stop();
    await store.close();
    await slack.stop();
    await sandbox.stop();
  }
}

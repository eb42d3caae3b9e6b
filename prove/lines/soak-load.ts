// The soak's load: what people and the service do to the bot, one operation at a time, each ending in
// what a person would see (the answer, the posted message, the published Home) or throwing why not.
import { randomUUID } from 'node:crypto';
import type { Sandbox } from '../../src/sandbox/index.js';
import type { FakeSlack } from '../../test/support/fake-slack.js';
import { approveInChannel, refusedInModal } from '../../test/support/review.js';
import { postSigned, type SlackSender, slashCommand } from '../../test/support/slack-requests.js';
import { APPROVALS_CHANNEL, APPROVERS, fileWithdrawal, REQUESTER } from '../support.js';
import type { Operation } from './soak-judge.js';

/** How long one operation may take, end to end, before it counts as failed. */
export const OPERATION_TIMEOUT_MS = 30_000;

export interface Target {
  sender: SlackSender;
  slack: FakeSlack;
  sandbox: Sandbox;
  network: { id: string; name: string };
}

/** What the load remembers between operations: references to read back, a counter for amounts. */
export interface LoadState {
  filings: number;
  /** The newest deposit references the service told of, for `/cngn tx <reference>`. */
  references: string[];
}

const READS = ['balance', 'tx', 'networks', 'tx <reference>'] as const;
const PEOPLE = [REQUESTER, ...APPROVERS];

/** A warning answer (`:warning: …`): the read was refused or failed. */
function warned(body: Record<string, unknown>): boolean {
  const first = (body.blocks as Array<{ text?: { text?: unknown } }> | undefined)?.[0];
  return String(first?.text?.text ?? '').startsWith(':warning:');
}

async function read(target: Target, state: LoadState, tick: number): Promise<void> {
  const kind = READS[tick % READS.length] as (typeof READS)[number];
  const text = kind === 'tx <reference>' ? `tx ${state.references.at(-1) ?? ''}`.trim() : kind;
  const name = `soak-${tick}`;
  const response = await slashCommand(target.sender, {
    text,
    userId: REQUESTER,
    responseUrl: target.slack.responseUrl(name),
  });
  if (response.status !== 200) throw new Error(`/cngn ${text} answered ${response.status}`);
  const answer = await target.slack.waitFor(`response_url:${name}`, () => true, OPERATION_TIMEOUT_MS);
  if (warned(answer.body)) throw new Error(`/cngn ${text} answered ${String(answer.body.text)}`);
}

/** A deposit as the service reports it: a signed `deposit.completed` delivered to the bot's webhook. */
async function deposit(target: Target, state: LoadState): Promise<void> {
  const { trx_ref } = await target.sandbox.simulateCryptoDeposit({ amount: '2500.00' });
  const delivered = target.sandbox.webhookDeliveries.findLast((d) => d.body.includes(trx_ref));
  if (delivered?.status !== 200)
    throw new Error(`deposit webhook answered ${delivered?.status ?? 'nothing'}`);
  state.references.push(trx_ref);
  if (state.references.length > 20) state.references.shift();
}

async function openHome(target: Target, tick: number): Promise<void> {
  const user = PEOPLE[Math.floor(tick / 5) % PEOPLE.length] as string;
  const since = Date.now();
  const body = JSON.stringify({
    token: 'legacy-unused',
    team_id: 'T1',
    api_app_id: 'A1',
    type: 'event_callback',
    event_id: `Ev${randomUUID()}`,
    event_time: Math.floor(since / 1000),
    event: {
      type: 'app_home_opened',
      user,
      channel: `D${user}`,
      tab: 'home',
      event_ts: String(since / 1000),
    },
  });
  const response = await postSigned(target.sender, body, { contentType: 'application/json' });
  if (response.status !== 200) throw new Error(`app_home_opened answered ${response.status}`);
  await target.slack.waitFor(
    'views.publish',
    (c) => c.body.user_id === user && c.at >= since,
    OPERATION_TIMEOUT_MS,
  );
}

/**
 * A withdrawal filed through its modal, approved by another person through the review, and shown sent
 * (or completed) on its approval message. Reports the filing and the approval apart.
 */
async function fileAndApprove(
  target: Target,
  state: LoadState,
  done: (op: Operation, error?: unknown) => void,
): Promise<void> {
  state.filings += 1;
  // Unique per request: the approval message is found by its amount.
  const amount = (100 + state.filings / 100).toFixed(2);
  let id: string;
  try {
    id = await fileWithdrawal(target.sender, target.slack, target.network, amount);
    done('filing');
  } catch (error) {
    done('filing', error);
    return;
  }
  try {
    const reviewed = await approveInChannel(target.sender, target.slack, id, APPROVERS[0], APPROVALS_CHANNEL);
    if (!reviewed.view)
      throw new Error(`Approve on ${id} opened no review: ${String(reviewed.told?.body.text)}`);
    if (reviewed.submitted?.status !== 200 || refusedInModal(reviewed.submitted)) {
      throw new Error(`the review of ${id} was refused: ${reviewed.submitted?.body.slice(0, 200)}`);
    }
    await target.slack.waitFor(
      'chat.update',
      (c) => {
        if (c.body.channel !== APPROVALS_CHANNEL) return false;
        const text = JSON.stringify(c.body);
        return text.includes(id) && /\bSent\b|\bCompleted\b/.test(text);
      },
      OPERATION_TIMEOUT_MS,
    );
    done('approval');
  } catch (error) {
    done('approval', error);
  }
}

/**
 * The operations started at one tick of the load (one tick a second): a read every tick (balance, the
 * transaction list, the networks, one transaction in turn), a deposit webhook and an App Home open
 * every 5 ticks, a withdrawal filed and approved every 10.
 */
export function operationsAt(
  tick: number,
  target: Target,
  state: LoadState,
  done: (op: Operation, error?: unknown) => void,
): Promise<void>[] {
  const started: Promise<void>[] = [];
  const track = (op: Operation, work: Promise<void>) =>
    started.push(
      work.then(
        () => done(op),
        (error: unknown) => done(op, error),
      ),
    );
  track('read', read(target, state, tick));
  if (tick % 5 === 1) track('webhook', deposit(target, state));
  if (tick % 5 === 3) track('home', openHome(target, tick));
  if (tick % 10 === 7) started.push(fileAndApprove(target, state, done));
  return started;
}

// App Home's shared reads (the open requests, delegations, limit use, the freeze, the last alerts): the
// publishes one change asks for share one read of each, and a publish never takes a read that began
// before it was asked for (that read may miss the change). Home is published only to people who still read.
import type { WebClient } from '@slack/web-api';
import { expect } from 'vitest';
import type { Roles } from '../../../../src/access/index.js';
import { HomePublisher } from '../../../../src/slack/approvals/home/publisher.js';
import { RecentAlerts } from '../../../../src/webhooks/recent.js';
import {
  APPROVER_A,
  APPROVER_B,
  type EngineFixture,
  engineTest,
  REQUESTER,
  withdrawalDraft,
} from '../../../support/engine.js';
import { fileDraft } from '../../../support/filing.js';
import { waitUntil } from '../../../support/webhook-rig.js';

/** What every publish reads alike: the engine's methods, then the last alerts'. */
const SHARED = ['openRequests', 'delegations', 'limitUse', 'currentFreeze', 'latest'] as const;

/**
 * The reads every Home makes alike, counted (`calls`: the open requests; `counts`: each by name);
 * while `held`, each is answered only on release.
 */
class OpenReads {
  calls = 0;
  counts = new Map<string, number>();
  held = false;
  private waiting: Array<() => void> = [];

  wrap<T extends object>(object: T): T {
    return new Proxy(object, {
      get: (target, property, receiver) => {
        const value = Reflect.get(target, property, receiver);
        if (typeof value !== 'function') return value;
        const name = String(property);
        if (!(SHARED as readonly string[]).includes(name)) return value.bind(target);
        return (...args: unknown[]) => {
          if (name === 'openRequests') this.calls += 1;
          this.counts.set(name, (this.counts.get(name) ?? 0) + 1);
          const read = Promise.resolve(value.apply(target, args));
          if (!this.held) return read;
          return new Promise<unknown>((resolve, reject) => {
            this.waiting.push(() => read.then(resolve, reject));
          });
        };
      },
    });
  }

  /** How many reads of each shared thing, in SHARED's order. */
  each(): number[] {
    return SHARED.map((name) => this.counts.get(name) ?? 0);
  }

  release(): void {
    this.held = false;
    for (const answer of this.waiting.splice(0)) answer();
  }
}

/** A publisher on the fixture's engine, its Slack a list of the views it published. */
function homeOn(
  fx: EngineFixture,
  reads: OpenReads,
  mayAct: (user: string) => Promise<boolean>,
  debounceMs = 1,
  roles?: Roles,
) {
  const published: Array<{ user_id: string; view: unknown }> = [];
  const client = {
    views: {
      publish: async (args: { user_id: string; view: unknown }) => {
        published.push(args);
        return { ok: true };
      },
    },
    chat: { getPermalink: async () => ({ ok: true, permalink: 'https://slack.example/p' }) },
  } as unknown as WebClient;
  const home = new HomePublisher({
    engine: reads.wrap(fx.engine),
    alerts: reads.wrap(new RecentAlerts(fx.store)),
    api: fx.client,
    store: fx.store,
    client,
    debounceMs,
    mayAct,
    roles,
  });
  home.listen();
  /** The values of the Approve buttons of the last Home published for `user`. */
  const offered = (user: string) => {
    const view = published.filter((p) => p.user_id === user).at(-1)?.view as
      | { blocks?: unknown[] }
      | undefined;
    const blocks = (view?.blocks ?? []) as Array<{
      elements?: Array<{ action_id?: string; value?: string }>;
    }>;
    return blocks
      .flatMap((block) => block.elements ?? [])
      .filter((element) => element.action_id === 'approval.approve')
      .map((element) => element.value);
  };
  return { home, published, offered };
}

/** A publisher as `homeOn` makes it whose mayAct says yes to everyone, noting each person it was asked about. */
function homeAsking(fx: EngineFixture, debounceMs = 1) {
  const reads = new OpenReads();
  const asked: string[] = [];
  const made = homeOn(
    fx,
    reads,
    async (user) => {
      asked.push(user);
      return true;
    },
    debounceMs,
  );
  return { ...made, reads, asked };
}

/** `people` open Home and it is published to each; then the shared reads are held. */
async function openedThenHeld(
  { home, reads }: { home: HomePublisher; reads: OpenReads },
  people: string[],
): Promise<void> {
  for (const user of people) await home.homeOpened(user);
  await home.idle();
  reads.held = true;
}

/** The held reads answered, and what they held published. */
async function released({ home, reads }: { home: HomePublisher; reads: OpenReads }): Promise<void> {
  reads.release();
  await home.idle();
}

/** Each of `users` is offered request `id`'s first round, and nothing else, on their last Home. */
function expectOffered(offered: (user: string) => unknown[], id: string, ...users: string[]): void {
  for (const user of users) expect(offered(user)).toEqual([`${id}:0`]);
}

/** One turn of the event loop, for the work a publish starts at once. */
const aTurn = () => new Promise((resolve) => setImmediate(resolve));

/** Roles where only `readers` hold the reader role (any other role is held by everyone). */
function readerRoles(readers: Set<string>): Roles {
  return {
    holds: async (user, need) => need.role !== 'reader' || readers.has(user),
    holders: async () => ({ everyone: false, users: [...readers], groups: [] }),
  };
}

const test = engineTest;

test('publishes everyone one change concerns from one read of the open requests', async ({
  fx,
  networkId,
}) => {
  const h = homeAsking(fx);
  const { reads, asked, published, offered } = h;
  const people = [APPROVER_A, APPROVER_B, REQUESTER];
  await openedThenHeld(h, people);
  [reads.calls, asked.length, published.length] = [0, 0, 0];
  const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '1500'));
  // Each publish asks mayAct, then reads the open requests without waiting on anything else.
  await waitUntil(() => people.every((user) => asked.includes(user)));
  await aTurn();
  expect(reads.calls).toBe(1);
  await released(h);
  expect(published.map((p) => p.user_id).sort()).toEqual([...people].sort());
  expectOffered(offered, request.id, APPROVER_A, APPROVER_B);
});

test('reads again for a Home asked for after a read began, so it shows a request filed meanwhile', async ({
  fx,
  networkId,
}) => {
  const h = homeAsking(fx);
  const { home, reads, offered } = h;
  await openedThenHeld(h, [APPROVER_A]);
  await home.everyoneChanged(); // A's Home is published again: its read begins, and waits.
  await waitUntil(() => reads.calls === 2);
  const filed = await fileDraft(fx.engine, withdrawalDraft(networkId, '2500'));
  await home.homeOpened(APPROVER_B);
  await aTurn();
  expect(reads.calls).toBe(3);
  await released(h);
  // B's Home shows it, and so does A's: read before it was filed, it is published once more for the change.
  expectOffered(offered, filed.id, APPROVER_B, APPROVER_A);
});

test('a change while a Home waits for its debounce is not answered from a read that began before it', async ({
  fx,
  networkId,
}) => {
  // A debounce long enough for the steps below to happen while A's publish waits for it (they take
  // milliseconds); a machine slower than that would let the publish go first, and the test pass anyway.
  const h = homeAsking(fx, 1_000);
  const { home, reads, asked, offered } = h;
  await openedThenHeld(h, [APPROVER_A]);
  await home.everyoneChanged(); // A's Home waits for its debounce.
  await home.homeOpened(APPROVER_B); // B's Home is published now: its read begins, and waits.
  await waitUntil(() => reads.calls === 2);
  const filed = await fileDraft(fx.engine, withdrawalDraft(networkId, '3500')); // asks for A's Home again
  await waitUntil(() => asked.filter((user) => user === APPROVER_A).length === 2);
  await aTurn();
  // A's publish, asked for after B's read began, reads for itself.
  expect(reads.calls).toBe(3);
  await released(h);
  expectOffered(offered, filed.id, APPROVER_A);
});

test('publishes three Homes for one change from one read of each shared thing', async ({ fx, networkId }) => {
  const h = homeAsking(fx);
  const { reads, asked, published } = h;
  const people = [APPROVER_A, APPROVER_B, REQUESTER];
  await openedThenHeld(h, people);
  [reads.counts, asked.length, published.length] = [new Map(), 0, 0];
  await fileDraft(fx.engine, withdrawalDraft(networkId, '4500'));
  await waitUntil(() => people.every((user) => asked.includes(user)));
  await aTurn();
  await released(h);
  expect(published.map((p) => p.user_id).sort()).toEqual([...people].sort());
  expect(reads.each()).toEqual([1, 1, 1, 1, 1]);
});

test('reads the delegations again for a Home asked for after their read began', async ({ fx }) => {
  const h = homeAsking(fx);
  const { home, reads, asked, published } = h;
  await openedThenHeld(h, [APPROVER_A, APPROVER_B]);
  [reads.counts, asked.length, published.length] = [new Map(), 0, 0];
  await home.everyoneChanged(); // A's and B's Homes: one read of the delegations begins, and waits.
  await waitUntil(() => asked.length === 2);
  await aTurn();
  expect(reads.counts.get('delegations')).toBe(1);
  await home.homeOpened(REQUESTER); // asked for after that read began: it may miss a change since
  await waitUntil(() => asked.length === 3);
  await aTurn();
  expect(reads.counts.get('delegations')).toBe(2);
  await released(h);
  expect(published.map((p) => p.user_id).sort()).toEqual([APPROVER_A, APPROVER_B, REQUESTER].sort());
  expect(reads.each()).toEqual([2, 2, 2, 2, 2]);
});

test('stops publishing to someone who no longer reads the treasury, and takes the treasury off their Home', async ({
  fx,
  networkId,
}) => {
  const readers = new Set([REQUESTER, APPROVER_A, APPROVER_B]);
  const roles = readerRoles(readers);
  const { home, published } = homeOn(fx, new OpenReads(), async () => true, 1, roles);
  await home.homeOpened(REQUESTER);
  await home.idle();
  const shownTo = () => published.filter((p) => p.user_id === REQUESTER).map((p) => JSON.stringify(p.view));
  expect(shownTo().at(-1)).toContain('Your requests');

  readers.delete(REQUESTER);
  await fileDraft(fx.engine, withdrawalDraft(networkId, '1500'));
  await home.idle();
  const after = shownTo().at(-1) ?? '';
  expect(after).toContain('no longer hold the *reader* role');
  expect(after).not.toContain('Your requests');
  expect(await fx.store.setMembers('home:opened')).not.toContain(REQUESTER);

  // Nothing more reaches them: not their own request's next step, not a freeze.
  const count = shownTo().length;
  await fileDraft(fx.engine, withdrawalDraft(networkId, '1600'));
  await home.everyoneChanged();
  await home.idle();
  expect(shownTo()).toHaveLength(count);
});

test('publishes again to someone who reads once more and opens Home on another replica', async ({
  fx,
  networkId,
}) => {
  const readers = new Set([REQUESTER, APPROVER_A, APPROVER_B]);
  const roles = readerRoles(readers);
  // Two replicas on one store: the requester opened Home on each while a reader.
  const one = homeOn(fx, new OpenReads(), async () => true, 1, roles);
  const two = homeOn(fx, new OpenReads(), async () => true, 1, roles);
  await one.home.homeOpened(REQUESTER);
  await two.home.homeOpened(REQUESTER);
  // No longer a reader: the first replica's next publish (a freeze began there) takes them off the list.
  readers.delete(REQUESTER);
  await one.home.everyoneChanged();
  await one.home.idle();
  expect(await fx.store.setMembers('home:opened')).not.toContain(REQUESTER);

  // A reader again, they open Home on the second replica: changes reach them from then on.
  readers.add(REQUESTER);
  await two.home.homeOpened(REQUESTER);
  await two.home.idle();
  const published = () => [...one.published, ...two.published].filter((p) => p.user_id === REQUESTER).length;
  const before = published();
  await fileDraft(fx.engine, withdrawalDraft(networkId, '1600'));
  await Promise.all([one.home.idle(), two.home.idle()]);
  expect(published()).toBeGreaterThan(before);
});

// The 50-approvals race, shared by the one-bot and two-replica tests: reviews opened as a person would
// (clicking again when Slack's 3 s for a trigger passed before the form opened, on a busy machine),
// and what the clicks that lost were told, in their modal before the ack or privately after it.

import { type ReviewView, refusedInModal, submitReview } from '../../support/review.js';
import type { SlackResponse } from '../../support/slack-requests.js';
import type { StoreControls } from '../../support/store-controls.js';
import { type ApprovalApp, reviewFor, waitUntil } from './support.js';

/**
 * A click that lost, told so in words that say it changed nothing: already approved, or (on a busy
 * machine) its write deadline passed first, or what its review showed could not be read in time.
 */
const LOST_WORDS = [
  'already approved and is being handled',
  'could not be recorded just now, so nothing changed',
  'could not be checked against what it showed',
  'not ready yet, or no longer known, so nothing was approved',
];

const isVerdict = (text: string | undefined) =>
  text !== undefined && LOST_WORDS.some((w) => text.includes(w));

/** `user`'s review of `id` on `replica`, clicked again until it opens (a cap, not a timing). */
async function reviewOpened(replica: ApprovalApp, id: string, user: string) {
  for (const giveUpAt = Date.now() + 120_000; Date.now() < giveUpAt; ) {
    const { view } = await reviewFor(replica, id, user);
    if (view) return { replica, user, view: view as ReviewView };
  }
  throw new Error(`the review of ${user} never opened`);
}

/** How many of the clicks answered `answers` were told they lost: in the modal, or privately later. */
export function toldTheyLost(answers: SlackResponse[], privately: () => string[]): number {
  return answers.filter((a) => isVerdict(refusedInModal(a))).length + privately().filter(isVerdict).length;
}

/** What each click was told, tallied, for a failure's message. */
export function tallyAnswers(answers: SlackResponse[], privately: () => string[]): string {
  const tally = (said: string[]) => {
    const counts = new Map<string, number>();
    for (const text of said) counts.set(text, (counts.get(text) ?? 0) + 1);
    return [...counts].map(([text, n]) => `${n}× ${text}`).join('; ');
  };
  const modal = answers.map((answer) => refusedInModal(answer)?.slice(0, 60) ?? 'closed or late');
  return `in the modal: ${tally(modal)}; privately: ${tally(privately().map((text) => text.slice(0, 80)))}`;
}

export interface Race {
  id: string;
  controls: StoreControls;
  /** Who clicks the i-th of the 50 reviews, on which replica. */
  reviewer: (i: number) => { replica: ApprovalApp; user: string };
  state: () => Promise<string | undefined>;
  privately: () => string[];
}

/**
 * 50 reviews of the request opened, then submitted together, every submission held at the request's
 * lock until all 50 are there, so only the lock keeps them apart. One that gave up before reaching it
 * (its write deadline passed on a busy machine) never comes: then the rest go in. The last to arrive
 * goes in first: on a busy machine the first arrivals' write deadlines pass while they wait at the door
 * (a wait only this test makes), and a line of them would take the lock in turn only to write nothing.
 * When every click of a round was told that nothing changed (on a machine so busy that each one's
 * deadline passed all the same), the approvers click again, as they are told to, in another round (a
 * cap, not a timing). Resolves with every click's answer once the request left `pending`.
 */
export async function approveTogether(race: Race, rounds = 5): Promise<SlackResponse[]> {
  const { id, controls, state, privately } = race;
  const answers: SlackResponse[] = [];
  for (let round = 1; round <= rounds; round++) {
    const reviews = await reviewsOpened(race);
    const allAtTheLock = controls.holdLock(`approval:${id}`, 50, { latestFirst: true });
    answers.push(...(await Promise.all(reviews.map((r) => submitReview(r.replica.sender, r.view, r.user)))));
    controls.openLock(`approval:${id}`);
    await allAtTheLock;
    // Decided: one click was accepted (the request moved on), or every click so far was told it lost.
    const decided = async () =>
      (await state()) !== 'pending' || toldTheyLost(answers, privately) >= answers.length;
    await waitUntil(decided, 'the round decided', 240_000).catch((error: Error) => {
      throw new Error(`${error.message}: ${tallyAnswers(answers, privately)}`);
    });
    if ((await state()) !== 'pending') return answers;
  }
  throw new Error(`no click of ${rounds} rounds was accepted: ${tallyAnswers(answers, privately)}`);
}

/**
 * The 50 reviews, opened a few at a time as people click: fifty clicks at once on a busy machine each
 * outlast their trigger's 3 s, and clicked again all together they do so again and again.
 */
async function reviewsOpened(race: Race, count = 50, atOnce = 5) {
  const reviews: Array<Awaited<ReturnType<typeof reviewOpened>>> = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: atOnce }, async () => {
      for (let i = next++; i < count; i = next++) {
        const { replica, user } = race.reviewer(i);
        reviews[i] = await reviewOpened(replica, race.id, user);
      }
    }),
  );
  return reviews;
}

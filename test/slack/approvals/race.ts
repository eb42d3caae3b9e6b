// The 50-approvals race, shared by the one-bot and two-replica tests: reviews opened as a person would
// (clicking again when Slack's 3 s for a trigger passed before the form opened, on a busy machine),
// and what the clicks that lost were told, in their modal before the ack or privately after it.

import { type ReviewView, refusedInModal } from '../../support/review.js';
import type { SlackResponse } from '../../support/slack-requests.js';
import { type ApprovalApp, reviewFor } from './support.js';

/** A click that lost: already approved, or (its write deadline passed first) nothing changed. */
const LOST_WORDS = [
  'already approved and is being handled',
  'could not be recorded just now, so nothing changed',
];

const isVerdict = (text: string | undefined) =>
  text !== undefined && LOST_WORDS.some((w) => text.includes(w));

/** `user`'s review of `id` on `replica`, clicked again until it opens (a cap, not a timing). */
export async function reviewOpened(replica: ApprovalApp, id: string, user: string) {
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

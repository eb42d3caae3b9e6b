// Dead letters a person can act on: the alerts Slack would not take (see Outbox.deadLetters), listed
// with Slack's answer, and re-posted to a channel someone chooses. A re-post is claimed first (a lease,
// so a double click or two replicas post it once; let go only by the re-post that took it), and once
// Slack took it the letter leaves the list.
// The dead-letter list itself stays append-only: a re-posted letter is recorded beside it.
import { randomUUID } from 'node:crypto';
import type { CngnEnvironment } from '../cngn/api.js';
import { escapeMrkdwn, mentionChannel, mentionUser } from '../format/mrkdwn.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/index.js';
import { alertFor, type BankNameLookup, bankNameWithin } from './alert.js';
import { type AlertBlocks, type AlertSink, failureReason, type SinkAnswer } from './alert-sink.js';
import { dedupeKey, outboxIdFor } from './keys.js';
import type { Outbox } from './outbox.js';
import { CLAIM_LEASE_MS, whilePosting } from './post-lock.js';
import type { AlertOrigin, DeadLetter, OutboxEntry, RenderAlert } from './types.js';

const REPOSTED_SET = 'webhooks:dead-letters:reposted';
const claimKey = (id: string) => `webhooks:dead-letters:repost-claim:${id}`;
const recordKey = (id: string) => `webhooks:dead-letters:reposted:${id}`;
const CLAIM_MS = CLAIM_LEASE_MS;

/** Where and by whom a dead letter was re-posted. */
export interface RepostRecord {
  id: string;
  channel: string;
  by: string;
  at: string;
  ts?: string;
}

export type RepostResult =
  | { ok: true; letter: DeadLetter; channel: string; ts?: string }
  | { ok: false; reason: 'not-found' | 'ambiguous' | 'busy'; letter?: DeadLetter }
  | { ok: false; reason: 'refused'; letter: DeadLetter; slackError: string };

/** What Slack answered a re-post: what the audit entry records. */
export type RepostOutcome = Extract<RepostResult, { ok: true } | { reason: 'refused' }>;

export interface DeadLetterDeskOptions {
  outbox: Outbox;
  store: Store;
  sink: AlertSink;
  render: RenderAlert;
  environment: CngnEnvironment;
  bankName?: BankNameLookup | undefined;
  log: Logger;
  now?: () => Date;
}

export class DeadLetterDesk {
  constructor(private readonly options: DeadLetterDeskOptions) {}

  /** Letters not re-posted yet, oldest first (one per alert, its latest setting-aside). */
  async open(): Promise<DeadLetter[]> {
    const [letters, reposted] = await Promise.all([
      this.options.outbox.deadLetters(),
      this.options.store.setMembers(REPOSTED_SET),
    ]);
    const done = new Set(reposted);
    const latest = new Map<string, DeadLetter>();
    for (const letter of letters) if (!done.has(letter.id)) latest.set(letter.id, letter);
    return [...latest.values()];
  }

  /** An open letter by its id or a unique start of it (as the list shows it). */
  async find(idOrStart: string): Promise<DeadLetter | 'ambiguous' | undefined> {
    const word = idOrStart.trim().toLowerCase();
    if (!word) return undefined;
    const open = await this.open();
    const exact = open.find((l) => l.id.toLowerCase() === word);
    if (exact) return exact;
    const matches = open.filter((l) => l.id.toLowerCase().startsWith(word));
    if (matches.length > 1) return 'ambiguous';
    return matches[0];
  }

  /**
   * Post the letter's alert to `channel`, saying who re-posted it; it leaves the list once Slack took
   * it. `record` (the audit entry) runs once Slack has answered, while the letter is still claimed and
   * before it leaves the list: an entry that cannot be written keeps the letter in the list, so no
   * re-post ever goes unrecorded (a second re-post is then possible, and recorded too).
   */
  async repost(
    idOrStart: string,
    channel: string,
    by: string,
    record: (outcome: RepostOutcome) => Promise<void> = async () => {},
  ): Promise<RepostResult> {
    const found = await this.find(idOrStart);
    if (found === 'ambiguous') return { ok: false, reason: 'ambiguous' };
    if (!found) return { ok: false, reason: 'not-found' };
    const letter = found;
    const { store } = this.options;
    // A read of the service, bounded and before the claim: no claim is held across it (alert.ts).
    const bankName = await bankNameWithin(this.entryFrom(letter), this.options.bankName);
    // Whose claim it is, down to the click: one person's two re-posts on two replicas are two holders.
    const claim = { by, token: randomUUID() };
    if (!(await store.setIfAbsent(claimKey(letter.id), claim, CLAIM_MS)))
      return { ok: false, reason: 'busy', letter };
    try {
      // Under the same post lock as an alert's (post-lock.ts): a claim that lapsed during a slow post
      // and was taken by another re-post waits for this one, then finds it re-posted.
      const repost = () => this.repostClaimed(letter, { channel, by, bankName }, record);
      const result = await whilePosting(store, letter.id, repost, {
        log: this.options.log,
        claimMs: CLAIM_MS,
      });
      return result === 'busy' ? { ok: false, reason: 'busy', letter } : result;
    } finally {
      // A claim that lapsed during a slow post and was taken by another re-post stays theirs.
      await store.compareAndDelete(claimKey(letter.id), claim);
    }
  }

  /** The re-post itself, under the letter's claim and post lock (see repost). */
  private async repostClaimed(
    letter: DeadLetter,
    { channel, by, bankName }: { channel: string; by: string; bankName: string | undefined },
    record: (outcome: RepostOutcome) => Promise<void>,
  ): Promise<RepostResult> {
    const { store } = this.options;
    // Someone else's re-post may have finished between the listing and the claim.
    if ((await store.setMembers(REPOSTED_SET)).includes(letter.id))
      return { ok: false, reason: 'not-found', letter };
    const kept = await this.options.outbox.get(letter.id);
    const entry = kept ?? this.entryFrom(letter);
    const message = alertFor(entry, { render: this.options.render, bankName, log: this.options.log });
    // An old letter whose entry has expired: its environment is today's guess, and the re-post says so.
    const unrecorded =
      !kept && !letter.environment ? ' (environment not recorded; shown as the current one)' : '';
    const note = `Re-posted from the dead-letter list by ${mentionUser(by)}; first refused by Slack in ${mentionChannel(letter.channel)}: ${escapeMrkdwn(letter.reason)}${unrecorded}`;
    let answer = await this.post(channel, message.text, [
      ...message.blocks,
      { type: 'context', elements: [{ type: 'mrkdwn', text: note }] },
    ]);
    if (!answer.ok && answer.failure.kind === 'blocks') {
      answer = await this.post(channel, `${message.text}\n${note}`);
    }
    if (!answer.ok) {
      const refused = {
        ok: false as const,
        reason: 'refused' as const,
        letter,
        slackError: failureReason(answer.failure),
      };
      await record(refused);
      return refused;
    }
    const { ts } = answer;
    const posted = { ok: true as const, letter, channel, ...(ts ? { ts } : {}) };
    await record(posted);
    const at = (this.options.now?.() ?? new Date()).toISOString();
    await store.set<RepostRecord>(recordKey(letter.id), {
      id: letter.id,
      channel,
      by,
      at,
      ...(ts ? { ts } : {}),
    });
    await store.addToSet(REPOSTED_SET, letter.id);
    return posted;
  }

  reposted(id: string): Promise<RepostRecord | undefined> {
    return this.options.store.get<RepostRecord>(recordKey(id));
  }

  private post(channel: string, text: string, blocks?: AlertBlocks): Promise<SinkAnswer> {
    return this.options.sink.post({ channel, text, ...(blocks ? { blocks } : {}) });
  }

  /**
   * The outbox keeps entries for its retention period; the letter itself keeps the whole event and what
   * it was rendered with (letters written before that was recorded take the current environment).
   */
  private entryFrom(letter: DeadLetter): OutboxEntry {
    return {
      id: letter.id,
      seq: 0,
      origin: letter.origin ?? originOf(letter),
      environment: letter.environment ?? this.options.environment,
      event: letter.event,
      enqueuedAt: letter.at,
      ...(letter.unreadable?.length ? { unreadable: letter.unreadable } : {}),
      ...(letter.stale ? { stale: letter.stale } : {}),
      ...(letter.refused ? { refused: letter.refused } : {}),
    };
  }
}

/** A letter written before its origin was recorded: the reconciler's entries are kept under an id of their own. */
function originOf(letter: DeadLetter): AlertOrigin {
  return letter.id === outboxIdFor('reconciler', dedupeKey(letter.event)) ? 'reconciler' : 'webhook';
}

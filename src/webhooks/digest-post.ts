// Posting one recorded digest, in steps a crash can stop between and the next run resumes: a
// placeholder that names no event (its ts recorded once), the events filled in with chat.update (safe
// to repeat: it replaces the message in place), then the entries marked delivered and the digest
// closed. Each step already done, by this process before a retry or by one that died, is skipped.
import { escapeMrkdwn } from '../format/mrkdwn.js';
import type { Logger } from '../log.js';
import { type AlertSink, failureReason, type PostFailure } from './alert-sink.js';
import { alertInputOf, blocksAsText } from './digest.js';
import type { Outbox } from './outbox.js';
import type { DeliveryOutcome } from './post-policy.js';
import type { DigestInput, DigestRecord, DigestRendering, OutboxEntry } from './types.js';

export interface DigestPost {
  outbox: Outbox;
  sink: AlertSink;
  render: DigestRendering;
  log: Logger;
  owner: string;
  leaseMs: number;
  fallbackChannel: string | undefined;
  /** Slack refused the blocks before: fill in the events as text. */
  textOnly: boolean;
  /** This attempt's number, for the dead-letter record. */
  attempts: number;
  /** What a failed call means: wait, reroute, drop the blocks, or give up. */
  classify(failure: PostFailure): DeliveryOutcome;
}

export async function postDigest(
  post: DigestPost,
  record: DigestRecord,
  channel: string,
): Promise<DeliveryOutcome> {
  const { outbox } = post;
  let current = await claimCurrent(post, record, channel);
  if (!current) return { kind: 'skip' };
  const entries = (await Promise.all(current.entryIds.map((id) => outbox.get(id)))).filter(
    (e): e is OutboxEntry => e !== undefined,
  );
  const open = entries.filter((e) => !e.deliveredAt && !e.deadLetteredAt);
  if (open.length === 0) {
    await outbox.closeDigest(current.id, post.owner);
    return { kind: 'skip' };
  }
  // The message lists every event the record carries, also those marked delivered before a crash.
  const input: DigestInput = {
    alerts: entries.filter((e) => !e.deadLetteredAt).map(alertInputOf),
    environment: entries[0]!.environment,
    part: current.part,
    more: current.more,
  };
  if (!current.filledAt) {
    const filledIn = await fillIn(post, current, open, channel, input);
    if ('kind' in filledIn) return filledIn;
    current = filledIn;
  }
  const filled = current;
  await Promise.all(open.map((entry) => outbox.markDelivered(entry, filled.ts, channel, post.owner, filled)));
  await outbox.closeDigest(current.id, post.owner);
  return { kind: 'done', posted: open.length };
}

/** The digest claimed and read again, moved to `channel` if it was handed there; undefined when it is gone. */
async function claimCurrent(
  post: DigestPost,
  record: DigestRecord,
  channel: string,
): Promise<DigestRecord | undefined> {
  const { outbox } = post;
  if (!(await outbox.claimDigest(record.id, post.owner, post.leaseMs))) return undefined;
  const current = await outbox.getDigest(record.id);
  if (!current) {
    await outbox.closeDigest(record.id, post.owner);
    return undefined;
  }
  if (current.channel === channel) return current;
  // Handed to the fallback channel: it starts again there, with a placeholder of its own.
  const moved = { ...current, channel };
  await outbox.saveDigest(moved);
  return (await outbox.getDigest(record.id)) ?? moved;
}

/**
 * Post the placeholder (unless it was posted before), then fill it in with the events; answers the
 * record as filled, or the outcome of a call Slack refused.
 */
async function fillIn(
  post: DigestPost,
  record: DigestRecord,
  open: OutboxEntry[],
  channel: string,
  input: DigestInput,
): Promise<DigestRecord | DeliveryOutcome> {
  const { outbox, sink, render } = post;
  let current = record;
  if (!current.ts) {
    const placeholder = render.placeholder(input);
    const posted = await sink.post({ channel, text: placeholder.text, blocks: placeholder.blocks });
    if (!posted.ok) return failed(post, current, open, channel, posted.failure);
    if (!posted.ts) throw new Error('Slack accepted the digest placeholder without a ts');
    current = { ...current, ts: await outbox.recordDigestTs(current, posted.ts) };
  }
  const message = render.message(input);
  const ts = current.ts;
  if (!ts) throw new Error('the digest has no placeholder to fill in');
  const filled = await sink.update(
    post.textOnly
      ? { channel, ts, text: blocksAsText(message), blocks: [] }
      : { channel, ts, text: message.text, blocks: message.blocks },
  );
  if (!filled.ok) return failed(post, current, open, channel, filled.failure);
  current = { ...current, filledAt: new Date().toISOString() };
  await outbox.saveDigest(current);
  return current;
}

async function failed(
  post: DigestPost,
  record: DigestRecord,
  open: OutboxEntry[],
  channel: string,
  failure: PostFailure,
): Promise<DeliveryOutcome> {
  const outcome = post.classify(failure);
  if (outcome.kind === 'give-up') await setAside(post, record, open, channel, outcome.reason);
  else await post.outbox.releaseDigest(record.id, post.owner);
  return outcome;
}

/** Slack will not take the digest: its events go to the dead-letter list, each as a single alert would. */
async function setAside(
  post: DigestPost,
  record: DigestRecord,
  open: OutboxEntry[],
  channel: string,
  reason: string,
): Promise<void> {
  const { outbox, sink, log } = post;
  for (const entry of open) await outbox.moveToDeadLetters(entry, channel, reason, post.attempts, post.owner);
  await outbox.saveDigest({ ...record, deadLetteredAt: new Date().toISOString() });
  await outbox.closeDigest(record.id, post.owner);
  const line = `An alert digest of ${open.length} event(s) could not be posted to ${channel}: Slack answered ${reason}. Its events were set aside in the dead-letter list.`;
  log.error(`${line} (digest ${record.id})`);
  // The placeholder, if there is one, says where its events went; best effort.
  if (record.ts) {
    const noted = await sink.update({ channel, ts: record.ts, text: escapeMrkdwn(line), blocks: [] });
    if (!noted.ok) {
      log.warn(`could not note the set-aside digest in ${channel}: ${failureReason(noted.failure)}`);
    }
  }
  const fallback = post.fallbackChannel;
  if (!fallback || fallback === channel) return;
  const told = await sink.post({ channel: fallback, text: escapeMrkdwn(line) });
  if (!told.ok)
    log.warn(`could not tell ${fallback} about the set-aside digest: ${failureReason(told.failure)}`);
}

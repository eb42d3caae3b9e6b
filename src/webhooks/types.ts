// Shapes shared by the webhook pipeline, the outbox, the reconciler and the message builders.
import type { CngnEnvironment } from '../cngn/api.js';
import type { WebhookEvent } from '../cngn/schemas.js';

/** Where an alert came from: a signed delivery, or the reconciler noticing what no delivery told. */
export type AlertOrigin = 'webhook' | 'reconciler';

/** Why a signed time does not vouch for a delivery: too old, or ahead of the bot's clock. */
export type StaleKind = 'old' | 'ahead';
/** A stale delivery's kind; `true` where it was written before the kind was recorded. */
export type Stale = StaleKind | true;

/**
 * A delivery the approvals side would not settle anything by, for a person to check: one of its
 * references names another environment's request, or they name two different requests.
 */
export interface RefusedReport {
  why: 'other-environment' | 'two-requests';
  /** The environment the bot talks to. */
  ourEnvironment: string;
  /** Each reference the delivery gave, the request it names ('none') and that request's environment. */
  named: Array<{ reference: string; requestId: string; environment: string }>;
}

/** What a message builder needs: the event, where it came from, and which environment it is. */
export interface AlertInput {
  event: WebhookEvent;
  origin: AlertOrigin;
  environment: CngnEnvironment;
  /** The receiver's bank name, looked up from its code when the event carries only the code. */
  bankName?: string;
  /** Fields of the delivery that could not be read (left out of `event`): post it generically. */
  unreadable?: string[];
  /** Its signed time does not vouch for it (see OutboxEntry.stale): post only a warning for a person. */
  stale?: Stale;
  /** Not the event's alert: what settling by it was refused for (see RefusedReport), for a person. */
  refused?: RefusedReport;
}

/** A rendered Slack message (text is the notification/fallback, blocks the body). */
export interface AlertMessage {
  text: string;
  // Block Kit blocks; kept loose here so webhooks/ does not depend on Slack's type package.
  blocks: ReadonlyArray<Record<string, unknown>>;
}

export type RenderAlert = (input: AlertInput) => AlertMessage;

/** One message of an alert digest: the events it lists, in the order they were accepted. */
export interface DigestInput {
  alerts: AlertInput[];
  environment: CngnEnvironment;
  /** 1 for the first message of a run of digests, 2 for its first follow-up, … */
  part: number;
  /** More events were waiting for the channel when this part was planned (a follow-up comes). */
  more: boolean;
}

/** The digest builders (slack/alerts/digest-blocks.ts), injected like RenderAlert. */
export interface DigestRendering {
  /** The message listing the events (posted into the placeholder with chat.update). */
  message(input: DigestInput): AlertMessage;
  /** What is posted first: names no event, so a copy left by a crash repeats nothing. */
  placeholder(input: DigestInput): AlertMessage;
}

/**
 * Called once per new (non-duplicate) event, e.g. by approvals to update a matching request, with the
 * fields reading left out of it (a field present but unreadable is not the same as one never sent) and
 * the id of the delivery's outbox entry.
 */
export type WebhookSubscriber = (
  event: WebhookEvent,
  unreadable: readonly string[],
  delivery: string,
) => Promise<void>;

/** One message waiting in (or delivered from) the durable outbox. */
export interface OutboxEntry {
  id: string;
  /** Sort key: enqueue time in ms × 1000 + a per-process counter. */
  seq: number;
  origin: AlertOrigin;
  environment: CngnEnvironment;
  event: WebhookEvent;
  /** Fields that could not be read, and the body as it came (kept for whoever looks into it). */
  unreadable?: string[];
  raw?: unknown;
  /**
   * Its signed time does not vouch for it: `old`, older than the records that dedupe it live (perhaps a
   * recorded copy sent again); `ahead`, dated hours ahead of the bot's clock (one of the clocks is
   * wrong); `true` in entries written before the kind was recorded. Posted only as a warning for a
   * person, alone; no subscriber hears of it and it claims no final state.
   */
  stale?: Stale;
  /** A needs-a-person alert about the delivery `threadOf` names, not the event's own alert. */
  refused?: RefusedReport;
  /** The reference whose messages must stay in order. */
  orderKey?: string;
  /** The previous entry for the same reference: this one waits until that one is delivered. */
  after?: string;
  /** Post as a reply in the thread of this (earlier) entry's message. */
  threadOf?: string;
  enqueuedAt: string;
  deliveredAt?: string;
  /** Slack message ts once posted. */
  ts?: string;
  postedChannel?: string;
  /** Set aside: Slack can never accept it (or refused it too often); see Outbox.deadLetters(). */
  deadLetteredAt?: string;
  deadLetterReason?: string;
  /** Posted as part of this digest (see DigestRecord); `ts` is then the digest message's. */
  digestId?: string;
  digestPart?: number;
}

/**
 * One digest message, recorded (with the events it carries) before anything is posted. Posting is two
 * steps: a placeholder naming no event (its ts recorded once), then chat.update with the events, which
 * can be repeated after a crash without showing any event twice.
 */
export interface DigestRecord {
  id: string;
  channel: string;
  part: number;
  more: boolean;
  entryIds: string[];
  createdAt: string;
  /** The placeholder's ts in `channel`, once recorded (kept under its own key, set once). */
  ts?: string;
  /** Slack accepted the events into the message; what is left is marking them delivered. */
  filledAt?: string;
  /** Refused for good: its events were moved to the dead-letter list. */
  deadLetteredAt?: string;
}

/** An alert moved aside from the outbox, kept whole so an operator can read or replay it. */
export interface DeadLetter {
  id: string;
  channel: string;
  reason: string;
  attempts: number;
  at: string;
  event: WebhookEvent;
  /**
   * What the alert was rendered with, kept here since the outbox entry expires before the letter does.
   * Absent from letters written before they were recorded.
   */
  environment?: CngnEnvironment;
  /** Absent from letters written before it was recorded (their id tells it). */
  origin?: AlertOrigin;
  unreadable?: string[];
  stale?: Stale;
  refused?: RefusedReport;
}

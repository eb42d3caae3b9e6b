// Shows each persisted step of a request in Slack: the approvals-channel message updated in place, a
// reply in its thread, and a private note to the requester for the steps that concern them.
// Runs after the engine has persisted the change, so a Slack failure never loses or repeats a step.
// The engine waits for it (a filed request counts as seen once its message is up), except where money
// is about to move: an approved request is sent without waiting for Slack.
// What each message last showed, and which replies and notes went out, is kept in the store: a Slack
// error (after the client's own retries) or a crash is made good on the request's next change and at
// start-up, and nothing already said is said again.
import type { WebClient } from '@slack/web-api';
import {
  type ApprovalEngine,
  type ApprovalRequest,
  FINAL_STATES,
  type Freeze,
  needsAPerson as isNeedsAPersonNote,
  LOOKED_UP_BEFORE_SENDING,
} from '../../approvals/index.js';
import type { RequestState } from '../../audit/index.js';
import type { Logger } from '../../log.js';
import { LOCK_DEFAULTS, type Store } from '../../store/index.js';
import { CoalescedRuns } from '../runtime/coalesced-runs.js';
import type { SlackMessage } from '../types.js';
import { IN_THE_BOT } from '../ui/words.js';
import { checksThreadText } from './blocks/checks.js';
import { approvalMessage, conflictAlert, evidenceAlert, NEEDS_A_PERSON_NOTICES } from './blocks/message.js';
import { cancelElsewhereNotice, hasCancel, shortApprovalMessages } from './blocks/short-message.js';
import { requesterNotice, threadReply } from './blocks/steps.js';
import { sendOrShort } from './refused-body.js';

export interface PresenterOptions {
  /** Configured with retries and rate-limit waits (see `presenterClientOptions`). */
  client: WebClient;
  store: Store;
  channel: string;
  /** Where a step that needs a person is also posted (CNGN_ALERTS_CHANNEL); unset: the approvals channel. */
  alertsChannel?: string | undefined;
  /** False when approvers are asked by DM only (CNGN_APPROVAL_NOTIFY=dm): no Approve/Reject here. */
  approverButtons?: boolean;
  now?: () => Date;
  log?: Pick<Logger, 'warn'>;
}

/**
 * Retries with backoff on HTTP errors and waits out 429 Retry-After, within about a quarter of a minute
 * (plus the waits Slack asks for and the request timeouts), so a Slack outage holds a request's message
 * for a bounded time; what is still unshown is shown later.
 */
export const PRESENTER_RETRIES = {
  retries: 5,
  factor: 2,
  minTimeout: 500,
  maxTimeout: 8_000,
  randomize: true,
};

/** A Slack call that has not answered within this is abandoned (and retried as above). */
export const PRESENTER_REQUEST_TIMEOUT_MS = 10_000;

/** States in which the service call comes next: the engine never waits on Slack for them. */
const SENT_WITHOUT_WAITING: ReadonlySet<RequestState> = new Set<RequestState>(['approved', 'executing']);

/** What a request's Slack side has shown so far. History indexes count steps. */
export interface Shown {
  message?: { channel: string; ts: string };
  /** The state, round and number of steps the message showed when last rendered. */
  state?: RequestState;
  round?: number;
  steps?: number;
  /** When the freeze of sends it showed began; absent: it showed none. */
  frozen?: string;
  /** Steps before this index have had their thread reply. */
  threaded: number;
  /** Steps before this index have had their requester note (or needed none). */
  told: number;
  /** Steps before this index have had their alert for a person (or needed none); unset: as `threaded`. */
  alerted?: number;
  /** The message was shown without the Cancel its request offers: the requester must be told how to stop it. */
  cancelHidden?: boolean;
  /** The requester was told (by DM) how to stop the request without its Cancel. */
  toldCancelHidden?: boolean;
  /** The newest step of the history the indexes above count (rebaseIfRewritten). */
  seen?: { steps: number; at: string; action: string };
}

const shownKey = (id: string) => `approval-shown:${id}`;
/** Requests with something still to show (added before the first Slack call, removed when all is shown). */
const UNSHOWN_SET = 'approvals:unshown';
/**
 * Held across a request's Slack calls by one replica; waiters wait long enough for the client's
 * retries. Its holder renews the lease while it runs, so the lease only counts when the holder died:
 * then the others wait no longer than for any lock, so a restart's sweep is not held up.
 */
const SHOW_LOCK = { ttlMs: LOCK_DEFAULTS.ttlMs, waitMs: 120_000 };

/** The request as it stood after step `index`: its thread reply and note speak of that step. */
const atStep = (request: ApprovalRequest, index: number): ApprovalRequest => ({
  ...request,
  history: request.history.slice(0, index + 1),
});

export class ApprovalPresenter {
  private readonly now: () => Date;
  private readonly runs: CoalescedRuns;
  private retryTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly engine: ApprovalEngine,
    private readonly options: PresenterOptions,
  ) {
    this.now = options.now ?? (() => new Date());
    this.runs = new CoalescedRuns(options.store, SHOW_LOCK, (id, error) => {
      this.options.log?.warn('could not show an approval step in Slack; it is shown again later', {
        requestId: id,
        error: String(error),
      });
    });
  }

  /**
   * Present every persisted change from now on. The engine is not held up for a request on its way
   * to the service: that work is tracked (idle() waits for it at shutdown) and shows the newest state.
   */
  listen(): void {
    this.engine.onChange(async (request) => {
      const shown = this.present(request.id);
      if (!SENT_WITHOUT_WAITING.has(request.state)) await shown;
    });
  }

  /**
   * At start-up: render again the message of every open request (its buttons and expiry must be
   * current), and finish whatever a crash or a Slack failure left unshown for the others. Never throws.
   */
  recover(): Promise<void> {
    return this.track(
      (async () => {
        const open = await this.engine.openRequests();
        const openIds = new Set(open.map((r) => r.id));
        const unshown = await this.options.store.setMembers(UNSHOWN_SET);
        for (const id of new Set([...openIds, ...unshown])) {
          await this.present(id, { render: openIds.has(id) });
        }
      })().catch((error: unknown) => {
        this.options.log?.warn('could not look for approval messages to show again', {
          error: String(error),
        });
      }),
    );
  }

  /**
   * What a Slack outage longer than the client's retries left stale is shown again: every request not
   * yet fully shown is brought up to date (one already current costs store reads only). Never throws.
   */
  retryUnshown(): Promise<void> {
    return this.track(
      (async () => {
        for (const id of await this.options.store.setMembers(UNSHOWN_SET)) await this.present(id);
      })().catch((error: unknown) => {
        this.options.log?.warn('could not look for approval messages to show again', {
          error: String(error),
        });
      }),
    );
  }

  /** The freeze of sends began or ended: every open request's message shows it now. Never throws. */
  freezeChanged(): Promise<void> {
    return this.track(
      (async () => {
        for (const request of await this.engine.openRequests()) await this.present(request.id);
      })().catch((error: unknown) => {
        this.options.log?.warn('could not show the freeze on the approval messages', {
          error: String(error),
        });
      }),
    );
  }

  /** Run retryUnshown every `everyMs` until stop(). */
  retryEvery(everyMs: number): void {
    this.stop();
    this.retryTimer = setInterval(() => void this.retryUnshown(), everyMs);
    this.retryTimer.unref();
  }

  /** Stop the periodic retries (shutdown); work under way is waited for with idle(). */
  stop(): void {
    if (this.retryTimer) clearInterval(this.retryTimer);
    this.retryTimer = undefined;
  }

  /**
   * Bring the request's Slack side up to date with its stored state. Never throws. A run already
   * waiting for the request's lock will read the newest state, so it stands for this one too.
   */
  present(id: string, options: { render?: boolean } = {}): Promise<void> {
    return this.runs.run(id, `approval-shown:${id}`, () => this.bringUpToDate(id, options.render ?? false), {
      fresh: options.render ?? false,
    });
  }

  /** Resolves when presentations started so far have finished (tests, shutdown). */
  idle(): Promise<void> {
    return this.runs.idle();
  }

  private track(work: Promise<void>): Promise<void> {
    return this.runs.track(work);
  }

  private async bringUpToDate(id: string, render: boolean): Promise<void> {
    const { store } = this.options;
    // Render the newest stored state, so a late notification never paints an older picture.
    const request = await this.engine.get(id);
    if (!request) return store.removeFromSet(UNSHOWN_SET, id);
    await store.addToSet(UNSHOWN_SET, id);
    const shown = (await store.get<Shown>(shownKey(id))) ?? firstShown(request);
    shown.alerted ??= shown.threaded;
    rebaseIfRewritten(shown, request);
    const save = () => store.set(shownKey(id), shown);
    const failures: unknown[] = [];
    const attempt = async (step: () => Promise<void>) => {
      try {
        await step();
      } catch (error) {
        failures.push(error);
      }
    };

    await attempt(async () => {
      await this.showMessage(request, shown, render);
      await save();
      // Once per request: a DM is the one place left to say how it can still be stopped.
      if (shown.cancelHidden && !shown.toldCancelHidden) {
        const text = cancelElsewhereNotice(request);
        await this.options.client.chat.postMessage({ channel: request.requester, text });
        shown.toldCancelHidden = true;
        await save();
      }
    });
    // Each step's reply and note once, in order; the record moves on only after Slack took it.
    await attempt(async () => {
      const where = shown.message;
      if (!where && !FINAL_STATES.has(request.state)) return; // replies wait for the message
      for (let index = shown.threaded; index < request.history.length; index++) {
        const step = atStep(request, index);
        // The filing step's reply is its checks (none: no reply); a notice from the engine (bridge
        // callback, manual check needed, …) is its own sentence.
        const text =
          step.history.at(-1)?.action === 'filed' ? checksThreadText(step, this.now()) : threadReply(step);
        if (where && text) {
          await this.options.client.chat.postMessage({ channel: where.channel, thread_ts: where.ts, text });
        }
        shown.threaded = index + 1;
        await save();
      }
    });
    await attempt(async () => {
      for (let index = shown.told; index < request.history.length; index++) {
        const notice = requesterNotice(atStep(request, index));
        // Posting to a user id lands in the app's DM with them.
        if (notice) await this.options.client.chat.postMessage({ channel: request.requester, text: notice });
        shown.told = index + 1;
        await save();
      }
    });

    // The service contradicted itself about the request, or an approval's evidence did not verify
    // before sending: a person must check, so it is said where alerts are watched too, not only in the
    // request's thread.
    await attempt(async () => {
      for (let index = shown.alerted ?? 0; index < request.history.length; index++) {
        const alert = alertFor(atStep(request, index));
        if (alert) {
          const channel = this.options.alertsChannel ?? this.options.channel;
          await this.options.client.chat.postMessage({ channel, ...alert });
        }
        shown.alerted = index + 1;
        await save();
      }
    });

    if (failures.length > 0) throw failures[0];
    const allSaid =
      shown.threaded === request.history.length &&
      shown.told === request.history.length &&
      shown.alerted === request.history.length;
    const finalShown = shown.state === request.state || shown.message === undefined;
    if (FINAL_STATES.has(request.state) && finalShown && allSaid) await store.removeFromSet(UNSHOWN_SET, id);
  }

  /**
   * Send the message; where Slack refuses its body, send the short forms in turn instead (with the
   * buttons, with Reject and Cancel only, then without), so the message still follows the request
   * rather than the refused body being retried at every run. `cancelHidden`: the form sent lacks the
   * Cancel the full message offers.
   */
  private async orInShort<T>(
    request: ApprovalRequest,
    message: SlackMessage,
    freeze: Freeze | undefined,
    send: (body: SlackMessage) => Promise<T>,
  ): Promise<{ sent: T; cancelHidden: boolean }> {
    const forms = shortApprovalMessages(request, message, freeze);
    const sent = await sendOrShort([message, ...forms], send, (at, reason) => {
      const words = at === 0 ? 'it is shown in short' : 'a shorter form is shown';
      this.options.log?.warn(`Slack refused an approval message; ${words}`, {
        requestId: request.id,
        error: reason,
      });
    });
    return { sent: sent.answer, cancelHidden: hasCancel(message) && !hasCancel(sent.body) };
  }

  /** Post the approval message once, or update it when it shows something else than the stored state. */
  private async showMessage(request: ApprovalRequest, shown: Shown, render: boolean): Promise<void> {
    const { client } = this.options;
    // Read at each rendering, from the store: a freeze made on another replica shows here too.
    const freeze = await this.engine.currentFreeze();
    const buttons = { approve: this.options.approverButtons !== false };
    const message = approvalMessage(request, this.now(), buttons, freeze, (r) =>
      this.engine.approvalsShown(r),
    );
    const where = shown.message;
    if (!where) {
      // A request that ended before approvers ever saw it gets no message now.
      if (FINAL_STATES.has(request.state)) return;
      const { sent: posted, cancelHidden } = await this.orInShort(request, message, freeze, (body) =>
        client.chat.postMessage({ channel: this.options.channel, ...body }),
      );
      shown.cancelHidden = cancelHidden;
      if (!posted.ts || !posted.channel) throw new Error('chat.postMessage answered without ts or channel');
      shown.message = { channel: posted.channel, ts: posted.ts };
      await this.engine.attachMessage(request.id, posted.channel, posted.ts);
    } else {
      const current =
        shown.state === request.state &&
        shown.round === request.round &&
        shown.steps === request.history.length &&
        (shown.frozen === freeze?.at || FINAL_STATES.has(request.state));
      if (current && !render) return;
      const { cancelHidden } = await this.orInShort(request, message, freeze, (body) =>
        client.chat.update({ channel: where.channel, ts: where.ts, ...body }),
      );
      shown.cancelHidden = cancelHidden;
    }
    shown.state = request.state;
    shown.round = request.round;
    shown.steps = request.history.length;
    shown.frozen = freeze?.at;
  }
}

/** The alert for a person that the request's newest step calls for, if any. */
function alertFor(request: ApprovalRequest) {
  const step = request.history.at(-1);
  if (step && NEEDS_A_PERSON_NOTICES.has(step.action)) return conflictAlert(request);
  // Settled before sending as the signed chain records it (completed, or called), before the claim or
  // right before the call: the store was changed.
  const settledOnChain = step?.action === LOOKED_UP_BEFORE_SENDING || step?.action === 'outcome-unknown';
  if (settledOnChain && step?.note && isNeedsAPersonNote(step.note)) return conflictAlert(request, step.note);
  const note = step?.action === 'failed' ? needsAPerson(request, step.note) : undefined;
  return note ? evidenceAlert(request, note) : undefined;
}

/**
 * Why a failed request needs a person: its step's note (the executor's failure before its call), or
 * the reason a write to the bot's own store failed with once found there (the tracker's: these kinds
 * are never settled by the service, so the reason is the bot's own words).
 */
function needsAPerson(request: ApprovalRequest, note: string | undefined): string | undefined {
  if (note && isNeedsAPersonNote(note)) return note;
  const reason = request.outcome?.reason;
  return reason && IN_THE_BOT.has(request.kind) && isNeedsAPersonNote(reason) ? reason : undefined;
}

/**
 * A history rewritten outside the bot (a store writer set a closed request back to approved, cutting
 * its steps) no longer holds the step last seen at its index: the indexes would skip the bot's own
 * steps appended since, and their alerts. They are cut back to the steps older than that one; a step
 * as old may be told twice, never a newer one not at all.
 */
function rebaseIfRewritten(shown: Shown, request: ApprovalRequest): void {
  const { seen } = shown;
  const step = seen && request.history[seen.steps - 1];
  if (seen && !(step && step.at === seen.at && step.action === seen.action)) {
    const newer = request.history.findIndex((h) => h.at >= seen.at);
    const older = newer === -1 ? request.history.length : newer;
    shown.threaded = Math.min(shown.threaded, older);
    shown.told = Math.min(shown.told, older);
    shown.alerted = Math.min(shown.alerted ?? shown.threaded, older);
  }
  const last = request.history.at(-1);
  shown.seen = last && { steps: request.history.length, at: last.at, action: last.action };
}

/**
 * The record of a request seen for the first time: nothing shown, except the filing step's note and
 * alert (it has none) and, for a request filed without checks, its thread reply (it has none). A
 * request whose message was posted before this record existed is taken as fully told, so an upgrade
 * re-renders its message but repeats nothing.
 */
function firstShown(request: ApprovalRequest): Shown {
  if (request.announcement) {
    const steps = request.history.length;
    return { message: request.announcement, threaded: steps, told: steps, alerted: steps };
  }
  return { threaded: request.preflight ? 0 : 1, told: 1, alerted: 1 };
}

// Tells each eligible approver of a new request by DM (CNGN_APPROVAL_NOTIFY=dm|both), with the figures
// and the channel's own Approve / Reject buttons, and keeps those copies current: when the request moves
// on, every copy is updated in place, so no stale button stays live. A click on a copy goes through the
// same handler and engine path as the channel's (round binding, one claim); a copy that is out of date
// when clicked changes nothing and the person is told why privately.
// Runs after the engine persisted the change. Where each copy is, and what it last showed, is kept in
// the store per request, so a restart or a Slack failure is made good on the next change or at start-up.
import type { WebClient } from '@slack/web-api';
import type { Delegation } from '../../access/index.js';
import type { ApprovalEngine } from '../../approvals/index.js';
import { type ApprovalRequest, FINAL_STATES, type Freeze } from '../../approvals/index.js';
import type { Logger } from '../../log.js';
import type { Store } from '../../store/index.js';
import { CoalescedRuns } from '../runtime/coalesced-runs.js';
import type { SlackMessage } from '../types.js';
import { approvalDm, type DelegatePlace, placeNote } from './blocks/dm.js';
import { SHORT_DM_NOTE, shortApprovalMessages } from './blocks/short-message.js';
import { sendOrShort } from './refused-body.js';

export interface ApprovalDmsOptions {
  engine: ApprovalEngine;
  /** Configured with retries and rate-limit waits, like the presenter's. */
  client: WebClient;
  store: Store;
  now?: () => Date;
  log?: Pick<Logger, 'warn'>;
  /**
   * Whether Slack describes `user` as someone who may act here (a member of the bot's workspace, no
   * guest, bot or deactivated account); others get no copy whatever a setting lists. Absent: everyone.
   */
  mayAct?: (user: string) => Promise<boolean>;
}

/** What a copy showed when last rendered. */
interface Rendering {
  state: ApprovalRequest['state'];
  round: number;
  steps: number;
  /** When the freeze of sends it showed began; absent: none. */
  frozen?: string | undefined;
  /** The approvals it showed as needed, when not its stored count (tiers raised since filing). */
  needed?: number | undefined;
}

interface DmCopy {
  user: string;
  channel: string;
  ts: string;
  shown: Rendering;
}

/** A request's DMs: the copies sent, and the approvers still to be told (a Slack failure leaves them here). */
export interface DmRecord {
  copies: DmCopy[];
  toTell: string[];
}

/** What one pass over a request's copies renders, and how it records each copy sent or updated. */
interface CopyWork {
  request: ApprovalRequest;
  now: Date;
  freeze: Freeze | undefined;
  /** How many approvals the request needs, from the engine. */
  needed: number;
  rendering: Rendering;
  placeOf: (user: string) => Promise<DelegatePlace | undefined>;
  /** An approver of the request's kind in their own right: their copy of an approved request keeps Reject. */
  ownRight: (user: string) => Promise<boolean>;
  save: (record: DmRecord) => Promise<unknown>;
}

const dmRecordKey = (id: string) => `approval-dms:${id}`;
/** Requests whose DM copies may still show an earlier state (looked at again at start-up). */
const UNSETTLED_SET = 'approval-dms:unsettled';
const DM_LOCK = { ttlMs: 120_000, waitMs: 120_000 };

const renderingOf = (request: ApprovalRequest, freeze: Freeze | undefined, needed: number): Rendering => ({
  state: request.state,
  round: request.round,
  steps: request.history.length,
  ...(freeze && !FINAL_STATES.has(request.state) ? { frozen: freeze.at } : {}),
  ...(needed !== request.requiredApprovals ? { needed } : {}),
});
const sameRendering = (a: Rendering, b: Rendering) =>
  a.state === b.state &&
  a.round === b.round &&
  a.steps === b.steps &&
  a.frozen === b.frozen &&
  a.needed === b.needed;

export class ApprovalDms {
  private readonly now: () => Date;
  private readonly runs: CoalescedRuns;

  constructor(private readonly options: ApprovalDmsOptions) {
    this.now = options.now ?? (() => new Date());
    this.runs = new CoalescedRuns(options.store, DM_LOCK, (id, error) => {
      this.options.log?.warn('could not bring approval DMs up to date; they are again on the next change', {
        requestId: id,
        error: String(error),
      });
    });
  }

  /** Follow every persisted change; the engine never waits for DMs. */
  listen(): void {
    this.options.engine.onChange(async (request) => {
      void this.present(request.id);
    });
  }

  /** At start-up: bring up to date the copies a crash or a Slack failure left behind. Never throws. */
  recover(): Promise<void> {
    return this.track(
      (async () => {
        for (const id of await this.options.store.setMembers(UNSETTLED_SET)) await this.present(id);
      })().catch((error: unknown) => {
        this.options.log?.warn('could not look for approval DMs to update', { error: String(error) });
      }),
    );
  }

  /** Bring the request's DMs up to date with its stored state. Never throws. */
  present(id: string): Promise<void> {
    return this.runs.run(id, dmRecordKey(id), () => this.bringUpToDate(id));
  }

  /** The freeze of sends began or ended: every open request's copies show it now. Never throws. */
  freezeChanged(): Promise<void> {
    return this.track(
      (async () => {
        for (const request of await this.options.engine.openRequests()) await this.present(request.id);
      })().catch((error: unknown) => {
        this.options.log?.warn('could not show the freeze on the approval DMs', { error: String(error) });
      }),
    );
  }

  /** Resolves when the work started so far has finished (tests, shutdown). */
  idle(): Promise<void> {
    return this.runs.idle();
  }

  private track(work: Promise<void>): Promise<void> {
    return this.runs.track(work);
  }

  private async bringUpToDate(id: string): Promise<void> {
    const { store, engine } = this.options;
    const request = await engine.get(id);
    if (!request) return store.removeFromSet(UNSETTLED_SET, id);
    // The delegations, read at most once for all of this request's copies (and only if one needs them).
    let read: Promise<Delegation[]> | undefined;
    const delegations = () => {
      read ??= engine.delegations();
      return read;
    };
    /** A delegate's place on the request, said on their copy; none for an approver in their own right. */
    const placeOf = async (user: string): Promise<DelegatePlace | undefined> => {
      if (request.state !== 'pending' || (await engine.isApprover(user, request.kind))) return undefined;
      const delegation = await engine.delegatePlace(request, user, await delegations());
      return delegation && { delegator: delegation.delegator, until: delegation.until };
    };
    const record = await this.recordOf(id, request, delegations);
    if (!record) return store.removeFromSet(UNSETTLED_SET, id);
    const save = (r: DmRecord) => store.set(dmRecordKey(id), r);
    const now = this.now();
    const freeze = await engine.currentFreeze();
    const needed = engine.approvalsShown(request);
    const rendering = renderingOf(request, freeze, needed);
    if (request.state !== 'pending' && record.toTell.length > 0) {
      record.toTell = [];
      await save(record);
    }
    const ownRight = async (user: string) =>
      request.state === 'approved' && (await engine.isApprover(user, request.kind));
    const work: CopyWork = { request, now, freeze, needed, rendering, placeOf, ownRight, save };
    const failures = [...(await this.tellNew(record, work)), ...(await this.updateCopies(record, work))];
    if (failures.length > 0) throw failures[0];
    if (FINAL_STATES.has(request.state)) await store.removeFromSet(UNSETTLED_SET, id);
  }

  /**
   * The request's record of copies; made (with who to tell) the first time. None for a request that
   * ended before any approver was told: it needs no DM.
   */
  private async recordOf(
    id: string,
    request: ApprovalRequest,
    delegations: () => Promise<Delegation[]>,
  ): Promise<DmRecord | undefined> {
    const { store, engine } = this.options;
    const record = await store.get<DmRecord>(dmRecordKey(id));
    if (record) return record;
    // Approvers are told of a request while it waits for them; one that ended first needs no DM.
    if (request.state !== 'pending') return undefined;
    const eligible = await engine.eligibleFor(request, await delegations());
    const mayAct = this.options.mayAct ?? (async () => true);
    const allowed = await Promise.all(eligible.map((user) => mayAct(user)));
    const fresh: DmRecord = { copies: [], toTell: eligible.filter((_, i) => allowed[i]) };
    await store.addToSet(UNSETTLED_SET, id);
    await store.set(dmRecordKey(id), fresh);
    return fresh;
  }

  /** A DM to each approver not told yet; each one posted is recorded at once. The failures are returned. */
  private async tellNew(record: DmRecord, work: CopyWork): Promise<unknown[]> {
    const { client } = this.options;
    const failures: unknown[] = [];
    for (const user of [...record.toTell]) {
      try {
        // Posting to a user id lands in the app's DM with them; Slack answers with the DM's channel.
        const copy = await copyFor(work, user);
        const posted = await this.orInShort(work, copy, (body) =>
          client.chat.postMessage({ channel: user, ...body }),
        );
        if (!posted.ts || !posted.channel) throw new Error('chat.postMessage answered without ts or channel');
        record.copies.push({ user, channel: posted.channel, ts: posted.ts, shown: work.rendering });
        record.toTell = record.toTell.filter((u) => u !== user);
        await work.save(record);
      } catch (error) {
        failures.push(error);
      }
    }
    return failures;
  }

  /** Send a copy; where Slack refuses its body, its short forms in turn (as the channel's message). */
  private async orInShort<T>(work: CopyWork, copy: Copy, send: (body: SlackMessage) => Promise<T>) {
    const { dm, place } = copy;
    const note = place && placeNote(place);
    const forms = shortApprovalMessages(work.request, dm, work.freeze, SHORT_DM_NOTE, note);
    const sent = await sendOrShort([dm, ...forms], send, (at, reason) => {
      const words = at === 0 ? 'it is sent in short' : 'a shorter form is sent';
      this.options.log?.warn(`Slack refused an approval DM; ${words}`, {
        requestId: work.request.id,
        error: reason,
      });
    });
    return sent.answer;
  }

  /** Each copy showing an earlier rendering, updated; the failures are returned. */
  private async updateCopies(record: DmRecord, work: CopyWork): Promise<unknown[]> {
    const { client } = this.options;
    const failures: unknown[] = [];
    for (const copy of record.copies) {
      if (sameRendering(copy.shown, work.rendering)) continue;
      try {
        await this.orInShort(work, await copyFor(work, copy.user), (body) =>
          client.chat.update({ channel: copy.channel, ts: copy.ts, ...body }),
        );
        copy.shown = work.rendering;
        await work.save(record);
      } catch (error) {
        failures.push(error);
      }
    }
    return failures;
  }
}

/** A DM copy, and the delegate's place it says (its short forms say it too). */
interface Copy {
  dm: SlackMessage;
  place: DelegatePlace | undefined;
}

/** The DM copy for `user` of the request as `work` holds it. */
async function copyFor(work: CopyWork, user: string): Promise<Copy> {
  const { request, now, freeze, needed } = work;
  const ownRight = await work.ownRight(user);
  const place = await work.placeOf(user);
  return { dm: approvalDm(request, now, user, place, freeze, ownRight, needed), place };
}

// Reminders at points of a pending request's lifetime (CNGN_APPROVAL_REMINDERS), driven by the periodic
// sweep rather than a timer, so they survive restarts and run once across replicas: a reminder is a
// history step written under the request's lock, and a point is sent only if no step of the current
// plan already covers it. A reminder never approves anything; it names who still may.

import { type ApprovalPolicy, countedPeople, type Delegation } from '../access/index.js';
import { approvalsShown } from './approvals-needed.js';
import type { CoreSections } from './core-sections.js';
import type { ApprovalRepository } from './repository.js';
import { transition } from './state-machine.js';
import type { ApprovalRequest, HistoryEntry, ReminderStep } from './types.js';

export interface ReminderPoint {
  /** Share of the lifetime, 0 < share < 1. */
  share: number;
  /** As written (`50%`). */
  label: string;
}

export const DEFAULT_REMINDERS = '50%,90%';

/** `50%,90%` → points in order; `none` or empty → no reminders. Throws with the reason otherwise. */
export function parseReminderPoints(text: string | undefined): ReminderPoint[] {
  const trimmed = (text ?? '').trim();
  if (trimmed === '' || trimmed.toLowerCase() === 'none') return [];
  const points = trimmed.split(',').map((part) => {
    const match = /^(\d{1,2}(?:\.\d+)?)\s*%$/.exec(part.trim());
    const percent = Number(match?.[1]);
    if (!match || !(percent > 0 && percent < 100)) {
      throw new Error(`"${part.trim()}" is not a share of the lifetime between 0% and 100%, such as 50%`);
    }
    return { share: percent / 100, label: `${match[1]}%` };
  });
  for (let i = 1; i < points.length; i++) {
    if ((points[i]?.share ?? 0) <= (points[i - 1]?.share ?? 0)) {
      throw new Error('points must rise, each later than the one before (e.g. 50%,90%)');
    }
  }
  return points;
}

/**
 * When each point falls. Before an Extend the plan spans the lifetime (filing → expiry); after it, it
 * starts again over the extended window (the Extend → the new expiry), so the last reminder still
 * comes shortly before the request lapses.
 */
export function reminderTimes(request: ApprovalRequest, points: readonly ReminderPoint[]): number[] {
  const start = Date.parse(request.extended?.at ?? request.createdAt);
  const span = Date.parse(request.expiresAt) - start;
  return points.map((point) => start + Math.round(point.share * span));
}

/** The 1-based highest point already reminded in the current plan (0 when none). */
function remindedUpTo(history: readonly HistoryEntry[]): number {
  for (let i = history.length - 1; i >= 0; i--) {
    const step = history[i];
    if (step?.action === 'extended') return 0;
    if (step?.action === 'reminder' && step.reminder) return step.reminder.point;
  }
  return 0;
}

/**
 * The point to remind of now (0-based), or undefined. Only the latest point that has passed, and only
 * if nothing at or after it was reminded: a point missed while no replica ran is sent once, late,
 * unless a later one has passed too (then only the later one).
 */
export function dueReminder(
  request: ApprovalRequest,
  points: readonly ReminderPoint[],
  now: Date,
): number | undefined {
  if (request.state !== 'pending' || now.getTime() >= Date.parse(request.expiresAt)) return undefined;
  const times = reminderTimes(request, points);
  let latest = -1;
  times.forEach((at, index) => {
    if (at <= now.getTime()) latest = index;
  });
  if (latest < 0 || remindedUpTo(request.history) > latest) return undefined;
  return latest;
}

/**
 * Eligible approvers who have not acted on the request: never its requester, never one already counted
 * (in person, or through a delegate who approved in their place).
 */
function waitingApprovers(request: ApprovalRequest, approvers: readonly string[]): string[] {
  const acted = countedPeople(request);
  return [...new Set(approvers)].filter((user) => user !== request.requester && !acted.has(user));
}

/** What reminders use; they reach the core only for its lock, its conditional write and its notices. */
export interface ReminderDeps {
  core: CoreSections;
  repo: ApprovalRepository;
  /** Who may approve a request, delegates included. */
  policy: Pick<ApprovalPolicy, 'delegations' | 'eligibleFor' | 'requiredFor'>;
  now: () => Date;
}

export class Reminders {
  private readonly core: CoreSections;
  private readonly repo: ApprovalRepository;
  private readonly policy: Pick<ApprovalPolicy, 'delegations' | 'eligibleFor' | 'requiredFor'>;
  private readonly now: () => Date;

  constructor(
    deps: ReminderDeps,
    private readonly points: readonly ReminderPoint[],
  ) {
    this.core = deps.core;
    this.repo = deps.repo;
    this.policy = deps.policy;
    this.now = deps.now;
  }

  get plan(): readonly ReminderPoint[] {
    return this.points;
  }

  /** Remind of every pending request whose point has come; each point once across replicas and restarts. */
  async sweep(): Promise<ApprovalRequest[]> {
    if (this.points.length === 0) return [];
    const sent: ApprovalRequest[] = [];
    const policy = this.policy;
    // The delegations, read once for the whole sweep (and only if a reminder is due).
    let delegations: Promise<Delegation[]> | undefined;
    for (const open of await this.repo.openRequests()) {
      if (dueReminder(open, this.points, this.now()) === undefined) continue;
      // Who may approve it (approvers, and delegates whose delegation covers it): group membership may
      // be a Slack read, so before the lock, not while holding it.
      delegations ??= policy.delegations();
      const approvers = await policy.eligibleFor(open, await delegations);
      const reminded = await this.core.locked(open.id, async (request) => {
        if (!request) return undefined;
        const now = this.now();
        const index = dueReminder(request, this.points, now);
        if (index === undefined || !this.points[index]) return undefined;
        const withReminder = withReminderStep(
          request,
          reminderStep(request, index, this.points, approvers, approvalsShown(request, policy)),
          now,
        );
        await this.core.write(request, withReminder);
        return withReminder;
      });
      if (reminded) {
        sent.push(reminded);
        await this.core.notify(reminded);
      }
    }
    return sent;
  }
}

/** The reminder at point `index` of the plan: who it waits for and how many more of the `needed` approvals it needs. */
function reminderStep(
  request: ApprovalRequest,
  index: number,
  points: readonly ReminderPoint[],
  approvers: readonly string[],
  needed: number,
): ReminderStep {
  return {
    point: index + 1,
    of: points.length,
    share: points[index]?.label ?? '',
    waiting: waitingApprovers(request, approvers),
    needed: Math.max(needed - request.approvals.length, 1),
  };
}

/** The request with a `reminder` step in its history, its note saying who is waited for. */
function withReminderStep(request: ApprovalRequest, reminder: ReminderStep, now: Date): ApprovalRequest {
  const who = reminder.waiting.length > 0 ? reminder.waiting.join(', ') : 'no other eligible approver';
  const note = `reminder ${reminder.point} of ${reminder.of} (${reminder.share} of the lifetime): ${reminder.needed} more approval${reminder.needed === 1 ? '' : 's'} needed; waiting for ${who}`;
  const next = transition(request, 'pending', { action: 'reminder', note, at: now });
  const steps = next.history.slice(0, -1);
  const step = next.history.at(-1) as HistoryEntry;
  return { ...next, history: [...steps, { ...step, reminder }] } as ApprovalRequest;
}

/** Whether this reminder step is the plan's last: the requester hears of it too. */
export function isLastReminder(step: HistoryEntry | undefined): boolean {
  return !!step?.reminder && step.reminder.point === step.reminder.of;
}

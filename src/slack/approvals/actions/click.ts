// A click on an approval button, read with zod and taken so that Slack's ack means "recorded": the
// engine persists the decision first, within a bound that keeps the ack inside Slack's 3 s. A click
// that could not be recorded in time changes nothing and the person is told privately to try again;
// one whose write had started when it failed may have been recorded, and the person is told to look.

import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { type ClickOptions, MaybeRecordedError } from '../../../approvals/index.js';
import type { Click } from '../types.js';

/** After this, no write of the click starts: a click answered "try again" has changed nothing. */
const CLICK_WRITE_DEADLINE_MS = 1_500;
/** The longest a click waits for its decision to be persisted before Slack gets its ack anyway. */
export const CLICK_ACK_DEADLINE_MS = 2_000;
/**
 * A modal submission reads what its modal showed before it writes: that much of its time is its
 * reads' (review-binding.ts), and a read that takes longer leaves its write less, so that its ack
 * stays within SUBMISSION_READ_MS + CLICK_ACK_DEADLINE_MS (2.5 s) of its start, inside Slack's 3 s.
 */
const SUBMISSION_READ_MS = 500;

/** When a click's write may start at the latest, and when its ack waits no longer (epoch ms). */
export interface ClickDeadlines {
  writeBy: number;
  ackBy: number;
}

/** A click's deadlines, counted from now. */
function clickDeadlines(): ClickDeadlines {
  const now = Date.now();
  return { writeBy: now + CLICK_WRITE_DEADLINE_MS, ackBy: now + CLICK_ACK_DEADLINE_MS };
}

/**
 * A modal submission's deadlines: a click's, or sooner when its reads since `startedAt` took longer
 * than their share.
 */
export function submissionDeadlines(startedAt: number): ClickDeadlines {
  const click = clickDeadlines();
  const writing = startedAt + SUBMISSION_READ_MS;
  return {
    writeBy: Math.min(click.writeBy, writing + CLICK_WRITE_DEADLINE_MS),
    ackBy: Math.min(click.ackBy, writing + CLICK_ACK_DEADLINE_MS),
  };
}

export const NOT_RECORDED =
  'Your click could not be processed just now, so nothing changed. Please try again in a moment.';
/**
 * The ack could not wait for the click's write, or an error came after its write had started: it may
 * have landed (or still land), so the person must look before clicking again.
 */
export const MAYBE_NOT_RECORDED =
  'Your click may not have been recorded: the bot could not reach its store in time. Check the request message before clicking again.';
export const RECORDED_LATE =
  'Your earlier click went through after all, once the bot reached its store; the request message shows where it stands.';

const clickSchema = z.object({
  // A workspace id, the body's or the person's, that is empty is read as none, not as an unreadable
  // click: the access gate refuses a click naming no workspace before it gets here (slack/gate/home.ts).
  user: z.object({ id: z.string().min(1), team_id: z.string().nullish() }),
  channel: z.object({ id: z.string().min(1) }).nullish(),
  container: z.object({ channel_id: z.string().min(1).nullish() }).nullish(),
  trigger_id: z.string().nullish(),
  team: z.object({ id: z.string() }).nullish(),
  actions: z.tuple([z.object({ value: z.string().min(1).max(200) })], z.unknown()),
});

/** The click as zod reads it, or the first problem in words ("actions.0.value: …") and who clicked. */
export function readClick(
  body: unknown,
): { ok: true; click: Click } | { ok: false; problem: string; user?: string; channel?: string } {
  const parsed = clickSchema.safeParse(body);
  if (parsed.success) {
    const { user, channel, container, trigger_id, team, actions } = parsed.data;
    // Slack may send `team: null` (an org-wide install's click): the person's workspace then says it.
    const teamId = team?.id || user.team_id || undefined;
    return {
      ok: true,
      click: {
        user: user.id,
        channel: channel?.id ?? container?.channel_id ?? undefined,
        value: actions[0].value,
        triggerId: trigger_id ?? undefined,
        ...(teamId ? { team: teamId } : {}),
      },
    };
  }
  const issue = parsed.error.issues[0];
  const problem = `${issue?.path.join('.') || 'payload'}: ${issue?.message ?? 'unreadable'}`;
  // Who to tell, if that much can be read.
  const loose = body as { user?: { id?: unknown }; channel?: { id?: unknown } } | null;
  const user = typeof loose?.user?.id === 'string' ? loose.user.id : undefined;
  const channel = typeof loose?.channel?.id === 'string' ? loose.channel.id : undefined;
  return { ok: false, problem, ...(user ? { user } : {}), ...(channel ? { channel } : {}) };
}

/** Said privately to a final approver at the ack, while the service re-reads the figures. */
export const RECHECKING =
  'Thanks: yours is the final approval, so the bot is confirming the figures with the service before anything is sent. The request message shows the outcome in a moment.';

export type Recorded<T> =
  | { outcome: 'recorded'; work: Promise<T>; rechecking?: true }
  | {
      outcome: 'failed';
      error: unknown;
      /** The error came after a write of the click had started: it may have been recorded. */
      maybeRecorded?: true;
    }
  | { outcome: 'late'; work: Promise<T> };

/**
 * Run the engine call for a click and wait until its decision is persisted, it fails, or the ack
 * deadline passes, whichever comes first; the caller acks right after. `late` work goes on in the
 * background, but starts no write after the write deadline (CLICK_WRITE_DEADLINE_MS, for a click).
 */
export async function recordClick<T>(
  run: (options: ClickOptions) => Promise<T>,
  { writeBy, ackBy }: ClickDeadlines = clickDeadlines(),
): Promise<Recorded<T>> {
  let recorded!: (step?: { rechecking: true }) => void;
  let rechecking = false;
  let writing = false;
  const persisted = new Promise<'recorded'>((resolve) => {
    recorded = (step) => {
      rechecking = step?.rechecking === true;
      resolve('recorded');
    };
  });
  // A failure once a write had started may leave the click recorded: whoever hears of it after the
  // ack (a late answer, a re-check's) gets it as MaybeRecordedError, never as "nothing changed".
  const work = run({
    signal: AbortSignal.timeout(Math.max(0, writeBy - Date.now())),
    writeBy,
    onRecorded: recorded,
    onWriting: () => {
      writing = true;
    },
  }).catch((error: unknown) => {
    throw writing && !(error instanceof MaybeRecordedError) ? new MaybeRecordedError(error) : error;
  });
  const settled = work.then(
    () => 'recorded' as const,
    (error: unknown) => ({ error }),
  );
  const timer = new AbortController();
  const late = sleep(Math.max(0, ackBy - Date.now()), 'late' as const, {
    ref: false,
    signal: timer.signal,
  }).catch(() => 'stopped' as const);
  const first = await Promise.race([persisted, settled, late]);
  timer.abort();
  if (first === 'late' || first === 'stopped') return { outcome: 'late', work };
  if (typeof first === 'object') {
    return { outcome: 'failed', error: first.error, ...(writing ? { maybeRecorded: true as const } : {}) };
  }
  return { outcome: 'recorded', work, ...(rechecking ? { rechecking: true as const } : {}) };
}

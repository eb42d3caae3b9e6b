// Test-only crash points on the way from the final approval to the recorded outcome, and through each
// step of an audit segment and a retention cut. Nothing is armed unless start-up was given
// CNGN_DESK_CRASH_AT (the proof suite's crash line and the audit crash test set it on a child process);
// then the process kills itself with SIGKILL, as a power cut would, the first time it reaches that
// point. Unarmed, every call is a no-op.

export const CRASH_POINTS = [
  'before-claim',
  'after-claim',
  'before-calling',
  'before-post',
  'after-answer',
] as const;
/**
 * An archive segment and a retention cut, step by step (audit/archive.ts, audit/log.ts): the cut's new
 * list written, then the head moved to it, then the generation pointer switched (the old list not yet
 * deleted).
 */
export const AUDIT_CRASH_POINTS = [
  'audit-segment-staged',
  'audit-segment-renamed',
  'audit-cut-written',
  'audit-cut-headed',
  'audit-cut-switched',
] as const;
export type CrashPoint = (typeof CRASH_POINTS)[number] | (typeof AUDIT_CRASH_POINTS)[number];
const ALL: readonly string[] = [...CRASH_POINTS, ...AUDIT_CRASH_POINTS];

let armed: CrashPoint | undefined;

/** Arm one point (start-up only). Throws on a name that is not a crash point. */
export function armCrashPoint(point: string | undefined): void {
  if (!point) return;
  if (!ALL.includes(point)) throw new Error(`CNGN_DESK_CRASH_AT must be one of ${ALL.join(', ')}`);
  armed = point as CrashPoint;
}

export function crashPoint(point: CrashPoint): void {
  if (armed === point) process.kill(process.pid, 'SIGKILL');
}

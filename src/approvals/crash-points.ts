// Test-only crash points on the way from the final approval to the recorded outcome. Nothing is armed
// unless start-up was given CNGN_DESK_CRASH_AT (the proof suite's crash line sets it on a child
// process); then the process kills itself with SIGKILL, as a power cut would, the first time it
// reaches that point. Unarmed, every call is a no-op.

export const CRASH_POINTS = ['before-claim', 'after-claim', 'before-post', 'after-answer'] as const;
export type CrashPoint = (typeof CRASH_POINTS)[number];

let armed: CrashPoint | undefined;

/** Arm one point (start-up only). Throws on a name that is not a crash point. */
export function armCrashPoint(point: string | undefined): void {
  if (!point) return;
  if (!(CRASH_POINTS as readonly string[]).includes(point)) {
    throw new Error(`CNGN_DESK_CRASH_AT must be one of ${CRASH_POINTS.join(', ')}`);
  }
  armed = point as CrashPoint;
}

export function crashPoint(point: CrashPoint): void {
  if (armed === point) process.kill(process.pid, 'SIGKILL');
}

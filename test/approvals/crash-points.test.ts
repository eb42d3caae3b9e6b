// The proof suite's crash points: a no-op unless armed at start-up, and only known names arm.
import { expect, it } from 'vitest';
import { armCrashPoint, CRASH_POINTS, crashPoint } from '../../src/crash-points.js';

it('does nothing at any point when none is armed', () => {
  armCrashPoint(undefined);
  armCrashPoint('');
  for (const point of CRASH_POINTS) crashPoint(point);
  expect(process.exitCode ?? 0).toBe(0);
});

it('refuses a name that is not a crash point, naming the ones there are', () => {
  expect(() => armCrashPoint('after-lunch')).toThrow(/CNGN_DESK_CRASH_AT must be one of before-claim/);
});

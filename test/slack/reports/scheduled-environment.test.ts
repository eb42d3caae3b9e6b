// The scheduled report on each store kind, per service environment: a day posted with sandbox keys is
// posted again with live keys on the same store, once each. Older versions named a run without its
// environment; during a rolling upgrade old and new replicas run the schedule side by side, and the
// day is posted exactly once whichever looks first, and a run an older one posted, left half-posted
// or still posts is taken over by the install's environment alone.
import { describe, expect } from 'vitest';
import { type RunLook, takeRun } from '../../../src/reports/run-lease.js';
import { REPORT_PARTS } from '../../../src/slack/reports/delivery.js';
import type { Store } from '../../../src/store/index.js';
import { fixedReportSource } from '../../support/report-source.js';
import {
  FORMER_RUN_KEY,
  fileKinds,
  plus,
  RUN_KEY,
  replica,
  summaries,
  TIMING,
  scheduledTest as test,
} from '../../support/scheduled-reports.js';
import { STORE_KINDS } from '../../support/shared-stores.js';

const TAKEN_OVER = '(posted late: the bot posting it stopped before it was done)';
const DUE = new Date('2026-11-26T07:00:00Z');

/** An older version's replica looking at the run: under its former name, no environment in it. */
function olderLooks(store: Store, clock: { now: Date }): Promise<RunLook> {
  return takeRun(store, FORMER_RUN_KEY, DUE, {
    owner: 'older',
    parts: REPORT_PARTS,
    leaseMs: TIMING.leaseMs,
    maxAttempts: 3,
    now: () => clock.now,
  });
}

/** The older replica took the run and recorded `parts` as posted (then closed it when all were). */
async function olderPosts(store: Store, clock: { now: Date }, parts: readonly string[]) {
  const look = await olderLooks(store, clock);
  if (look.kind !== 'taken') throw new Error(`the older replica found the run ${look.kind}`);
  for (const part of parts) expect(await look.lease.posted(part)).toBe(true);
  if (parts.length === REPORT_PARTS.length) expect(await look.lease.close('posted')).toBe(true);
  return look.lease;
}

for (const kind of STORE_KINDS) {
  describe.skipIf(!kind.up)(`the scheduled report per environment on ${kind.name}`, () => {
    test.override('storeKind', kind.name);

    test('a day posted with sandbox keys is posted again with live keys on the same store, once each', async ({
      scheduledPair,
      slack,
    }) => {
      const { b, clock, first } = await scheduledPair(`report-env-${kind.name}`, '2026-11-26T07:01:00Z');
      const live = replica(slack, b, clock, fixedReportSource(), TIMING, 'live');
      expect(await first.check()).toBe('posted');
      expect(await live.check()).toBe('posted');
      expect(await first.check()).toBe('already-done');
      expect(await live.check()).toBe('already-done');
      expect(summaries(slack)).toHaveLength(2);
      await live.stop();
    });

    test('a run an older replica posted counts for the install’s environment alone', async ({
      scheduledPair,
      slack,
    }) => {
      const { a, b, clock, first } = await scheduledPair(
        `report-env-older-${kind.name}`,
        '2026-11-26T07:01:00Z',
      );
      await olderPosts(a, clock, REPORT_PARTS);
      expect(await first.check()).toBe('already-done');
      expect(summaries(slack)).toHaveLength(0);
      // Taken over by the sandbox's replica: the live report of that day is still posted.
      const live = replica(slack, b, clock, fixedReportSource(), TIMING, 'live');
      expect(await live.check()).toBe('posted');
      expect(summaries(slack)).toHaveLength(1);
      expect(await b.get(RUN_KEY)).toMatchObject({ state: 'posted', owner: 'older' });
      await live.stop();
    });

    test('an older replica looking after a new one posted the run finds it done', async ({
      scheduledPair,
      slack,
    }) => {
      const { a, clock, first } = await scheduledPair(
        `report-env-new-first-${kind.name}`,
        '2026-11-26T07:01:00Z',
      );
      expect(await first.check()).toBe('posted');
      expect((await olderLooks(a, clock)).kind).toBe('done');
      expect(summaries(slack)).toHaveLength(1);
    });

    test('an older replica that has not looked yet finds the run done once a new one looked', async ({
      scheduledPair,
      slack,
    }) => {
      const source = fixedReportSource();
      source.failWith = new Error('the history could not be read');
      const { a, clock, first } = await scheduledPair(
        `report-env-failing-${kind.name}`,
        '2026-11-26T07:01:00Z',
        {
          sources: [source],
        },
      );
      // The new replica's attempt fails: the run is left for a retry, never to the older replica.
      expect(await first.check()).toBe('retrying');
      clock.now = plus(clock.now, TIMING.retryAfterMs + TIMING.lookAfterMs);
      expect((await olderLooks(a, clock)).kind).toBe('done');
      source.failWith = undefined;
      expect(await first.check()).toBe('posted');
      expect(summaries(slack)).toHaveLength(1);
    });

    test('a run an older replica is posting is left to it, and not posted again once it is done', async ({
      scheduledPair,
      slack,
    }) => {
      const { a, clock, first, second } = await scheduledPair(
        `report-env-older-posting-${kind.name}`,
        '2026-11-26T07:01:00Z',
      );
      const lease = await olderPosts(a, clock, ['chart']);
      expect(await first.check()).toBe('already-claimed');
      expect(await lease.posted('summary')).toBe(true);
      expect(await lease.posted('csv')).toBe(true);
      expect(await lease.close('posted')).toBe(true);
      expect(await first.check()).toBe('already-done');
      expect(await second.check()).toBe('already-done');
      expect(summaries(slack)).toHaveLength(0);
    });

    test('a run an older replica left half-posted is finished once, by one of two new replicas', async ({
      scheduledPair,
      slack,
    }) => {
      const { a, clock, first, second } = await scheduledPair(
        `report-env-older-died-${kind.name}`,
        '2026-11-26T09:00:00Z',
      );
      const lease = await olderPosts(a, clock, ['chart']);
      clock.now = plus(clock.now, TIMING.leaseMs + TIMING.lookAfterMs);
      const outcomes = await Promise.all([first.check(), second.check()]);
      expect(outcomes.filter((o) => o === 'posted-late')).toHaveLength(1);
      expect(summaries(slack)).toHaveLength(1);
      expect(summaries(slack)[0]).toContain(TAKEN_OVER);
      expect(fileKinds(slack)).toEqual(['csv']);
      // The older replica, overtaken, records nothing more.
      expect(await lease.posted('summary')).toBe(false);
      expect(await first.check()).toBe('already-done');
    });
  });
}

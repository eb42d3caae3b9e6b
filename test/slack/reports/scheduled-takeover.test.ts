// The scheduled report on each store kind, when a replica does not finish it: one that dies midway
// (stopped with no grace: its build or Slack call never comes back) leaves the run to another once its
// lease runs out, which posts only the parts not yet posted, and exactly one of two replicas takes it
// over; one overtaken looks again soon; one stopped while taking a run gives it back, and posts nothing
// after its stop. A failed build is tried again; only the last failure is told, a run left with parts
// missing says which, and an earlier period's unfinished run is told once.
import { describe, expect, vi } from 'vitest';
import type { FakeSlack } from '../../support/fake-slack.js';
import { fixedReportSource } from '../../support/report-source.js';
import {
  diedPostingSummary,
  failingSource,
  fileKinds,
  gated,
  hangingSource,
  pairWithHangingFirst,
  partsOf,
  plus,
  RUN_KEY,
  replica,
  scheduleSet,
  stoppedMidway,
  summaries,
  TIMING,
  scheduledTest as test,
  told,
} from '../../support/scheduled-reports.js';
import { STORE_KINDS } from '../../support/shared-stores.js';

const TAKEN_OVER = '(posted late: the bot posting it stopped before it was done)';

/** The channel was told, once, that the 25 November report came without its summary and CSV, and why. */
function expectToldInPart(slack: FakeSlack, why: string): void {
  expect(told(slack)).toEqual([
    `Your report for Wednesday 25 November 2026 came only in part: the summary and the CSV did not come; ${why}.`,
  ]);
}

for (const kind of STORE_KINDS) {
  describe.skipIf(!kind.up)(`the scheduled report taken over or failing on ${kind.name}`, () => {
    test.override('storeKind', kind.name);

    test('a replica that dies while building leaves the run to another, which posts it late, once, saying so', async ({
      scheduledPair,
      slack,
    }) => {
      const lagosTen = '2026-11-26T09:00:00Z';
      const died = await pairWithHangingFirst(scheduledPair, `report-died-${kind.name}`, lagosTen);
      const { clock, dying, other, hanging, source } = died;
      // As if killed: its build never comes back, its lease is not renewed.
      await stoppedMidway(dying, hanging.building, true);
      // The other finds the lease live, and its timer looks again a moment after it runs out.
      await other.start();
      expect(summaries(slack)).toHaveLength(0);
      expect(other.timer.ms).toBe(TIMING.leaseMs + TIMING.lookAfterMs);
      clock.now = plus(clock.now, TIMING.leaseMs + TIMING.lookAfterMs);
      other.timer.fire();
      expect(await other.check()).toBe('already-done');
      expect(summaries(slack)).toHaveLength(1);
      expect(summaries(slack)[0]).toContain(TAKEN_OVER);
      expect(fileKinds(slack)).toEqual(['png', 'csv']);
      expect(source.periods).toHaveLength(1);
    });

    test('two replicas taking over one expired lease at once: exactly one posts', async ({
      scheduledPair,
      slack,
    }) => {
      const hanging = hangingSource();
      const { a, clock, first, second } = await scheduledPair(
        `report-takeover-${kind.name}`,
        '2026-11-26T07:00:01Z',
      );
      await stoppedMidway(replica(slack, a, clock, hanging.source), hanging.building);
      clock.now = plus(clock.now, TIMING.leaseMs);
      const outcomes = await Promise.all([first.check(), second.check()]);
      expect(outcomes.filter((o) => o === 'posted')).toHaveLength(1);
      expect(outcomes.filter((o) => o !== 'posted')).toSatisfy(([o]) =>
        ['already-claimed', 'already-done'].includes(o),
      );
      expect(summaries(slack)).toHaveLength(1);
      expect(fileKinds(slack)).toEqual(['png', 'csv']);
    });

    test('a replica that dies after posting the chart leaves only the summary and CSV to the next', async ({
      scheduledPair,
      slack,
    }) => {
      const source = fixedReportSource();
      // Its summary never reaches Slack.
      const { clock, other } = await diedPostingSummary(
        scheduledPair,
        slack,
        `report-chart-${kind.name}`,
        '2026-11-26T07:00:01Z',
        { sources: [undefined, source] },
      );
      expect(fileKinds(slack)).toEqual(['png']);
      // Before the lease runs out nobody takes it; after, the next look posts the rest, late.
      expect(await other.check()).toBe('already-claimed');
      clock.now = new Date('2026-11-26T07:30:00Z');
      expect(await other.check()).toBe('posted-late');
      expect(summaries(slack)).toHaveLength(1);
      expect(summaries(slack)[0]).toContain(TAKEN_OVER);
      expect(fileKinds(slack)).toEqual(['png', 'csv']);
      expect(source.charts).toHaveLength(0); // the chart was not made again
      expect(await other.check()).toBe('already-done');
    });

    test('a replica overtaken while posting looks again once the new lease could have run out', async ({
      scheduledPair,
      slack,
    }) => {
      const hanging = hangingSource();
      const { clock, first, second } = await scheduledPair(
        `report-overtaken-${kind.name}`,
        '2026-11-26T07:00:01Z',
        {
          sources: [hanging.source],
        },
      );
      const started = first.start();
      await hanging.building;
      // Its build outlasted the lease (renewals lost): the other takes the run over and posts it.
      clock.now = plus(clock.now, TIMING.leaseMs);
      expect(await second.check()).toBe('posted');
      hanging.finish();
      await started;
      expect(summaries(slack)).toHaveLength(1);
      expect(first.timer.ms).toBe(TIMING.leaseMs + TIMING.lookAfterMs);
    });

    test('a replica stopped while taking the run gives it back: another posts it at once', async ({
      replicas,
      slack,
      defer,
    }) => {
      const { a, b } = await replicas(`report-stop-claim-${kind.name}`);
      await scheduleSet(a);
      const gate = gated(a);
      const reading = gate.hold('get', ([key]) => key === RUN_KEY);
      const released = gate.hold(
        'compareAndSet',
        ([key, , next]) =>
          key === RUN_KEY && partsOf(next).length === 0 && (next as { attempts: number }).attempts === 0,
      );
      const clock = { now: new Date('2026-11-26T07:00:01Z') };
      await stoppedMidway(replica(slack, gate.store, clock), reading.arrived); // no grace: it stops waiting at once
      // Its read comes back after the stop: it takes the run, then gives it back without posting.
      await reading.open();
      await released.arrived;
      await released.open();
      // Looked at late by a replica that was held up: given back unworked is no failed attempt.
      clock.now = new Date('2026-11-26T07:20:00Z');
      const other = replica(slack, b, clock);
      defer(() => other.stop());
      expect(await other.check()).toBe('posted-late');
      expect(summaries(slack)).toHaveLength(1);
      expect(summaries(slack)[0]).toContain('(posted late: the bot was held up at 08:00)');
    });

    test('a build that fails once its replica stopped is no failed attempt: the run is given back and posted once, with nothing told', async ({
      scheduledPair,
      slack,
    }) => {
      const stopping = fixedReportSource();
      let asked!: () => void;
      let fail!: () => void;
      const building = new Promise<void>((resolve) => {
        asked = resolve;
      });
      // As when the bot closes its service client after stop() returned.
      const closed = new Promise<never>((_, reject) => {
        fail = () => reject(new Error('the client was closed'));
      });
      stopping.build = () => {
        asked();
        return closed;
      };
      const { a, clock, first, second } = await scheduledPair(
        `report-stop-fail-${kind.name}`,
        '2026-11-26T07:00:01Z',
        {
          sources: [stopping],
        },
      );
      await stoppedMidway(first, building);
      fail();
      await vi.waitFor(async () =>
        expect(await a.get(RUN_KEY)).toMatchObject({
          attempts: 1,
          failures: 0,
          leaseUntil: clock.now.getTime(),
        }),
      );
      expect(await second.check()).toBe('posted');
      expect(summaries(slack)).toHaveLength(1);
      expect(summaries(slack)[0]).not.toContain('posted late');
      expect(told(slack)).toEqual([]);
    });

    test('a replica stopped midway posts nothing after its stop returns', async ({
      oneReplica,
      slack,
      defer,
    }) => {
      const a = await oneReplica(`report-stop-post-${kind.name}`);
      await scheduleSet(a);
      const gate = gated(a);
      // The lease renewed before the summary (the chart recorded) is held until after the stop.
      const renewing = gate.hold(
        'compareAndSet',
        ([key, expected]) => key === RUN_KEY && partsOf(expected).includes('chart'),
      );
      const clock = { now: new Date('2026-11-26T07:00:01Z') };
      const stopping = replica(slack, gate.store, clock);
      defer(() => stopping.stop());
      const posts = vi.spyOn(stopping.client.chat, 'postMessage');
      await stoppedMidway(stopping, renewing.arrived);
      await renewing.open();
      await new Promise((resolve) => setImmediate(resolve));
      expect(posts).not.toHaveBeenCalled();
      expect(fileKinds(slack)).toEqual(['png']);
    });

    test('a build that fails once is tried again and posted once, with no failure told', async ({
      scheduledPair,
      slack,
    }) => {
      const source = failingSource(1);
      const { clock, first, second } = await scheduledPair(
        `report-retry-${kind.name}`,
        '2026-11-26T07:00:01Z',
        {
          sources: [source, source],
        },
      );
      expect(await first.check()).toBe('retrying');
      expect(slack.callsTo('chat.postMessage')).toHaveLength(0);
      // Held until its retry: no replica tries again before.
      expect(await second.check()).toBe('already-claimed');
      clock.now = plus(clock.now, TIMING.retryAfterMs);
      expect(await second.check()).toBe('posted');
      expect(summaries(slack)).toHaveLength(1);
      expect(summaries(slack)[0]).not.toContain('posted late');
      expect(told(slack)).toEqual([]);
      expect(source.periods).toHaveLength(2);
    });

    test('a build that fails every attempt tells the channel once, then the run is closed', async ({
      scheduledPair,
      slack,
    }) => {
      const source = failingSource(Number.POSITIVE_INFINITY);
      const { clock, first: runner } = await scheduledPair(
        `report-fails-${kind.name}`,
        '2026-11-26T07:00:01Z',
        {
          sources: [source],
          timing: { ...TIMING, maxAttempts: 3 },
        },
      );
      expect(await runner.check()).toBe('retrying');
      clock.now = plus(clock.now, TIMING.retryAfterMs);
      expect(await runner.check()).toBe('retrying');
      expect(told(slack)).toEqual([]);
      clock.now = plus(clock.now, TIMING.retryAfterMs);
      expect(await runner.check()).toBe('failed');
      expect(told(slack)).toHaveLength(1);
      expect(told(slack)[0]).toMatch(
        /^Your report for Wednesday 25 November 2026 could not be made; try again shortly, quoting reference `[0-9a-f]{8}`/,
      );
      expect(slack.sharedFiles()).toHaveLength(0);
      clock.now = plus(clock.now, TIMING.retryAfterMs);
      expect(await runner.check()).toBe('already-done');
      expect(slack.callsTo('chat.postMessage')).toHaveLength(1);
      expect(source.periods).toHaveLength(3);
    });

    test('a run whose every attempt was left midway is closed and the channel told once', async ({
      scheduledPair,
      slack,
    }) => {
      const { clock, dying, other, hanging, source } = await pairWithHangingFirst(
        scheduledPair,
        `report-exhausted-${kind.name}`,
        '2026-11-26T07:00:01Z',
        { timing: { ...TIMING, maxAttempts: 1 } },
      );
      await stoppedMidway(dying, hanging.building);
      clock.now = plus(clock.now, TIMING.leaseMs);
      expect(await other.check()).toBe('failed');
      expect(told(slack)).toEqual([
        'Your report for Wednesday 25 November 2026 did not come: it was started once and never finished.',
      ]);
      expect(await other.check()).toBe('already-done');
      expect(told(slack)).toHaveLength(1);
      expect(source.periods).toHaveLength(0);
    });

    test('a run left midway after its chart tells only that the summary and CSV did not come', async ({
      scheduledPair,
      slack,
    }) => {
      const partial = `report-partial-${kind.name}`;
      const options = { timing: { ...TIMING, maxAttempts: 1 } };
      const { clock, other } = await diedPostingSummary(
        scheduledPair,
        slack,
        partial,
        '2026-11-26T07:00:01Z',
        options,
      );
      clock.now = plus(clock.now, TIMING.leaseMs);
      expect(await other.check()).toBe('failed');
      expectToldInPart(slack, 'it was started once and never finished');
    });

    test('a replica stopped while posting the summary leaves only the CSV, posted late by the next, saying it stopped', async ({
      scheduledPair,
      slack,
    }) => {
      const { a, clock, first, second } = await scheduledPair(
        `report-stop-inflight-${kind.name}`,
        '2026-11-26T07:00:01Z',
      );
      const held = slack.hold('chat.postMessage');
      await stoppedMidway(first, held.arrived); // its summary is in flight when the stop stops waiting
      held.release();
      await vi.waitFor(async () =>
        expect(await a.get(RUN_KEY)).toMatchObject({
          parts: ['chart', 'summary'],
          leaseUntil: clock.now.getTime(),
        }),
      );
      clock.now = new Date('2026-11-26T07:20:00Z');
      expect(await second.check()).toBe('posted-late');
      expect(fileKinds(slack)).toEqual(['png', 'csv']);
      expect(summaries(slack)).toHaveLength(1);
      const csv = slack.sharedFiles().find((f) => f.filename.endsWith('.csv'));
      expect(JSON.stringify(csv)).toContain(TAKEN_OVER);
    });

    test('a last attempt failing after the chart was posted tells only that the summary and CSV did not come', async ({
      scheduledPair,
      slack,
    }) => {
      const { a, first } = await scheduledPair(`report-last-fails-${kind.name}`, '2026-11-26T07:10:00Z', {
        sources: [failingSource(Number.POSITIVE_INFINITY)],
        timing: { ...TIMING, maxAttempts: 3 },
      });
      await a.set(RUN_KEY, {
        state: 'posting',
        due: '2026-11-26T07:00:00.000Z',
        owner: 'earlier',
        leaseUntil: Date.parse('2026-11-26T07:10:00Z'),
        attempts: 2,
        failures: 1,
        parts: ['chart'],
      });
      expect(await first.check()).toBe('failed');
      expectToldInPart(slack, 'its last attempt failed');
    });

    test('a run left midway after its last part is closed as posted, with nothing told', async ({
      scheduledPair,
      slack,
    }) => {
      const {
        a,
        clock,
        second: other,
      } = await scheduledPair(`report-all-parts-${kind.name}`, '2026-11-26T07:00:01Z', {
        timing: { ...TIMING, maxAttempts: 1 },
      });
      // Its holder recorded every part, then died before closing it.
      await a.set(RUN_KEY, {
        state: 'posting',
        due: '2026-11-26T07:00:00.000Z',
        owner: 'gone',
        leaseUntil: clock.now.getTime(),
        attempts: 1,
        failures: 0,
        parts: ['chart', 'summary', 'csv'],
      });
      expect(await other.check()).toBe('already-done');
      expect(slack.callsTo('chat.postMessage')).toHaveLength(0);
      expect(await a.get(RUN_KEY)).toMatchObject({ state: 'posted' });
    });

    test("an earlier period's run left half-posted is told once, when the next is due", async ({
      scheduledPair,
      slack,
    }) => {
      const earlier = `report-earlier-${kind.name}`;
      const { clock, other } = await diedPostingSummary(
        scheduledPair,
        slack,
        earlier,
        '2026-11-26T07:00:01Z',
      );
      // Nobody looked again until the next day's 08:00.
      clock.now = new Date('2026-11-27T07:00:01Z');
      expect(await other.check()).toBe('posted');
      expect(await other.check()).toBe('already-done');
      expectToldInPart(slack, 'it was left unfinished, and the next report is due');
      expect(summaries(slack)).toHaveLength(1);
      expect(summaries(slack)[0]).toContain('Thursday 26 November 2026');
    });
  });
}

import { describe, expect, it } from 'vitest';
import {
  judgeSoak,
  noOperations,
  type SoakRun,
  type SoakSample,
  soakFigure,
  soakTable,
} from '../../prove/lines/soak-judge.js';

/** A minute in which everything went well: 60 reads and so on, memory as given. */
function minute(n: number, rssMb: number, heapMb: number, p99 = 5): SoakSample {
  const operations = noOperations();
  operations.read.ok = 60;
  operations.filing.ok = 6;
  operations.approval.ok = 6;
  operations.webhook.ok = 12;
  operations.home.ok = 12;
  return {
    minute: n,
    rssMb,
    heapMb,
    heapBeforeGcMb: heapMb + 4,
    codeMb: 2,
    delay: { p50: 0.1, p99, max: p99 * 2 },
    storeMb: 0.1 * n,
    walMb: 4,
    loadAverage: 3,
    operations,
  };
}

/** `minutes` samples, flat at 90 MB RSS and 20 MB heap unless `at` says otherwise for a minute. */
function run(minutes: number, at: Record<number, Partial<SoakSample>> = {}): SoakRun {
  const samples = Array.from({ length: minutes }, (_, i) => ({ ...minute(i + 1, 90, 20), ...at[i + 1] }));
  return { minutes, samples, skipped: 0 };
}

describe('the soak judgement', () => {
  it('passes a flat run, with its growth measured from minute 5 to the median of the last three', () => {
    const verdict = judgeSoak(
      run(30, { 5: { rssMb: 100 }, 28: { rssMb: 104 }, 29: { rssMb: 108 }, 30: { rssMb: 200 } }),
    );
    expect(verdict.status).toBe('pass');
    expect(verdict.reasons).toEqual([]);
    expect(verdict.growth?.rss).toEqual({ baselineMb: 100, endMb: 108, ratio: 0.08 });
    expect(verdict.totals.read).toEqual({ ok: 1800, failed: 0 });
    expect(soakFigure(run(30), judgeSoak(run(30)))).toContain(
      'from minute 5; delay p99 max 5.0 ms; store 0.10 → 3.00 MB; 1800 reads, 180 filings, 180 approvals, 360 webhooks, 360 App Home opens',
    );
  });

  it('fails RSS that grows more than 10 % after minute 5', () => {
    const verdict = judgeSoak(
      run(10, { 5: { rssMb: 100 }, 8: { rssMb: 111 }, 9: { rssMb: 112 }, 10: { rssMb: 113 } }),
    );
    expect(verdict.status).toBe('fail');
    expect(verdict.reasons).toEqual(['RSS grew +12.0 % after minute 5 (100.0 → 112.0 MB; limit +10 %)']);
  });

  it('fails a live heap that grows more than 10 %, while one high sample at the end alone does not', () => {
    const grown = judgeSoak(run(8, { 6: { heapMb: 23 }, 7: { heapMb: 23 }, 8: { heapMb: 23 } }));
    expect(grown.reasons).toEqual(['heap grew +15.0 % after minute 5 (20.0 → 23.0 MB; limit +10 %)']);
    expect(judgeSoak(run(8, { 8: { heapMb: 30 } })).status).toBe('pass');
  });

  it('does not count growth during the first five minutes', () => {
    const verdict = judgeSoak(run(8, { 1: { rssMb: 60, heapMb: 10 }, 3: { rssMb: 80, heapMb: 15 } }));
    expect(verdict.status).toBe('pass');
  });

  it('fails every minute whose event-loop delay p99 passes 100 ms', () => {
    const verdict = judgeSoak(run(6, { 2: { delay: { p50: 1, p99: 140, max: 300 } } }));
    expect(verdict.status).toBe('fail');
    expect(verdict.reasons).toEqual(['event-loop delay p99 140.0 ms in minute 2 (limit 100 ms)']);
    expect(verdict.delayP99MaxMs).toBe(140);
    expect(judgeSoak(run(6, { 2: { delay: { p50: 1, p99: 100, max: 300 } } })).status).toBe('pass');
  });

  it('judges a run shorter than six minutes on delay and failures only, and says growth was not judged', () => {
    const verdict = judgeSoak(run(2, { 2: { rssMb: 200, heapMb: 80 } }));
    expect(verdict.status).toBe('pass');
    expect(verdict.growth).toBeUndefined();
    expect(verdict.notes).toEqual([
      'growth not judged: it needs a sample after minute 5, and this run has 2',
    ]);
    expect(soakFigure(run(2), verdict)).toContain('from minute 1 (not judged)');
  });

  it('fails a failed operation, one not started, a missing sample and a bot that stopped', () => {
    const failed = run(6);
    (failed.samples[3] as SoakSample).operations.approval.failed = 2;
    expect(judgeSoak(failed).reasons).toEqual(['2 approval operation(s) failed']);
    expect(judgeSoak({ ...run(6), skipped: 3 }).reasons).toEqual([
      '3 operation(s) not started: the bot fell behind the load',
    ]);
    const cut = run(6);
    cut.samples.pop();
    expect(judgeSoak({ ...cut, botExit: 'exit code 1' }).reasons).toEqual([
      'the bot stopped during the soak: exit code 1',
      '5 of 6 minute samples taken',
    ]);
  });

  it('prints one row a minute, failed operations as done/tried', () => {
    const samples = run(2).samples;
    (samples[1] as SoakSample).operations.read.failed = 1;
    const [header, , first, second] = soakTable(samples);
    expect(header).toMatch(/^\| min \| RSS MB \| heap MB \(after GC\)/);
    expect(first).toMatch(
      /^\| 1 +\| 90\.0 +\| 20\.0 +\| 2\.0 +\| 24\.0 +\| 0\.1\/5\.0\/10 +\| 0\.10 \(\+4\.0\) +\| 60 /,
    );
    expect(second).toContain('| 60/61 ');
  });
});

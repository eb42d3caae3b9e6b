// Repeated refusals are written once, then counted: one line a minute while they go on, none once
// they stop. Time is Vitest's fake clock, so no test waits a minute.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RepeatedWarnings, SUMMARY_WINDOW_MS } from '../../src/webhooks/repeated-warnings.js';
import { recordingLogger } from '../support/webhook-rig.js';

// Fake timers are a global a fixture cannot hold: each test runs on them and they are put back after.
beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('repeated warnings', () => {
  it('writes the first at once, then one line a minute with the count while they keep coming', () => {
    const log = recordingLogger();
    const warnings = new RepeatedWarnings(log);
    for (let i = 0; i < 2_000; i++) warnings.warn('webhook refused: bad signature');
    expect(log.lines).toEqual(['warn webhook refused: bad signature']);
    vi.advanceTimersByTime(SUMMARY_WINDOW_MS);
    expect(log.lines).toEqual([
      'warn webhook refused: bad signature',
      'warn webhook refused: bad signature (1999 more like it in the last minute)',
    ]);
    for (let i = 0; i < 30; i++) warnings.warn('webhook refused: bad signature');
    vi.advanceTimersByTime(SUMMARY_WINDOW_MS);
    expect(log.lines.at(-1)).toBe('warn webhook refused: bad signature (30 more like it in the last minute)');
    expect(log.lines).toHaveLength(3);
  });

  it('goes quiet after a quiet minute, and writes the next one at once', () => {
    const log = recordingLogger();
    const warnings = new RepeatedWarnings(log);
    warnings.warn('webhook refused: bad signature');
    vi.advanceTimersByTime(SUMMARY_WINDOW_MS * 5);
    expect(log.lines).toEqual(['warn webhook refused: bad signature']);
    warnings.warn('webhook refused: bad signature');
    expect(log.lines).toEqual(['warn webhook refused: bad signature', 'warn webhook refused: bad signature']);
  });

  it('counts each kind on its own, and writes what is counted when flushed', () => {
    const log = recordingLogger();
    const warnings = new RepeatedWarnings(log);
    warnings.warn('webhook refused: bad signature');
    warnings.warn('webhook refused: no event name');
    warnings.warn('webhook refused: bad signature');
    expect(log.lines).toEqual(['warn webhook refused: bad signature', 'warn webhook refused: no event name']);
    warnings.flush();
    expect(log.lines.at(-1)).toBe('warn webhook refused: bad signature (1 more like it in the last minute)');
    expect(log.lines).toHaveLength(3);
    vi.advanceTimersByTime(SUMMARY_WINDOW_MS * 2);
    expect(log.lines).toHaveLength(3);
  });

  it('writes every kind past the ones it counts, so none is lost', () => {
    const log = recordingLogger();
    const warnings = new RepeatedWarnings(log);
    for (let i = 0; i < 60; i++) warnings.warn(`kind ${i}`);
    for (let i = 0; i < 60; i++) warnings.warn(`kind ${i}`);
    // The first 50 kinds are counted; the other 10 are written each time.
    expect(log.lines).toHaveLength(60 + 10);
    warnings.flush();
    expect(log.lines).toHaveLength(60 + 10 + 50);
  });
});

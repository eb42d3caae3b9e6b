// The soak's judgement, pure: the minute samples and the load's tally in, pass or fail with each reason
// out; and the per-minute table. The bot's memory is judged on growth after it warmed up: the baseline
// is the sample at minute 5, the end is the median of the last three samples after it (a single
// sample can sit on either side of a collection), and RSS or the live heap more than 10 % above the
// baseline fails. Event-loop delay fails in any minute whose p99 passes 100 ms.

const BASELINE_MINUTE = 5;
const END_SAMPLES = 3;
export const GROWTH_LIMIT = 0.1;
export const DELAY_P99_LIMIT_MS = 100;

/** What the load does, each counted per minute. */
export const OPERATIONS = ['read', 'filing', 'approval', 'webhook', 'home'] as const;
export type Operation = (typeof OPERATIONS)[number];

interface OperationCount {
  ok: number;
  failed: number;
}

export type OperationCounts = Record<Operation, OperationCount>;

export function noOperations(): OperationCounts {
  return Object.fromEntries(OPERATIONS.map((op) => [op, { ok: 0, failed: 0 }])) as OperationCounts;
}

/** One minute of the soak: the bot's figures at its end, and what the load did during it. */
export interface SoakSample {
  /** 1-based: the sample taken when this minute of load ended. */
  minute: number;
  rssMb: number;
  /** V8's used heap right after a full collection: what the bot still holds. */
  heapMb: number;
  /** V8's used heap as it was before that collection (shown, not judged: it saw-tooths). */
  heapBeforeGcMb: number;
  /** Of the heap after collection, compiled code (shown, not judged apart). */
  codeMb: number;
  /** Event-loop delay over the minute, ms. */
  delay: { p50: number; p99: number; max: number };
  /** The SQLite store's database file. */
  storeMb: number;
  /** Its write-ahead log (-wal and -shm): it grows to SQLite's checkpoint size and stays there. */
  walMb: number;
  /** The machine's 1-minute load average when sampled. */
  loadAverage: number;
  operations: OperationCounts;
}

interface Growth {
  baselineMb: number;
  endMb: number;
  /** (end − baseline) / baseline. */
  ratio: number;
}

export interface SoakVerdict {
  status: 'pass' | 'fail';
  /** Why it failed; empty on a pass. */
  reasons: string[];
  /** Undefined when the run was too short to judge growth (the reason is in `notes`). */
  growth?: { rss: Growth; heap: Growth };
  /** Facts that are not failures: why growth was not judged. */
  notes: string[];
  delayP99MaxMs: number;
  totals: OperationCounts;
}

export interface SoakRun {
  minutes: number;
  samples: SoakSample[];
  /** Operations the load could not start because too many were still waiting (the bot fell behind). */
  skipped: number;
  /** Why the bot stopped early, when it did (exit code, signal). */
  botExit?: string;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

function growthOf(baseline: number, after: number[]): Growth {
  const endMb = median(after);
  return { baselineMb: baseline, endMb, ratio: (endMb - baseline) / baseline };
}

const percent = (ratio: number) => `${ratio >= 0 ? '+' : ''}${(ratio * 100).toFixed(1)} %`;

export function judgeSoak(run: SoakRun): SoakVerdict {
  const reasons: string[] = [];
  const notes: string[] = [];
  const { samples } = run;
  const totals = noOperations();
  for (const sample of samples) {
    for (const op of OPERATIONS) {
      totals[op].ok += sample.operations[op].ok;
      totals[op].failed += sample.operations[op].failed;
    }
  }

  if (run.botExit) reasons.push(`the bot stopped during the soak: ${run.botExit}`);
  if (samples.length < run.minutes) {
    reasons.push(`${samples.length} of ${run.minutes} minute samples taken`);
  }
  for (const op of OPERATIONS) {
    if (totals[op].failed > 0) reasons.push(`${totals[op].failed} ${op} operation(s) failed`);
  }
  if (run.skipped > 0) reasons.push(`${run.skipped} operation(s) not started: the bot fell behind the load`);

  const slow = samples.filter((s) => s.delay.p99 > DELAY_P99_LIMIT_MS);
  for (const s of slow) {
    reasons.push(
      `event-loop delay p99 ${s.delay.p99.toFixed(1)} ms in minute ${s.minute} (limit ${DELAY_P99_LIMIT_MS} ms)`,
    );
  }
  const delayP99MaxMs = Math.max(0, ...samples.map((s) => s.delay.p99));

  let growth: SoakVerdict['growth'];
  const baseline = samples.find((s) => s.minute === BASELINE_MINUTE);
  const after = samples.filter((s) => s.minute > BASELINE_MINUTE).slice(-END_SAMPLES);
  if (!baseline || after.length === 0) {
    notes.push(
      `growth not judged: it needs a sample after minute ${BASELINE_MINUTE}, and this run has ${samples.length}`,
    );
  } else {
    growth = {
      rss: growthOf(
        baseline.rssMb,
        after.map((s) => s.rssMb),
      ),
      heap: growthOf(
        baseline.heapMb,
        after.map((s) => s.heapMb),
      ),
    };
    for (const [name, g] of [
      ['RSS', growth.rss],
      ['heap', growth.heap],
    ] as const) {
      if (g.ratio > GROWTH_LIMIT) {
        reasons.push(
          `${name} grew ${percent(g.ratio)} after minute ${BASELINE_MINUTE} (${g.baselineMb.toFixed(1)} → ${g.endMb.toFixed(1)} MB; limit +${GROWTH_LIMIT * 100} %)`,
        );
      }
    }
  }
  return {
    status: reasons.length === 0 ? 'pass' : 'fail',
    reasons,
    ...(growth ? { growth } : {}),
    notes,
    delayP99MaxMs,
    totals,
  };
}

const count = (c: OperationCount) => (c.failed > 0 ? `${c.ok}/${c.ok + c.failed}` : String(c.ok));

/** The per-minute table, Markdown-shaped so it can go into the docs as printed. */
export function soakTable(samples: SoakSample[]): string[] {
  const header = [
    'min',
    'RSS MB',
    'heap MB (after GC)',
    'of it code',
    'heap MB (before)',
    'delay p50/p99/max ms',
    'store MB (+wal)',
    ...OPERATIONS,
    'load',
  ];
  const rows = samples.map((s) => [
    String(s.minute),
    s.rssMb.toFixed(1),
    s.heapMb.toFixed(1),
    s.codeMb.toFixed(1),
    s.heapBeforeGcMb.toFixed(1),
    `${s.delay.p50.toFixed(1)}/${s.delay.p99.toFixed(1)}/${s.delay.max.toFixed(0)}`,
    `${s.storeMb.toFixed(2)} (+${s.walMb.toFixed(1)})`,
    ...OPERATIONS.map((op) => count(s.operations[op])),
    s.loadAverage.toFixed(1),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const format = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [format(header), format(widths.map((w) => '-'.repeat(w))), ...rows.map(format)];
}

/** The line's figure: memory at the baseline and at the end, delay, store, what was done. */
export function soakFigure(run: SoakRun, verdict: SoakVerdict): string {
  const first = run.samples[0];
  const last = run.samples.at(-1);
  const g = verdict.growth;
  const memory = g
    ? `RSS ${g.rss.baselineMb.toFixed(1)} → ${g.rss.endMb.toFixed(1)} MB (${percent(g.rss.ratio)}), heap ${g.heap.baselineMb.toFixed(1)} → ${g.heap.endMb.toFixed(1)} MB (${percent(g.heap.ratio)}) from minute ${BASELINE_MINUTE}`
    : first && last
      ? `RSS ${first.rssMb.toFixed(1)} → ${last.rssMb.toFixed(1)} MB, heap ${first.heapMb.toFixed(1)} → ${last.heapMb.toFixed(1)} MB from minute 1 (not judged)`
      : 'no samples';
  const store = first && last ? `store ${first.storeMb.toFixed(2)} → ${last.storeMb.toFixed(2)} MB` : '';
  const done = OPERATIONS.map((op) => {
    const c = verdict.totals[op];
    return `${c.ok} ${op === 'home' ? 'App Home opens' : `${op}s`}${c.failed ? ` (${c.failed} failed)` : ''}`;
  }).join(', ');
  return `${memory}; delay p99 max ${verdict.delayP99MaxMs.toFixed(1)} ms; ${store}; ${done}`;
}

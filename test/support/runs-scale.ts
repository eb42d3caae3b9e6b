// How much of their CI size the suites that sample a large space run: `npm test` a share of it, the
// proof suite (prove/lines/fuzz-suites.ts) all of it or more, through FUZZ_RUNS_SCALE.

/**
 * The share of a property's CI size that `npm test` runs: enough, with the fixed seeds, to see every
 * property hold on every surface, while the suite stays quick. The CI size itself runs in the proof
 * suite (prove/lines/fuzz-suites.ts runs these files with FUZZ_RUNS_SCALE=1, or more).
 */
const TEST_SHARE = 0.1;

/** FUZZ_RUNS_SCALE, or TEST_SHARE when it is unset or no positive number. */
function runsScale(): number {
  const scale = Number(process.env.FUZZ_RUNS_SCALE ?? TEST_SHARE);
  return Number.isFinite(scale) && scale > 0 ? scale : TEST_SHARE;
}

/** Cases per property: `ci`, the size CI proves it at (a few thousand per surface in total), scaled. */
export function runs(ci: number): number {
  return Math.max(1, Math.round(ci * runsScale()));
}

/** Whether this run is at CI size or more: a suite that enumerates its cases runs every combination. */
export function atCiSize(): boolean {
  return runsScale() >= 1;
}

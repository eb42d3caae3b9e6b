// The vitest fuzz suites at CI size (and more): `npm test` runs each property at a tenth of that, with
// fixed seeds, to stay quick; here the same files run through vitest's own API with the size scaled
// up and this run's seed, so every property they check (Slack bodies, modal submissions, slash
// commands, webhook deliveries) is proven at size with the very generators and assertions the suite
// has, not a copy of them. The builder checks, which enumerate their inputs rather than sample them,
// run every combination here (`npm test` runs the two explorer links that must not become links only
// where a link is shown: test/slack/builders/inputs.ts). One line per file.
import { startVitest } from 'vitest/node';
import type { Line } from '../support.js';
import { seedNote } from './fuzz.js';

const SUITES = [
  { file: 'test/slack/fuzz-events.test.ts', what: 'Slack bodies to /slack/events' },
  { file: 'test/slack/fuzz-views.test.ts', what: 'every modal submitted' },
  { file: 'test/slack/commands/fuzz-commands.test.ts', what: 'slash commands' },
  { file: 'test/webhooks/fuzz.test.ts', what: 'webhook deliveries' },
  { file: 'test/slack/builders/clip-edges.test.ts', what: 'every builder, where a cut lands' },
  { file: 'test/slack/builders/slack-limits.test.ts', what: 'every builder, long text within Slack limits' },
  { file: 'test/slack/builders/hidden-text.test.ts', what: 'every builder, hidden characters shown' },
  { file: 'test/slack/builders/outside-text.test.ts', what: 'every builder, outside text inert' },
] as const;

/** Runs the fuzz suites with FUZZ_RUNS_SCALE=`scale` and FUZZ_SEED=`seed`; a line per file. */
export async function fuzzSuites(scale: number, seed: number): Promise<Omit<Line, 'seconds'>[]> {
  const vitest = await startVitest(
    'test',
    SUITES.map((s) => s.file),
    { watch: false, reporters: ['dot'] },
    { test: { env: { FUZZ_RUNS_SCALE: String(scale), FUZZ_SEED: String(seed) } } },
  );
  try {
    const modules = vitest.state.getTestModules();
    return SUITES.map(({ file, what }) => {
      const module = modules.find((m) => m.moduleId.endsWith(file));
      const tests = module ? [...module.children.allTests()] : [];
      const failed = tests.filter((t) => t.result().state === 'failed');
      const errors = [...(module?.errors() ?? []), ...failed.flatMap((t) => t.result().errors ?? [])];
      const ok = module !== undefined && tests.length > 0 && failed.length === 0 && errors.length === 0;
      const first = errors[0]?.message ?? (module ? 'no test ran' : 'the file did not run');
      return {
        line: `fuzz suite: ${what}`,
        on: 'memory',
        target: `every property of ${file} holds, ${scale === 1 ? 'at CI size' : `at ${scale}× CI size`}`,
        figure: `${tests.length - failed.length}/${tests.length} held`,
        status: ok ? 'pass' : 'fail',
        ...(ok ? {} : { note: `${first.slice(0, 300)} (${seedNote(seed)})` }),
      };
    });
  } finally {
    await vitest.close();
  }
}

// `npm run bench`: every section in its own process, in turn, its lines printed as they come; then
// one summary of every figure beside its target and the reference measured in the same run, with the
// machine (cores, load average, node). The summary is written to bench-results/results.json and, with
// `--write-docs` (or BENCH_WRITE_DOCS=1), into docs/benchmarks.md between the bench markers.
// `--only ack,crypto` (or BENCH_ONLY) runs some sections; BENCH_SECTION_TIMEOUT_S bounds each.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import {
  BENCH_PAGE,
  type BenchFigure,
  type Machine,
  machine,
  machineLine,
  parseResultLine,
  replaceBenchTable,
  summaryMarkdown,
  summaryRows,
  summaryText,
} from './results.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** A section still running after this is ended and reported as unfinished (the others still run). */
const SECTION_LIMIT_S = Number(process.env.BENCH_SECTION_TIMEOUT_S ?? 1_200);

interface Section {
  name: string;
  title: string;
  args: string[];
}

const SECTIONS: Section[] = [
  { name: 'ack', title: 'Slack ack latency', args: ['bench/ack.ts'] },
  { name: 'webhooks', title: 'Webhooks', args: ['bench/webhooks.ts'] },
  { name: 'crypto', title: 'Wire crypto', args: ['bench/crypto.ts'] },
  { name: 'startup', title: 'Start-up (npm start)', args: ['bench/startup.ts'] },
  { name: 'chart', title: 'Report chart', args: ['bench/chart.ts'] },
  { name: 'month-report', title: 'Month report (10,000 movements)', args: ['bench/month-report.ts'] },
];

function option(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const only = (option('--only') ?? process.env.BENCH_ONLY ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const writeDocs = process.argv.includes('--write-docs') || process.env.BENCH_WRITE_DOCS === '1';
const unknown = only.filter((name) => !SECTIONS.some((s) => s.name === name));
if (unknown.length > 0) {
  console.error(`unknown section ${unknown.join(', ')}; sections: ${SECTIONS.map((s) => s.name).join(', ')}`);
  process.exit(2);
}
const chosen = only.length > 0 ? SECTIONS.filter((s) => only.includes(s.name)) : SECTIONS;

interface SectionRun {
  name: string;
  exitCode: number | null;
  seconds: number;
  machineBefore: Machine;
  machineAfter: Machine;
}

/** Runs one section's script; prints its lines, keeps its figures. */
async function runSection(section: Section, figures: BenchFigure[]): Promise<SectionRun> {
  const machineBefore = machine();
  const started = Date.now();
  const child = spawn(process.execPath, ['--import', 'tsx', ...section.args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = once(child, 'exit') as Promise<[number | null]>;
  const timer = setTimeout(() => {
    console.log(`(${section.name} still running after ${SECTION_LIMIT_S} s: ended)`);
    child.kill('SIGKILL');
  }, SECTION_LIMIT_S * 1_000);
  for await (const line of createInterface({ input: child.stdout })) {
    const figure = parseResultLine(line);
    if (figure) figures.push(figure);
    else console.log(line);
  }
  const [exitCode] = await exited;
  clearTimeout(timer);
  return {
    name: section.name,
    exitCode,
    seconds: (Date.now() - started) / 1000,
    machineBefore,
    machineAfter: machine(),
  };
}

const figures: BenchFigure[] = [];
const runs: SectionRun[] = [];
console.log(machineLine());
for (const section of chosen) {
  console.log(`\n== ${section.title}`);
  const run = await runSection(section, figures);
  runs.push(run);
  const load = (m: Machine) => m.loadAverage[0].toFixed(2);
  console.log(
    `(${section.name}: ${run.seconds.toFixed(0)} s, load average ${load(run.machineBefore)} → ${load(run.machineAfter)}` +
      `${run.exitCode === 0 ? '' : `, exited with ${run.exitCode}`})`,
  );
}

const end = machine();
const rows = summaryRows(figures);
console.log(`\n== Summary (${machineLine(end)})`);
for (const line of summaryText(rows)) console.log(line);
const missed = rows.filter((r) => r.met === 'NO').length;
const failed = runs.filter((r) => r.exitCode !== 0).map((r) => r.name);
if (missed > 0) console.log(`${missed} target(s) missed`);
if (failed.length > 0) console.log(`section(s) that did not finish cleanly: ${failed.join(', ')}`);

const date = new Date().toISOString();
const outDir = join(ROOT, 'bench-results');
mkdirSync(outDir, { recursive: true });
const resultsFile = join(outDir, 'results.json');
writeFileSync(
  resultsFile,
  `${JSON.stringify({ date, machine: end, sections: runs, figures, summary: rows }, null, 2)}\n`,
);
console.log(`written: ${resultsFile}`);

if (writeDocs) {
  if (only.length > 0 || failed.length > 0) {
    console.log(`${BENCH_PAGE} not written: only a full run with every section finished updates its table`);
  } else {
    const pagePath = join(ROOT, BENCH_PAGE);
    const table = summaryMarkdown(rows, end, date.slice(0, 10));
    writeFileSync(pagePath, replaceBenchTable(readFileSync(pagePath, 'utf8'), table));
    try {
      // Biome lays out Markdown tables (padded columns); the lint would fail on the raw table.
      execFileSync(join(ROOT, 'node_modules/.bin/biome'), ['format', '--write', pagePath], {
        stdio: 'ignore',
      });
      console.log(`written: ${BENCH_PAGE} (benchmark summary table)`);
    } catch {
      console.log(
        `written: ${BENCH_PAGE} (benchmark summary table); run \`npx biome check --write ${BENCH_PAGE}\``,
      );
    }
  }
}
process.exit(failed.length > 0 ? 1 : 0);

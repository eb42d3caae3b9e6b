// The alert rules and the Grafana dashboard (deploy/prometheus/, deploy/grafana/) against the metrics
// the bot serves: every panel reads metrics the bot has (as docs/metrics.md lists them), both passkey-signature counters have a panel,
// and the passkey alert's reasons are reasons the refusals counter counts (a renamed reason would
// otherwise silence the page). promtool checks the rules and runs their unit tests here too when it is
// installed (Debian's prometheus package), as CI does; under CI=true a missing promtool fails.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { silentLogger } from '../../src/log.js';
import { BotMetrics } from '../../src/metrics/index.js';

const PROMETHEUS = fileURLToPath(new URL('../../deploy/prometheus/', import.meta.url));
const DASHBOARD = fileURLToPath(new URL('../../deploy/grafana/cngn-desk.dashboard.json', import.meta.url));
const METRICS_PAGE = fileURLToPath(new URL('../../docs/metrics.md', import.meta.url));
const SIGNED = 'cngn_approval_signed_total';
const REFUSALS = 'cngn_approval_signature_refusals_total';

interface Rule {
  alert: string;
  expr: string;
  labels?: Record<string, string>;
}

const rules = (): Rule[] =>
  (
    parse(readFileSync(`${PROMETHEUS}cngn-desk.rules.yml`, 'utf8')) as { groups: Array<{ rules: Rule[] }> }
  ).groups.flatMap((group) => group.rules);

const panels = (): Array<{ title: string; targets?: Array<{ expr: string }> }> =>
  JSON.parse(readFileSync(DASHBOARD, 'utf8')).panels;

const metricsIn = (expr: string) =>
  [...expr.matchAll(/\b(cngn_[a-z_]+?)(?:_bucket)?\b/g)].map((m) => m[1] ?? '');

function served(): BotMetrics {
  return new BotMetrics({ log: silentLogger, build: { version: '0', commit: 'unknown', node: 'v20' } });
}

describe('the dashboard and the alert rules', () => {
  test('every panel reads metrics the bot serves, and each passkey counter has a panel', () => {
    // docs/metrics.md lists every metric the bot serves (test/metrics/metrics.test.ts holds it to that).
    const page = readFileSync(METRICS_PAGE, 'utf8');
    const names = new Set([...page.matchAll(/^\| `(cngn_[a-z_]+)` +\|/gm)].map((row) => row[1]));
    expect(names).toContain(SIGNED);
    const exprs = panels().flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));
    for (const name of exprs.flatMap(metricsIn)) expect(names).toContain(name);
    for (const counter of [SIGNED, REFUSALS]) {
      expect(panels().filter((panel) => panel.targets?.some((t) => t.expr.includes(counter)))).toHaveLength(
        1,
      );
    }
  });

  test('the passkey alert pages on reasons the refusals counter counts, and on no everyday one', async () => {
    const rule = rules().find((r) => r.alert === 'CngnPasskeySignatureRefused');
    expect(rule?.labels?.severity).toBe('page');
    const reasons = /reason=~"([^"]+)"/.exec(rule?.expr ?? '')?.[1]?.split('|') ?? [];
    expect(reasons.sort()).toEqual(['bad-signature', 'counter-went-back', 'evidence-does-not-verify']);
    const counted = (await served().registry.getSingleMetric(REFUSALS)?.get())?.values.map((v) =>
      String(v.labels.reason),
    );
    for (const reason of reasons) expect(counted).toContain(reason);
  });
});

/** Debian's prometheus package installs it; CI installs that package (.ci/run). */
const PROMTOOL = 'promtool';
const promtool = spawnSync('sh', ['-c', `command -v ${PROMTOOL}`]).status === 0;
if (!promtool && process.env.CI === 'true') {
  throw new Error('CI=true but promtool is missing: install the prometheus package');
}
if (!promtool) console.warn('skipping the promtool checks of deploy/prometheus/: promtool is not installed');

describe.skipIf(!promtool)('promtool', () => {
  test('checks the rules and passes their unit tests', () => {
    const run = (args: string[]) =>
      spawnSync(PROMTOOL, args, { cwd: PROMETHEUS, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const checked = run(['check', 'rules', 'cngn-desk.rules.yml']);
    expect(checked.status, `${checked.stdout}${checked.stderr}`).toBe(0);
    const tested = run(['test', 'rules', 'cngn-desk.rules.test.yml']);
    expect(tested.status, `${tested.stdout}${tested.stderr}`).toBe(0);
  });
});

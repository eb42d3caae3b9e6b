// The layers of src/, bottom to top: format, store, log, stack-trace → cngn → approvals, webhooks, sandbox, reports →
// config.ts (settings parsed with the domain's own parsers) → slack, workbench, metrics → wiring, main.
// A layer imports only from layers below it (or its own), and no file is part of an import circle.
// `npm run lint` checks these rules; docs/architecture.md draws them.
const TOP = 'wiring/|main\\.ts$';
const UI = 'slack/|workbench/|metrics/';
const DOMAIN = 'approvals/|webhooks/|sandbox/|reports/';

const above = (name, comment, from, to) => ({
  name,
  comment,
  severity: 'error',
  from: { path: `^src/(${from})` },
  to: { path: `^src/(${to})` },
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment:
        'No import circles, not even between two files of one folder: move the shared type to a types.ts.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    above(
      'bottom-imports-nothing-above',
      'format/, store/, log.ts and stack-trace.ts are the bottom: pure helpers, the store and the logger, knowing no feature.',
      'format/|store/|log\\.ts$|stack-trace\\.ts$',
      `cngn/|${DOMAIN}|config\\.ts$|${UI}|${TOP}`,
    ),
    {
      name: 'cngn-imports-only-below',
      comment:
        'The custody client knows the bottom layer, plus the one port it adapts to (approvals/ports.ts).',
      severity: 'error',
      from: { path: '^src/cngn/' },
      to: { path: `^src/(${DOMAIN}|config\\.ts$|${UI}|${TOP})`, pathNot: '^src/approvals/ports\\.ts$' },
    },
    above(
      'domain-never-imports-slack',
      'approvals/, webhooks/, sandbox/ and reports/ work without Slack: they never import slack/, workbench/ or the wiring.',
      DOMAIN,
      `config\\.ts$|${UI}|${TOP}`,
    ),
    above(
      'config-below-slack',
      'config.ts settles the environment with the domain parsers; Slack code reads the settled Config.',
      'config\\.ts$',
      `${UI}|${TOP}`,
    ),
    above(
      'approvals-own-their-ports',
      'approvals/ declares what it needs from the custody service in ports.ts; cngn/ adapts to it.',
      'approvals/',
      'cngn/',
    ),
    {
      name: 'engine-parts-for-tests-only',
      comment:
        "The approval engine's parts (approvals/engine-parts.ts) are for tests that stop a process mid-step: the rest of src/ asks the engine itself.",
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/approvals/approval-engine\\.ts$' },
      to: { path: '^src/approvals/engine-parts\\.ts$' },
    },
    {
      name: 'slack-packages-only-in-slack',
      comment:
        "Slack's packages (@slack/*) are imported by slack/, workbench/ and wiring/ only: the rest reaches Slack through a port (webhooks/ posts alerts through its AlertSink).",
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(slack|workbench|wiring)/' },
      to: { path: '(^|/)node_modules/@slack/' },
    },
    above(
      'slack-below-wiring',
      'slack/, workbench/ and metrics/ are built by the wiring and never reach up to it.',
      UI,
      TOP,
    ),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};

// The layers of src/, bottom to top: format, store, log, stack-trace, crash-points → cngn → the domain (access
// below audit below approvals; webhooks, sandbox, reports) →
// config.ts (settings parsed with the domain's own parsers) → slack, workbench, metrics → wiring, main.
// A layer imports only from layers below it (or its own), and no file is part of an import circle.
// `npm run lint` checks these rules; docs/architecture.md draws them.
const TOP = 'wiring/|main\\.ts$';
const UI = 'slack/|workbench/|metrics/';
const DOMAIN = 'approvals/|access/|audit/|webhooks/|sandbox/|reports/';
// The rooms of the approval domain: each is entered from outside only through its index.ts.
const ROOMS = ['approvals', 'access', 'audit'];

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
      'format/, store/, log.ts, stack-trace.ts and crash-points.ts are the bottom: pure helpers, the store, the logger and the test-only crash switch, knowing no feature.',
      'format/|store/|log\\.ts$|stack-trace\\.ts$|crash-points\\.ts$',
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
      'approvals/, access/, audit/, webhooks/, sandbox/ and reports/ work without Slack: they never import slack/, workbench/ or the wiring.',
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
      'domain-rooms-own-their-ports',
      'approvals/ declares what it needs from the custody service in ports.ts; cngn/ adapts to it, and access/ and audit/ need it not at all.',
      'approvals/|access/|audit/',
      'cngn/',
    ),
    above(
      'access-and-audit-below-approvals',
      'access/ and audit/ sit below approvals/ (the engine uses them); nothing in them reaches back up to a request.',
      'access/|audit/',
      'approvals/',
    ),
    above(
      'access-below-audit',
      "access/ is the bottom room: the kinds of request and who holds which role. audit/ names a request's kind; access/ never imports the log.",
      'access/',
      'audit/',
    ),
    ...ROOMS.map((room) => ({
      name: `${room}-entered-through-its-index`,
      comment: `Outside ${room}/, only ${room}/index.ts is imported: the barrel says what the room offers${
        room === 'approvals' ? ' (engine-parts.ts, for tests, has its own rule below)' : ''
      }${room === 'audit' ? ' (verify-main.ts is an entry point of its own: the bundled standalone verifier)' : ''}${
        room === 'approvals' ? '; cngn/ reaches only ports.ts, by the rule above' : ''
      }.`,
      severity: 'error',
      from: { path: '^src/', pathNot: room === 'approvals' ? '^src/(approvals|cngn)/' : `^src/${room}/` },
      to: {
        path: `^src/${room}/`,
        pathNot: `^src/${room}/(index${room === 'approvals' ? '|engine-parts' : ''})\\.ts$`,
      },
    })),
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

// The layers of src/, bottom to top: format, store, log, source-maps, version, crash-points, esbuild-builds.mjs → cngn → the domain (access
// below audit below approvals; webhooks, sandbox, reports) →
// config.ts (settings parsed with the domain's own parsers) → slack, workbench, metrics, signing → wiring, main.
// A layer imports only from layers below it (or its own), and no file is part of an import circle.
// `npm run lint` checks these rules; docs/architecture.md draws them.
const TOP = 'wiring/|main\\.ts$';
const UI = 'slack/|workbench/|metrics/|signing/';
const DOMAIN = 'approvals/|access/|audit/|webhooks/|sandbox/|reports/';
// The rooms of the approval domain: each is entered from outside only through its index.ts.
const ROOMS = ['approvals', 'access', 'audit'];
// slack/'s folders that are not features: the base (runtime, ui) and the top (commands, gate).
const SLACK_SHARED = '(runtime|ui|commands|gate)/';

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
      'format/, store/, log.ts, source-maps.ts, version.ts, crash-points.ts and esbuild-builds.mjs are the bottom: pure helpers, the store, the logger with its source maps, the version of the build, the test-only crash switch and the count of esbuild builds under way, knowing no feature.',
      'format/|store/|log\\.ts$|source-maps\\.ts$|version\\.ts$|crash-points\\.ts$|esbuild-builds\\.(mjs|d\\.mts)$',
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
      'access/ and audit/ sit below approvals/ (the engine uses them); nothing in them reaches back up to the requests (the policy judges a narrow request shape of its own, access/judged-request.ts).',
      'access/|audit/',
      'approvals/',
    ),
    above(
      'access-below-audit',
      "access/ is the bottom room: the kinds of request, who holds which role, the policy that judges a click and the delegations it reads. audit/ names a request's kind; access/ never imports the log.",
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
        "Slack's packages (@slack/*) are imported by slack/, workbench/, signing/ and wiring/ only: the rest reaches Slack through a port (webhooks/ posts alerts through its AlertSink).",
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(slack|workbench|signing|wiring)/' },
      to: { path: '(^|/)node_modules/@slack/' },
    },
    above(
      'slack-below-wiring',
      'slack/, workbench/, metrics/ and signing/ are built by the wiring and never reach up to it.',
      UI,
      TOP,
    ),
    {
      name: 'signing-is-a-leaf',
      comment:
        'signing/ (the passkey pages) is installed by the wiring like the workbench: nothing else imports it, and it reads the workbench only for its headers.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(signing|wiring)/' },
      to: { path: '^src/signing/' },
    },
    {
      name: 'signing-page-runs-in-a-browser',
      comment:
        "The passkey pages' script (signing/page/) is bundled for the browser: it imports its own folder and protocol.ts only.",
      severity: 'error',
      from: { path: '^src/signing/page/' },
      to: { path: '^src/', pathNot: '^src/signing/(page/|protocol\\.ts$)' },
    },
    {
      name: 'signing-reads-the-workbench-headers-only',
      comment: 'signing/ shares the workbench page headers (workbench/headers.ts) and nothing else of it.',
      severity: 'error',
      from: { path: '^src/signing/' },
      to: { path: '^src/workbench/', pathNot: '^src/workbench/headers\\.ts$' },
    },
    // Inside slack/, bottom to top: runtime/ (the Bolt app and its plumbing) → types.ts → ui/ (messages,
    // words, modal kit) → the features → commands/ (the /cngn registry and router) and gate/ (the access
    // table and the gate). A feature tells another something through a function in its deps that the
    // wiring connects, never by importing it. docs/decisions/slack-ui-layer.md says why.
    {
      name: 'slack-feature-imports-only-base',
      comment:
        'A feature folder of slack/ imports its own folder, runtime/, ui/ and types.ts only: never another feature, commands/ or gate/.',
      severity: 'error',
      from: { path: `^src/slack/(?!${SLACK_SHARED})([^/]+)/` },
      to: { path: '^src/slack/', pathNot: `^src/slack/($1/|runtime/|ui/|types\\.ts$)` },
    },
    {
      name: 'slack-base-imports-no-feature',
      comment:
        'runtime/, types.ts and ui/ are what every feature stands on: they import nothing above them in slack/.',
      severity: 'error',
      from: { path: '^src/slack/(runtime/|ui/|types\\.ts$)' },
      to: { path: '^src/slack/', pathNot: '^src/slack/(runtime/|ui/|types\\.ts$)' },
    },
    {
      name: 'slack-types-below-ui',
      comment: 'types.ts declares what features share; it knows no message or form (ui/ is above it).',
      severity: 'error',
      from: { path: '^src/slack/types\\.ts$' },
      to: { path: '^src/slack/ui/' },
    },
    {
      name: 'slack-runtime-knows-no-words',
      comment:
        'runtime/ is the bottom of slack/: Bolt, deliveries, in-flight work, Slack calls. It imports neither ui/ nor types.ts.',
      severity: 'error',
      from: { path: '^src/slack/runtime/' },
      to: { path: '^src/slack/(ui/|types\\.ts$)' },
    },
    {
      name: 'slack-ui-is-pure',
      comment:
        'ui/ builds Block Kit from data and does no I/O: it never imports runtime/ (types.ts may name runtime types for the deps).',
      severity: 'error',
      from: { path: '^src/slack/ui/' },
      to: { path: '^src/slack/runtime/' },
    },
    {
      name: 'slack-commands-below-gate',
      comment: 'gate/ reads the registry to know who may run a subcommand; commands/ never reads the gate.',
      severity: 'error',
      from: { path: '^src/slack/commands/' },
      to: { path: '^src/slack/gate/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
